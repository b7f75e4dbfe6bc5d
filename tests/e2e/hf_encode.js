#!/usr/bin/env node
// The reference for test_spm_tokenizers.py: HF tokenizers' node binding (tokenizers 0.23.2)
// encodes each line of IN with a tokenizer.json, no special tokens added, one JSON id array per
// line to OUT. Lines are split on "\n" only.
//   NODE_PATH=DIR/node_modules node hf_encode.js TOKENIZER_JSON IN OUT
'use strict'
const fs = require('fs')
const tk = require('tokenizers')

async function main() {
  const [tokenizerJson, inPath, outPath] = process.argv.slice(2)
  const lines = fs.readFileSync(inPath).toString('utf8').split('\n')
  if (lines.length && lines[lines.length - 1] === '') lines.pop()
  const t = tk.Tokenizer.fromFile(tokenizerJson)
  const out = []
  for (let i = 0; i < lines.length; i += 1000) {
    const encs = await t.encodeBatch(lines.slice(i, i + 1000), { addSpecialTokens: false })
    for (const e of encs) out.push(JSON.stringify(e.getIds()))
  }
  fs.writeFileSync(outPath, out.length ? out.join('\n') + '\n' : '')
}

main().catch((e) => { console.error(e); process.exit(1) })
