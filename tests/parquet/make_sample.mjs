// Writes data/sample-parquet/part-00.parquet: the documents of data/sample-jsonl/part-00.jsonl
// (columns id, text; in order) with parquet-wasm, ZSTD, row groups of 250 rows - the layout of
// a small FineWeb-style file. Reads it back with hyparquet and checks every text.
//   node tests/parquet/make_sample.mjs NODE_MODULES_DIR REPO_DIR
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const [modules, repo] = process.argv.slice(2);
const require = createRequire(path.join(modules, 'x.js'));
const arrow = require('apache-arrow');
const pw = require('parquet-wasm');
const { parquetReadObjects } = await import(path.join(modules, 'hyparquet/src/index.js'));
const { compressors } = await import(path.join(modules, 'hyparquet-compressors/src/index.js'));

const lines = readFileSync(path.join(repo, 'data/sample-jsonl/part-00.jsonl'), 'utf8')
  .split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l));
const table = arrow.tableFromArrays({ id: lines.map((r) => r.id), text: lines.map((r) => r.text) });
const props = new pw.WriterPropertiesBuilder().setCompression(pw.Compression.ZSTD)
  .setMaxRowGroupSize(250).setCreatedBy('tokenmill tests/parquet/make_sample.mjs').build();
const buf = pw.writeParquet(pw.Table.fromIPCStream(arrow.tableToIPC(table, 'stream')), props);
const rows = await parquetReadObjects({ file: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength), compressors });
if (rows.length !== lines.length || rows.some((r, i) => r.text !== lines[i].text)) {
  throw new Error('hyparquet does not read back the sample as written');
}
mkdirSync(path.join(repo, 'data/sample-parquet'), { recursive: true });
writeFileSync(path.join(repo, 'data/sample-parquet/part-00.parquet'), buf);
console.log(`data/sample-parquet/part-00.parquet: ${buf.length} bytes, ${rows.length} rows`);
