// Writes the Parquet test files of src/tokenmill/io/testdata/parquet/ with two independent
// writers - parquet-wasm (the Rust parquet crate) and hyparquet-writer - in every layout the
// reader supports, reads each back with hyparquet (a third, independent implementation) and
// checks that it holds the rows written, then records what tokenmill must read in
// manifest.json: per file, the text column, the row count, the non-empty texts' count and the
// SHA-256 of those texts, each followed by a NUL byte, in order.
//
//   node tests/parquet/gen_testdata.mjs NODE_MODULES_DIR OUT_DIR
// (tests/parquet/make_testdata.sh installs the pinned packages and runs this.)
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const [modules, out] = process.argv.slice(2);
if (!modules || !out) {
  console.error('usage: gen_testdata.mjs NODE_MODULES_DIR OUT_DIR');
  process.exit(2);
}
const require = createRequire(path.join(modules, 'x.js'));
const arrow = require('apache-arrow');
const pw = require('parquet-wasm');
const { parquetWriteBuffer } = await import(path.join(modules, 'hyparquet-writer/src/index.js'));
const { parquetReadObjects } = await import(path.join(modules, 'hyparquet/src/index.js'));
const { compressors } = await import(path.join(modules, 'hyparquet-compressors/src/index.js'));

mkdirSync(out, { recursive: true });

// Deterministic pseudo-random rows.
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296;
  };
}
const WORDS = ['the', 'mill', 'grinds', 'tokens', '数据', '中文', '文本', 'naïve', 'café', 'Ελληνικά',
  'русский', '😀', 'parquet', 'row', 'group', 'page', 'dictionary', 'ज़', 'x', 'longer-word'];
function makeText(r, i, maxWords) {
  const n = 1 + Math.floor(r() * maxWords);
  const parts = [`doc ${i}:`];
  for (let k = 0; k < n; ++k) parts.push(WORDS[Math.floor(r() * WORDS.length)]);
  if (r() < 0.1) parts.push('\nsecond line');
  return parts.join(' ');
}
// texts[i]: a string, '' or null. `nulls`: share of nulls; `repeat`: share of repeated values
// (so dictionaries pay off).
function makeRows(n, { seed = 1, nulls = 0, empties = 0.02, repeat = 0.3, maxWords = 30 } = {}) {
  const r = rng(seed);
  const texts = [];
  for (let i = 0; i < n; ++i) {
    const x = r();
    if (x < nulls) texts.push(null);
    else if (x < nulls + empties) texts.push('');
    else if (texts.length > 0 && r() < repeat) {
      const prev = texts[Math.floor(r() * texts.length)];
      texts.push(prev === null || prev === '' ? makeText(r, i, maxWords) : prev);
    } else texts.push(makeText(r, i, maxWords));
  }
  return texts;
}

const manifest = [];
function expect(name, textField, texts, extra = {}) {
  const h = createHash('sha256');
  let documents = 0;
  for (const t of texts) {
    if (t === null || t === '') continue;
    h.update(Buffer.from(t, 'utf8'));
    h.update(Buffer.from([0]));
    ++documents;
  }
  manifest.push({ name, text_field: textField, rows: texts.length, documents,
    empty: texts.length - documents, sha256: h.digest('hex'), ...extra });
}

async function crossCheck(name, buf, column, texts) {
  const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const rows = await parquetReadObjects({ file, compressors });
  if (rows.length !== texts.length) throw new Error(`${name}: hyparquet read ${rows.length} rows, wrote ${texts.length}`);
  const get = (row) => column.split('.').reduce((o, k) => (o === null || o === undefined ? null : o[k]), row);
  for (let i = 0; i < texts.length; ++i) {
    const got = get(rows[i]) ?? null;
    if (got !== texts[i]) throw new Error(`${name}: row ${i}: hyparquet read ${JSON.stringify(got)}, wrote ${JSON.stringify(texts[i])}`);
  }
}

function save(name, buf) {
  writeFileSync(path.join(out, name), buf);
}

// ---- parquet-wasm (Rust parquet crate) ------------------------------------------------------
function arrowTable(texts, { struct = false } = {}) {
  const n = texts.length;
  const ids = BigInt64Array.from({ length: n }, (_, i) => BigInt(i));
  const scores = Float64Array.from({ length: n }, (_, i) => i / 7);
  const urls = texts.map((_, i) => `https://example.com/${i}`);
  if (!struct) {
    return new arrow.Table({
      id: arrow.vectorFromArray(Array.from(ids), new arrow.Int64()),
      text: arrow.vectorFromArray(texts, new arrow.Utf8()),
      score: arrow.vectorFromArray(Array.from(scores), new arrow.Float64()),
      url: arrow.vectorFromArray(urls, new arrow.Utf8()),
    });
  }
  const type = new arrow.Struct([
    new arrow.Field('lang', new arrow.Utf8(), true),
    new arrow.Field('body', new arrow.Utf8(), true),
  ]);
  // Some whole structs are null too: their body reads as null.
  const metaValues = texts.map((t, i) => (i % 17 === 5 ? null : { lang: i % 2 ? 'zh' : 'en', body: t }));
  const meta = arrow.vectorFromArray(metaValues, type);
  const table = new arrow.Table({
    id: arrow.vectorFromArray(Array.from(ids), new arrow.Int64()),
    meta,
    url: arrow.vectorFromArray(urls, new arrow.Utf8()),
  });
  return { table, bodies: metaValues.map((m) => (m === null ? null : m.body)) };
}

function writePw(table, configure) {
  const ipc = arrow.tableToIPC(table, 'stream');
  const wasmTable = pw.Table.fromIPCStream(ipc);
  let props = new pw.WriterPropertiesBuilder();
  props = configure(props);
  return pw.writeParquet(wasmTable, props.build());
}

const C = pw.Compression;
const E = pw.Encoding;
const V = pw.WriterVersion;
const codecs = [['uncompressed', C.UNCOMPRESSED], ['snappy', C.SNAPPY], ['gzip', C.GZIP],
  ['brotli', C.BROTLI], ['lz4', C.LZ4], ['zstd', C.ZSTD], ['lz4raw', C.LZ4_RAW]];

async function pwFile(name, texts, configure, { column = 'text', struct = false, ...extra } = {}) {
  let table = arrowTable(texts, { struct });
  let expected = texts;
  if (struct) {
    expected = table.bodies;
    table = table.table;
  }
  const buf = writePw(table, configure);
  await crossCheck(name, buf, column, expected);
  save(name, buf);
  expect(name, column, expected, { writer: 'parquet-wasm 0.8.0', ...extra });
}

for (const [cname, codec] of codecs) {
  for (const [vname, version] of [['v1', V.V1], ['v2', V.V2]]) {
    const texts = makeRows(300, { seed: 10 + codec * 2 + version, nulls: 0.05 });
    await pwFile(`pw_${vname}_${cname}.parquet`, texts, (p) => p.setCompression(codec)
      .setWriterVersion(version).setDataPageSizeLimit(4096).setMaxRowGroupSize(120));
  }
}
// Dictionary fallback inside one column chunk: parquet-rs checks the dictionary (1 MiB by
// default) when a data page closes (20,000 rows by default); past it, v1 pages go on in PLAIN and
// v2 pages in DELTA_BYTE_ARRAY. 21,000 short unique texts make [dict][RLE_DICTIONARY][PLAIN or
// DELTA_BYTE_ARRAY] pages.
for (const [vname, version] of [['v1', V.V1], ['v2', V.V2]]) {
  const texts = Array.from({ length: 21000 }, (_, i) => (i % 97 === 13 ? null
    : `row ${i} ${WORDS[i % WORDS.length]} the mill grinds tokens from parquet pages`));
  await pwFile(`pw_${vname}_dict_fallback.parquet`, texts,
    (p) => p.setCompression(C.ZSTD).setWriterVersion(version));
}
for (const [ename, enc] of [['plain', E.PLAIN], ['delta_length', E.DELTA_LENGTH_BYTE_ARRAY],
  ['delta_byte_array', E.DELTA_BYTE_ARRAY]]) {
  for (const [vname, version] of [['v1', V.V1], ['v2', V.V2]]) {
    await pwFile(`pw_${vname}_${ename}.parquet`, makeRows(400, { seed: 20 + enc, nulls: 0.1 }),
      (p) => p.setCompression(C.SNAPPY).setWriterVersion(version).setDictionaryEnabled(false)
        .setColumnEncoding('text', enc).setDataPageSizeLimit(2048).setWriteBatchSize(32));
  }
}
await pwFile('pw_many_row_groups.parquet', makeRows(200, { seed: 5, nulls: 0.05, maxWords: 10 }),
  (p) => p.setCompression(C.SNAPPY).setMaxRowGroupSize(7), { row_groups: Math.ceil(200 / 7) });
await pwFile('pw_all_null.parquet', Array(50).fill(null), (p) => p.setCompression(C.SNAPPY));
await pwFile('pw_struct.parquet', makeRows(300, { seed: 6, nulls: 0.1 }),
  (p) => p.setCompression(C.ZSTD).setMaxRowGroupSize(100), { column: 'meta.body', struct: true });
{
  // Large strings: two texts of 150-250 KB among short ones.
  const r = rng(7);
  const texts = makeRows(40, { seed: 8 });
  for (const i of [3, 33]) {
    const parts = [];
    while (parts.join(' ').length < 150000 + i * 3000) parts.push(makeText(r, i, 50));
    texts[i] = parts.join(' ');
  }
  await pwFile('pw_large_strings.parquet', texts, (p) => p.setCompression(C.ZSTD));
}

// ---- hyparquet-writer ------------------------------------------------------------------------
async function hwFile(name, texts, { nullable = true, encoding, codec = 'SNAPPY', rowGroupSize = 1000, pageSize } = {}) {
  const n = texts.length;
  const columnData = [
    { name: 'id', data: Array.from({ length: n }, (_, i) => i), type: 'INT32', nullable: false },
    { name: 'title', data: texts.map((_, i) => `title ${i}`), type: 'STRING' },
    { name: 'text', data: texts, type: 'STRING', nullable, ...(encoding ? { encoding } : {}) },
    { name: 'score', data: Array.from({ length: n }, (_, i) => i * 0.5), type: 'DOUBLE' },
  ];
  const opts = { columnData, codec, rowGroupSize };
  if (pageSize) opts.pageSize = pageSize;
  const ab = parquetWriteBuffer(opts);
  const buf = Buffer.from(ab);
  await crossCheck(name, buf, 'text', texts);
  save(name, buf);
  expect(name, 'text', texts, { writer: 'hyparquet-writer 0.17.0' });
}
await hwFile('hw_snappy.parquet', makeRows(400, { seed: 30, nulls: 0.05 }), { rowGroupSize: 150, pageSize: 2048 });
await hwFile('hw_uncompressed.parquet', makeRows(300, { seed: 31, nulls: 0.05 }), { codec: 'UNCOMPRESSED' });
await hwFile('hw_required.parquet', makeRows(300, { seed: 32, empties: 0.05 }), { nullable: false, rowGroupSize: 64 });
await hwFile('hw_plain.parquet', makeRows(300, { seed: 33, nulls: 0.05 }), { encoding: 'PLAIN', pageSize: 1024 });
await hwFile('hw_delta_length.parquet', makeRows(300, { seed: 34, nulls: 0.05 }), { encoding: 'DELTA_LENGTH_BYTE_ARRAY', pageSize: 1024 });
await hwFile('hw_delta_byte_array.parquet', makeRows(300, { seed: 35, nulls: 0.05 }), { encoding: 'DELTA_BYTE_ARRAY', pageSize: 1024 });
await hwFile('hw_dictionary.parquet', makeRows(600, { seed: 37, nulls: 0.05, repeat: 0.95 }), { pageSize: 256 });
await hwFile('hw_many_row_groups.parquet', makeRows(200, { seed: 36 }), { rowGroupSize: 3 });

writeFileSync(path.join(out, 'manifest.json'), JSON.stringify({ files: manifest }, null, 1) + '\n');
const total = manifest.reduce((a, f) => a + readFileSync(path.join(out, f.name)).length, 0);
console.log(`wrote ${manifest.length} files (${total} bytes) to ${out}`);
