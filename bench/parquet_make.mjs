// Writes the benchmark files of bench/parquet.sh: the sample JSONL corpus (both files) repeated
// to about TARGET_MB of text, as FineWeb-like Parquet (columns text, id, url; row groups of 1000
// rows; dictionary on, as pyarrow and datatrove write), once SNAPPY and once ZSTD.
//   node bench/parquet_make.mjs NODE_MODULES_DIR REPO_DIR OUT_DIR [TARGET_MB] [ROWS_PER_GROUP]
import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import path from 'node:path';

const [modules, repo, out, targetArg] = process.argv.slice(2);
const target = Number(targetArg ?? 64) * 1e6;
const rowsPerGroup = Number(process.argv[6] ?? 1000);
const require = createRequire(path.join(modules, 'x.js'));
const arrow = require('apache-arrow');
const pw = require('parquet-wasm');
const read = (p) => (p.endsWith('.gz') ? gunzipSync(readFileSync(p)) : readFileSync(p)).toString('utf8');
const records = [];
for (const f of ['part-00.jsonl', 'part-01.jsonl.gz']) {
  for (const line of read(path.join(repo, 'data/sample-jsonl', f)).split('\n')) {
    if (line) records.push(JSON.parse(line));
  }
}
const texts = [], ids = [], urls = [];
let bytes = 0;
for (let copy = 0; bytes < target; ++copy) {
  for (const r of records) {
    // Each copy differs a little (as distinct web pages would), so dictionaries do not pay off.
    const t = `${r.text}\n#${copy}`;
    texts.push(t);
    ids.push(`${r.id}/${copy}`);
    urls.push(`https://example.com/${r.id}/${copy}`);
    bytes += Buffer.byteLength(t, 'utf8');
  }
}
const table = arrow.tableFromArrays({ text: texts, id: ids, url: urls });
for (const [name, codec] of [['snappy', pw.Compression.SNAPPY], ['zstd', pw.Compression.ZSTD]]) {
  const props = new pw.WriterPropertiesBuilder().setCompression(codec).setMaxRowGroupSize(rowsPerGroup).build();
  const buf = pw.writeParquet(pw.Table.fromIPCStream(arrow.tableToIPC(table, 'stream')), props);
  writeFileSync(path.join(out, `bench-${name}.parquet`), buf);
}
console.error(`${texts.length} documents, ${(bytes / 1e6).toFixed(1)} MB of text`);
