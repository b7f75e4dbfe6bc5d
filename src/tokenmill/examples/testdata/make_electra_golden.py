#!/usr/bin/env python3
"""Regenerates the ELECTRA golden files in this folder.

  make_electra_golden.py corpus
      writes electra_golden_input.txt, a synthetic corpus (seeded, so always the same bytes).
  make_electra_golden.py examples BUILD_PRETRAINING_DATASET_PY
      runs the ExampleBuilder class of google-research/electra build_pretraining_dataset.py
      (give the path of that file; it is imported unmodified, with stubs for TensorFlow and
      ELECTRA's tokenizer) over electra_golden_input.txt and writes electra_golden_m*_s*_t*.txt.

The builder's random.random / random.randint are bound to Rng below, a port of tokenmill's
base/rng (SplitMix64-seeded xoshiro256**), so that the C++ builder must reproduce every example
and every draw. Tokens: the word "tN" (5 <= N < 1000) is id N, any other word [UNK] (1); words are
separated by ' ' and '\\t' (the C++ test's WordTokenizerForTest).

Golden file format: a header line
  # max_seq_length=M seed=S task=T examples=E random_calls=R randint_calls=I
then one line per example: its unpadded input_ids, a tab, and the length of [CLS] A [SEP].
"""
import importlib.util
import random as pyrandom
import re
import sys
import types

M64 = (1 << 64) - 1


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & M64
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return x, z ^ (z >> 31)


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M64


class Rng:
    """tokenmill::Rng(seed, stream): Uniform01() as random(), RandInt(a, b) as randint()."""

    def __init__(self, seed, stream):
        _, v = splitmix64(seed)
        mixed = v ^ ((stream * 0xD1342543DE82EF95 + 0x2545F4914F6CDD1D) & M64)
        self.s = []
        for _ in range(4):
            mixed, w = splitmix64(mixed)
            self.s.append(w)
        self.random_calls = 0
        self.randint_calls = 0

    def next(self):
        s = self.s
        result = (rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result

    def random(self):
        self.random_calls += 1
        return (self.next() >> 11) * 2.0**-53

    def randint(self, lo, hi):
        self.randint_calls += 1
        span = (hi - lo + 1) & M64
        m = self.next() * span
        if (m & M64) < span:
            threshold = ((1 << 64) - span) % span
            while (m & M64) < threshold:
                m = self.next() * span
        return lo + (m >> 64)


WHITESPACE = [" ", "\t", "\u3000", "\u00a0", "\u2002", "\u2028", "\u205f", "\x0b", "\x0c", "\r",
              "\x1c", "\x85"]


def make_corpus(path):
    r = pyrandom.Random(20240607)
    out = []
    for _ in range(260):
        for _ in range(r.choice([1, 1, 2, 3, 4, 5, 6, 8, 12])):
            kind = r.random()
            if kind < 0.04:  # a whitespace-only line
                out.append("".join(r.choice(WHITESPACE) for _ in range(r.randint(1, 3))))
                continue
            if kind < 0.10:  # a long line
                n = r.randint(30, 90)
            else:
                n = r.choice([0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20])
            words = []
            for _ in range(n):
                if r.random() < 0.05:
                    words.append("w%d" % r.randint(0, 99))
                else:
                    words.append("t%d" % r.randint(5, 999))
            line = (" " if r.random() < 0.8 else "\t").join(words)
            if r.random() < 0.3:
                line = "".join(r.choice(WHITESPACE) for _ in range(r.randint(1, 2))) + line
            if r.random() < 0.3:
                line = line + "".join(r.choice(WHITESPACE) for _ in range(r.randint(1, 2)))
            if r.random() < 0.05:
                line = line + " \u200b"  # ZERO WIDTH SPACE: not whitespace; an unknown word
            out.append(line)
        if r.random() < 0.1:
            out.append("")  # a run of two blank lines
        out.append("")
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("\n".join(out) + "\n")


class WordTokenizer:
    def __init__(self):
        self.vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4}

    def tokenize(self, line):
        return [w for w in re.split("[ \t]", line) if w]

    def convert_tokens_to_ids(self, tokens):
        ids = []
        for t in tokens:
            m = re.fullmatch(r"t([0-9]{1,7})", t)
            if t in self.vocab:
                ids.append(self.vocab[t])
            elif m and 5 <= int(m.group(1)) < 1000:
                ids.append(int(m.group(1)))
            else:
                ids.append(1)
        return ids


def load_electra(path):
    # Stubs for the imports of build_pretraining_dataset.py; only ExampleBuilder is used.
    tf = types.ModuleType("tensorflow")
    tf.compat = types.ModuleType("tensorflow.compat")
    tf.compat.v1 = types.ModuleType("tensorflow.compat.v1")
    model = types.ModuleType("model")
    model.tokenization = types.ModuleType("model.tokenization")
    util = types.ModuleType("util")
    util.utils = types.ModuleType("util.utils")
    sys.modules.update({"tensorflow": tf, "tensorflow.compat": tf.compat,
                        "tensorflow.compat.v1": tf.compat.v1, "model": model,
                        "model.tokenization": model.tokenization, "util": util,
                        "util.utils": util.utils})
    spec = importlib.util.spec_from_file_location("build_pretraining_dataset", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_examples(electra_py):
    electra = load_electra(electra_py)

    class Builder(electra.ExampleBuilder):
        def _make_tf_example(self, first_segment, second_segment):
            # The original method, with tf.train.Example replaced by a dict of plain lists.
            electra.create_int_feature = list
            electra.tf.train = types.SimpleNamespace(Example=lambda features: features,
                                                     Features=lambda feature: feature)
            return super()._make_tf_example(first_segment, second_segment)

    text = open("electra_golden_input.txt", encoding="utf-8", newline="").read()
    lines = text.split("\n")[:-1]  # the file ends with '\n'
    for max_len, seed, task in [(32, 7, 3), (8, 12345, 0), (128, 99, 41)]:
        rng = Rng(seed, task)
        electra.random = rng
        builder = Builder(WordTokenizer(), max_len)
        examples = []
        # ExampleWriter.write_examples with blanks_separate_docs=True.
        for line in lines:
            example = builder.add_line(line.strip())
            if example:
                examples.append(example)
        example = builder.add_line("")
        if example:
            examples.append(example)
        name = "electra_golden_m%d_s%d_t%d.txt" % (max_len, seed, task)
        with open(name, "w") as f:
            f.write("# max_seq_length=%d seed=%d task=%d examples=%d random_calls=%d "
                    "randint_calls=%d\n" % (max_len, seed, task, len(examples), rng.random_calls,
                                            rng.randint_calls))
            for e in examples:
                ids, mask, segments = e["input_ids"], e["input_mask"], e["segment_ids"]
                assert len(ids) == len(mask) == len(segments) == max_len
                real = sum(mask)
                f.write(" ".join(map(str, ids[:real])) + "\t" + str(real - sum(segments)) + "\n")


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "corpus":
        make_corpus("electra_golden_input.txt")
    elif len(sys.argv) == 3 and sys.argv[1] == "examples":
        make_examples(sys.argv[2])
    else:
        sys.exit(__doc__)
