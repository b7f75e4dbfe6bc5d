#!/usr/bin/env python3
"""Generates ../bert_unicode_data.cc: where the references' Unicode data differ from utf8proc.

tokenmill's BERT normalizer takes categories, lowercasing and NFD from utf8proc (libutf8proc 2.8,
Unicode 15.0). The references use other data:
  * HF tokenizers 0.23.2: the `unicode_categories` crate (an old Unicode, ~9.0) for control,
    punctuation and Mn; Rust std (Unicode 16) for lowercasing; `unicode-normalization-alignments`
    for NFD. Observed, not assumed: hf_probe.js dumps what the real library does per code point.
  * google-research/bert and electra under Python 3.11: `unicodedata` (Unicode 14.0) and str.lower().
This script writes the differences as small tables so every code point behaves as in the reference.

  node hf_probe.js /tmp/ref/node_modules/tokenizers /tmp/hf_probe.txt
  python3 gen_bert_unicode_data.py /tmp/hf_probe.txt > ../bert_unicode_data.cc
"""
import ctypes
import sys
import unicodedata as ud

assert ud.unidata_version == '14.0.0', 'run with Python 3.11 (Unicode 14.0), as the golden files'

lib = ctypes.CDLL('libutf8proc.so.2')
lib.utf8proc_version.restype = ctypes.c_char_p
lib.utf8proc_unicode_version.restype = ctypes.c_char_p
assert lib.utf8proc_unicode_version() == b'15.0.0', lib.utf8proc_unicode_version()
lib.utf8proc_category.restype = ctypes.c_int
lib.utf8proc_category.argtypes = [ctypes.c_int32]
lib.utf8proc_tolower.restype = ctypes.c_int32
lib.utf8proc_tolower.argtypes = [ctypes.c_int32]


class _Property(ctypes.Structure):  # the first fields of utf8proc_property_t
    _fields_ = [('category', ctypes.c_int16), ('combining_class', ctypes.c_int16)]


lib.utf8proc_get_property.restype = ctypes.POINTER(_Property)
lib.utf8proc_get_property.argtypes = [ctypes.c_int32]
lib.utf8proc_decompose_char.restype = ctypes.c_ssize_t
lib.utf8proc_decompose_char.argtypes = [ctypes.c_int32, ctypes.POINTER(ctypes.c_int32),
                                        ctypes.c_ssize_t, ctypes.c_int,
                                        ctypes.POINTER(ctypes.c_int)]
# utf8proc_category_t order.
CATS = ['Cn', 'Lu', 'Ll', 'Lt', 'Lm', 'Lo', 'Mn', 'Mc', 'Me', 'Nd', 'Nl', 'No', 'Pc', 'Pd', 'Ps',
        'Pe', 'Pi', 'Pf', 'Po', 'Sm', 'Sc', 'Sk', 'So', 'Zs', 'Zl', 'Zp', 'Cc', 'Cf', 'Cs', 'Co']
UTF8PROC_DECOMPOSE = 1 << 3
_buf = (ctypes.c_int32 * 8)()


def u_cat(cp):
    return CATS[lib.utf8proc_category(cp)]


def u_ccc(cp):
    return lib.utf8proc_get_property(cp).contents.combining_class


def u_lower(cp):
    # What bert_unicode.cc does: utf8proc's simple mapping, plus the one unconditional multi-char
    # lowercase mapping of SpecialCasing.txt.
    return [0x69, 0x307] if cp == 0x130 else [lib.utf8proc_tolower(cp)]


def u_nfd(cp):
    n = lib.utf8proc_decompose_char(cp, _buf, 8, UTF8PROC_DECOMPOSE, None)
    return [_buf[i] for i in range(n)]


ASCII_PUNCT = set(range(33, 48)) | set(range(58, 65)) | set(range(91, 97)) | set(range(123, 127))
RUST_WHITESPACE = set([9, 10, 11, 12, 13, 32, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f,
                       0x3000] + list(range(0x2000, 0x200b)))
PYTHON_ISSPACE = set([9, 10, 11, 12, 13, 0x1c, 0x1d, 0x1e, 0x1f, 32, 0x85, 0xa0, 0x1680, 0x2028,
                      0x2029, 0x202f, 0x205f, 0x3000] + list(range(0x2000, 0x200b)))


def ranges(cps):
    out = []
    for cp in sorted(cps):
        if out and out[-1][1] == cp - 1:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return out


def hf_tables(path):
    def unhex(s):
        return [] if s == '-' else [int(x, 16) for x in s.split('.')]
    rows = {}
    for line in open(path):
        cp, clean, cjk, strip, lower, pre, ccc = line.split()
        rows[int(cp, 16)] = (unhex(clean), cjk, unhex(strip), unhex(lower), pre, ccc)
    assert len(rows) == 0x110000 - 0x800, 'incomplete probe file'
    other_flip, punct_flip, mn_flip, no_decomp, lower_map, ccc_zero = [], [], [], [], [], []
    hf_mn = set()
    for cp, (clean, cjk, strip, lower, pre, ccc) in rows.items():
        if strip == [] and len(u_nfd(cp)) == 1:
            hf_mn.add(cp)
    for cp, (clean, cjk, strip, lower, pre, ccc) in rows.items():
        c = u_cat(cp)
        if cp not in (0, 0xfffd, 9, 10, 13):
            if (clean == []) != (c in ('Cc', 'Cf', 'Co')):
                other_flip.append(cp)
        assert (pre == 'S') == (cp in RUST_WHITESPACE), hex(cp)
        if cp >= 0x80 and (pre == 'P') != (c[0] == 'P'):
            punct_flip.append(cp)
        if len(u_nfd(cp)) == 1 and (cp in hf_mn) != (c == 'Mn'):
            mn_flip.append(cp)
        if strip != [x for x in u_nfd(cp) if x not in hf_mn]:
            assert strip == [cp], 'unexpected NFD difference at %x' % cp
            no_decomp.append(cp)
        if lower != u_lower(cp):
            assert len(lower) == 1, 'unexpected multi-char lowercase at %x' % cp
            lower_map.append((cp, lower[0]))
        if len(u_nfd(cp)) == 1 and cp != 0x345:  # U+0345 (240) is the probe's reference
            if (ccc == '1') != (0 < u_ccc(cp) < 240):
                assert ccc == '0', 'unexpected combining class at %x' % cp
                ccc_zero.append(cp)
    return other_flip, punct_flip, mn_flip, no_decomp, lower_map, ccc_zero


def python_tables():
    def cased(c):
        return c.islower() or c.isupper() or c.istitle()

    def case_ignorable(cp):
        # Probed through str.lower()'s final-sigma rule, which is where Python uses the property.
        c = chr(cp)
        if cased(c):
            return (c + '\u03a3').lower()[-1] == '\u03c3'
        return ('A\u03a3' + c + 'A').lower()[1] == '\u03c3'

    cat_over, cased_extra, ignorable_extra, ccc_over = [], [], [], []
    for cp in range(0x110000):
        c = chr(cp)
        pc = ud.category(c)
        if pc != u_cat(cp):
            cat_over.append((cp, pc))
        if ud.combining(c) != u_ccc(cp):
            ccc_over.append((cp, ud.combining(c)))
        assert c.isspace() == (cp in PYTHON_ISSPACE), hex(cp)
        if 0xd800 <= cp <= 0xdfff:
            continue
        assert [ord(x) for x in c.lower()] == u_lower(cp), 'lowercase differs at %x' % cp
        assert [ord(x) for x in ud.normalize('NFD', c)] == u_nfd(cp), 'NFD differs at %x' % cp
        if cased(c):
            if pc not in ('Lu', 'Ll', 'Lt'):
                cased_extra.append(cp)
        else:
            assert pc not in ('Lu', 'Ll', 'Lt'), hex(cp)
        if case_ignorable(cp):
            if pc not in ('Mn', 'Me', 'Cf', 'Lm', 'Sk'):
                ignorable_extra.append(cp)
        else:
            assert pc not in ('Mn', 'Me', 'Cf', 'Lm', 'Sk'), hex(cp)
    cat_ranges = []
    for cp, pc in cat_over:
        if cat_ranges and cat_ranges[-1][1] == cp - 1 and cat_ranges[-1][2] == pc:
            cat_ranges[-1][1] = cp
        else:
            cat_ranges.append([cp, cp, pc])
    return cat_ranges, cased_extra, ignorable_extra, ccc_over


def emit_ranges(name, cps, doc):
    words, line = doc.split(), '//'
    for w in words:
        if len(line) + len(w) + 1 > 100:
            print(line)
            line = '//'
        line += ' ' + w
    print(line)
    print('const CodePointRange %s[] = {' % name)
    line = '   '
    for lo, hi in ranges(cps):
        item = ' {0x%X, 0x%X},' % (lo, hi)
        if len(line) + len(item) > 100:
            print(line)
            line = '   '
        line += item
    if line.strip():
        print(line)
    print('};')
    print('const std::span<const CodePointRange> %s(%s);' % (name[:-4], name))
    print()


def main():
    other_flip, punct_flip, mn_flip, no_decomp, lower_map, ccc_zero = hf_tables(sys.argv[1])
    cat_ranges, cased_extra, ignorable_extra, ccc_over = python_tables()
    print('// Generated by bert_unicode_gen/gen_bert_unicode_data.py; do not edit.')
    print('// Where the references\' Unicode data differ from utf8proc %s (Unicode %s).' %
          (lib.utf8proc_version().decode(), lib.utf8proc_unicode_version().decode()))
    print('#include "tokenmill/tokenizer/normalizers/bert_unicode_data.h"')
    print()
    print('namespace tokenmill::bert {')
    print()
    emit_ranges('kHfOtherFlipData', other_flip,
                'HF: Cc/Cf/Co of the unicode_categories crate, where utf8proc says otherwise.')
    emit_ranges('kHfPunctuationFlipData', punct_flip,
                'HF: non-ASCII punctuation (P*) of the crate, where utf8proc says otherwise.')
    emit_ranges('kHfNonspacingMarkFlipData', mn_flip,
                'HF: Mn of the crate, where utf8proc says otherwise.')
    emit_ranges('kHfNoDecompositionData', no_decomp,
                'HF: code points HF\'s NFD leaves alone although utf8proc decomposes them.')
    emit_ranges('kHfCombiningClassZeroData', ccc_zero,
                'HF: code points with a combining class in utf8proc that HF\'s NFD does not know '
                '(class 0 there, so never reordered).')
    print('// HF: lowercase (Rust std) where it differs from utf8proc.')
    print('const CodePointMapping kHfLowercaseData[] = {')
    for i in range(0, len(lower_map), 4):
        print('   ' + ''.join(' {0x%X, 0x%X},' % m for m in lower_map[i:i + 4]))
    print('};')
    print('const std::span<const CodePointMapping> kHfLowercase(kHfLowercaseData);')
    print()
    print('// Python 3.11 (Unicode 14.0): general categories that differ from utf8proc.')
    print('const CategoryRange kPythonCategoryData[] = {')
    for lo, hi, pc in cat_ranges:
        print('    {0x%X, 0x%X, UTF8PROC_CATEGORY_%s},' % (lo, hi, pc.upper()))
    print('};')
    print('const std::span<const CategoryRange> kPythonCategory(kPythonCategoryData);')
    print()
    print('// Python 3.11: canonical combining classes that differ from utf8proc.')
    print('const CodePointMapping kPythonCombiningClassData[] = {')
    for i in range(0, len(ccc_over), 4):
        print('   ' + ''.join(' {0x%X, %d},' % m for m in ccc_over[i:i + 4]))
    print('};')
    print('const std::span<const CodePointMapping> kPythonCombiningClass(kPythonCombiningClassData);')
    print()
    emit_ranges('kPythonCasedExtraData', cased_extra,
                'Python 3.11: Cased code points outside Lu/Ll/Lt (Other_Lowercase, Other_Uppercase).')
    emit_ranges('kPythonCaseIgnorableExtraData', ignorable_extra,
                'Python 3.11: Case_Ignorable code points outside Mn/Me/Cf/Lm/Sk (Word_Break '
                'MidLetter, MidNumLet, Single_Quote).')
    print('}  // namespace tokenmill::bert')


if __name__ == '__main__':
    main()
