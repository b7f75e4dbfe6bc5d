#!/usr/bin/env python3
"""The words of google-research/bert's (or electra's) BasicTokenizer for each line.

A model of BasicTokenizer.tokenize() written from its documented behaviour, for checking
tokenmill under Python 3.11 (unicodedata 14.0, the Unicode of the golden files). Output: per
line, the words as hex code points joined by '.', separated by spaces (the format of
wordpiece_bench --dump-words). Input lines are split on '\\n' only, invalid UTF-8 dropped.

  python3 google_basic_tokenizer.py IN OUT LOWERCASE ELECTRA   (flags: 1 or 0)
"""
import sys
import unicodedata


def is_whitespace(ch):  # clean_text maps these to ' '
    return ch in ' \t\n\r' or unicodedata.category(ch) == 'Zs'


def is_control(ch, electra):  # clean_text drops these
    if ch in '\t\n\r':
        return False
    cat = unicodedata.category(ch)
    return cat.startswith('C') if electra else cat in ('Cc', 'Cf')


def is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith('P')


CJK = [(0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
       (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)]


def words(text, lowercase, electra):
    text = ''.join(' ' if is_whitespace(c) else c for c in text
                   if ord(c) not in (0, 0xFFFD) and not is_control(c, electra))
    text = ''.join(' %s ' % c if any(a <= ord(c) <= b for a, b in CJK) else c for c in text)
    out = []
    for token in text.split():
        if lowercase:  # strip_accents: always with BERT, ELECTRA's default
            token = token.lower()
            token = ''.join(c for c in unicodedata.normalize('NFD', token)
                            if unicodedata.category(c) != 'Mn')
        word = ''
        for c in token:
            if is_punctuation(c):
                out += [word, c] if word else [c]
                word = ''
            else:
                word += c
        if word:
            out.append(word)
    return out


def main():
    inp, outp, lowercase, electra = sys.argv[1], sys.argv[2], sys.argv[3] == '1', sys.argv[4] == '1'
    lines = open(inp, 'rb').read().decode('utf-8', 'ignore').split('\n')
    lines.pop()
    with open(outp, 'w') as f:
        for line in lines:
            f.write(' '.join('.'.join('%x' % ord(c) for c in w)
                             for w in words(line, lowercase, electra)) + '\n')


if __name__ == '__main__':
    main()
