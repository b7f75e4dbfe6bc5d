#!/usr/bin/env node
// The words HF tokenizers' BertNormalizer + BertPreTokenizer make of each line, as hex code
// points joined by '.', separated by spaces (the format of wordpiece_bench --dump-words).
//
//   node hf_words.js TOKENIZERS_MODULE IN OUT LOWERCASE STRIP CLEAN CJK   (flags: 1 or 0)
'use strict'
const fs = require('fs')
const [, , mod, inp, outp, lo, st, cl, cj] = process.argv
const tk = require(mod)
const norm = tk.bertNormalizer({lowercase: lo === '1', stripAccents: st === '1',
                                cleanText: cl === '1', handleChineseChars: cj === '1'})
const pre = tk.bertPreTokenizer()
const lines = fs.readFileSync(inp, 'utf8').split('\n')
lines.pop()
const hex = (s) => Array.from(s).map((c) => c.codePointAt(0).toString(16)).join('.')
const out = lines.map((l) => pre.preTokenizeString(norm.normalizeString(l)).map(([w]) => hex(w)).join(' '))
fs.writeFileSync(outp, out.join('\n') + '\n')
