// hyparquet's side of bench/parquet.sh: reads the text column of FILE REPEATS times (one thread)
// and prints the median text MB/s (UTF-8 bytes of the decoded strings per wall second) as JSON.
//   node bench/parquet_hyparquet.mjs NODE_MODULES_DIR FILE [REPEATS] [TEXT_FIELD]
import { readFileSync } from 'node:fs';
import path from 'node:path';

const [modules, file, repeatsArg, field = 'text'] = process.argv.slice(2);
const repeats = Math.max(1, Number(repeatsArg ?? 5));
const { parquetRead } = await import(path.join(modules, 'hyparquet/src/index.js'));
const { compressors } = await import(path.join(modules, 'hyparquet-compressors/src/index.js'));
const buf = readFileSync(file);
const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
const rates = [];
let docs = 0;
let text = 0;
for (let r = 0; r < repeats; ++r) {
  const t0 = process.hrtime.bigint();
  docs = 0;
  text = 0;
  await parquetRead({
    file: ab, columns: [field], compressors, rowFormat: 'array',
    onComplete: (rows) => {
      for (const row of rows) {
        const t = row[0];
        if (t) {
          ++docs;
          text += Buffer.byteLength(t, 'utf8');
        }
      }
    },
  });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  rates.push(text / 1e6 / s);
}
rates.sort((a, b) => a - b);
console.log(JSON.stringify({ text_mb_per_s: Number(rates[Math.floor(rates.length / 2)].toFixed(1)),
  documents: docs, text_bytes: text }));
