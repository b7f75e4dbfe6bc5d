#!/usr/bin/env node
// Dumps what HF tokenizers' BertNormalizer and BertPreTokenizer do with every code point (except
// surrogates), one line each:
//   CP CLEAN CJK STRIP LOWER PRE CCC
// CP, CLEAN, STRIP, LOWER: hex code points joined by '.', '-' for an empty result.
// CLEAN: clean_text alone; CJK: 'C' if handle_chinese_chars alone puts spaces around it, else '-';
// STRIP: strip_accents alone (NFD, then drop Mn); LOWER: lowercase alone;
// PRE: BertPreTokenizer on "a" CP "a": 'S' split (whitespace), 'P' isolated (punctuation), 'N' none;
// CCC: '1' if NFD moves CP before U+0345 (combining class 240), i.e. HF's NFD gives CP a combining
// class from 1 to 239; else '0'.
//
//   node hf_probe.js /path/to/node_modules/tokenizers OUT.txt
'use strict'
const tk = require(process.argv[2])
const opts = (o) => Object.assign({cleanText: false, handleChineseChars: false, stripAccents: false,
                                   lowercase: false}, o)
const clean = tk.bertNormalizer(opts({cleanText: true}))
const cjk = tk.bertNormalizer(opts({handleChineseChars: true}))
const strip = tk.bertNormalizer(opts({stripAccents: true}))
const lower = tk.bertNormalizer(opts({lowercase: true}))
const pre = tk.bertPreTokenizer()
const nfd = tk.nfdNormalizer()
const hex = (s) => s.length === 0 ? '-' : Array.from(s).map((c) => c.codePointAt(0).toString(16)).join('.')
const out = []
for (let cp = 0; cp <= 0x10ffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue
  const c = String.fromCodePoint(cp)
  const n = pre.preTokenizeString('a' + c + 'a').length
  const pc = n === 1 ? 'N' : n === 2 ? 'S' : 'P'
  out.push([cp.toString(16), hex(clean.normalizeString(c)),
            cjk.normalizeString(c).length > c.length ? 'C' : '-',
            hex(strip.normalizeString(c)), hex(lower.normalizeString(c)), pc,
            nfd.normalizeString('\u0345' + c).codePointAt(0) === 0x345 ? '0' : '1'].join(' '))
}
require('fs').writeFileSync(process.argv[3], out.join('\n') + '\n')
