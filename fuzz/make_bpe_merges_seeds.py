#!/usr/bin/python3
"""Writes seed inputs for bpe_merges_fuzz into fuzz/corpus/bpe_merges_fuzz/, each named by its
SHA-1 as libFuzzer names corpus files: vocabularies grown as BPE training grows them from the
bytes of a few CJK characters, an emoji and two letters (tokens within a character, across the
cut between two, of several characters), under both rules, with 0 to 6 swapped priorities, and
pieces made of those characters and of the grown tokens side by side. The input layout is in
the header comment of bpe_merges_fuzz.cc.

  fuzz/make_bpe_merges_seeds.py
"""
import hashlib
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
ALPHABET = ["中", "文", "的", "人", "😀", "a", "b"]


def save(data):
    folder = os.path.join(HERE, "corpus", "bpe_merges_fuzz")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def random_text(rng, characters):
    return "".join(rng.choice(ALPHABET[:4] * 3 + ALPHABET[4:]) for _ in range(characters))


def seed(rng, rule, swaps):
    tokens = [bytes([b]) for b in range(256)]
    steps = []
    # Grow by merging two neighbours of a random text's bytes as tokens (greedy longest match),
    # as training merges frequent neighbours.
    for _ in range(rng.randrange(20, 120)):
        if len(steps) == 255:
            break
        text = random_text(rng, rng.randrange(2, 6)).encode()
        parts, pos = [], 0
        while pos < len(text):
            best = max((t for t in range(len(tokens)) if text.startswith(tokens[t], pos)),
                       key=lambda t: len(tokens[t]))
            parts.append(best)
            pos += len(tokens[best])
        if len(parts) < 2:
            continue
        k = rng.randrange(len(parts) - 1)
        joined = tokens[parts[k]] + tokens[parts[k + 1]]
        if len(joined) > 16 or joined in tokens:
            continue
        steps.append((parts[k], parts[k + 1]))
        tokens.append(joined)
    data = bytearray([rule, len(steps)])
    for a, b in steps:
        # (kind, a, b): bit 0 / bit 1 of kind say that a / b name a grown token (index - 256,
        # below the count grown before it, fewer than 256), else a byte.
        kind = (a >= 256) | (b >= 256) << 1
        data += bytes([kind, a % 256, b % 256])
    data.append(swaps)
    for _ in range(swaps):
        data += bytes([rng.randrange(256), rng.randrange(256)])
    grown = [t for t in tokens[256:] if len(t) >= 2]
    pieces = [random_text(rng, rng.randrange(2, 30)).encode() for _ in range(6)]
    for _ in range(6):
        if grown:
            pieces.append(b"".join(rng.choice(grown) for _ in range(rng.randrange(2, 8))))
    data += b"\n".join(pieces)
    return bytes(data)


def main():
    rng = random.Random(7)
    made = 0
    for rule in (0, 1, 2, 3):
        for swaps in (0, 0, 1, 2, 3, 6):
            save(seed(rng, rule, swaps))
            made += 1
    print("%d seeds" % made)


if __name__ == "__main__":
    main()
