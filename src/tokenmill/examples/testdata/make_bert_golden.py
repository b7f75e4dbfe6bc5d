#!/usr/bin/env python3
"""Regenerates the BERT golden files in this folder.

  make_bert_golden.py corpus
      writes bert_golden_input.txt, a synthetic corpus (seeded, so always the same bytes).
  make_bert_golden.py examples CREATE_PRETRAINING_DATA_PY
      runs create_training_instances of google-research/bert create_pretraining_data.py (give the
      path of that file, e.g. data/google-bert/create_pretraining_data.py; it is imported
      unmodified, with tests/e2e/tfstub standing in for TensorFlow) over bert_golden_input.txt with
      random.Random(seed), and writes bert_golden_*.txt.

Tokenizer (the C++ test's VocabTokenizerForTest): words are separated by spaces; the vocabulary is
[PAD] [UNK] [CLS] [SEP] [MASK], w5 .. w199, ##p200 .. ##p299 (id = line number); a word that is
not in it is [UNK].

Golden file format: a header line
  # max_seq_length=M max_predictions=P masked_lm_prob=F short_seq_prob=F dupe_factor=D seed=S
  #   whole_word=0|1 examples=E
then one line per instance (in output order): the unpadded input_ids, then ' | ' and the
segment_ids, the masked_lm_positions, the masked_lm_ids, the next sentence label.
"""
import collections
import importlib.util
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
STUB = os.path.join(HERE, "..", "..", "..", "..", "tests", "e2e", "tfstub")
VOCAB = (["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + ["w%d" % i for i in range(5, 200)] +
         ["##p%d" % i for i in range(200, 300)])
CONFIGS = [
    # (max_seq_length, max_predictions, masked_lm_prob, short_seq_prob, dupe, seed, whole_word)
    (32, 5, 0.15, 0.1, 2, 12345, False),
    (16, 3, 0.2, 0.3, 3, 7, True),
    (64, 10, 0.15, 0.1, 1, 99, True),
]


class Tokenizer(object):
    def __init__(self):
        self.vocab = collections.OrderedDict((t, i) for i, t in enumerate(VOCAB))

    def tokenize(self, text):
        return [t if t in self.vocab else "[UNK]" for t in text.split()]

    def convert_tokens_to_ids(self, tokens):
        return [self.vocab[t] for t in tokens]


def corpus():
    rng = random.Random(2024)
    lines = []
    for _ in range(60):
        for _ in range(rng.choice([1, 1, 2, 3, 5, 8, 13])):
            words = []
            for _ in range(rng.randint(1, 14)):
                words.append("w%d" % rng.randint(5, 199))
                while rng.random() < 0.3:
                    words.append("##p%d" % rng.randint(200, 299))
            if rng.random() < 0.02:
                words.insert(0, "##p250")  # a piece at the start of a sentence
            if rng.random() < 0.02:
                words.append("oov")
            lines.append(" ".join(words))
        lines.append("")
        if rng.random() < 0.05:
            lines.append("   ")  # a whitespace-only line: another document break
    with open(os.path.join(HERE, "bert_golden_input.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def name(cfg):
    m, p, mlm, short, dupe, seed, wwm = cfg
    return "bert_golden_m%d_p%d_d%d_s%d%s.txt" % (m, p, dupe, seed, "_wwm" if wwm else "")


def examples(script):
    sys.path.insert(0, os.path.abspath(STUB))
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    spec = importlib.util.spec_from_file_location("create_pretraining_data", script)
    cpd = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cpd)
    tok = Tokenizer()
    for cfg in CONFIGS:
        m, p, mlm, short, dupe, seed, wwm = cfg
        cpd.FLAGS.do_whole_word_mask = wwm
        instances = cpd.create_training_instances(
            [os.path.join(HERE, "bert_golden_input.txt")], tok, m, dupe, short, mlm, p,
            random.Random(seed))
        with open(os.path.join(HERE, name(cfg)), "w") as f:
            f.write("# max_seq_length=%d max_predictions=%d masked_lm_prob=%r short_seq_prob=%r "
                    "dupe_factor=%d seed=%d whole_word=%d examples=%d\n" %
                    (m, p, mlm, short, dupe, seed, int(wwm), len(instances)))
            for inst in instances:
                cols = [tok.convert_tokens_to_ids(inst.tokens), inst.segment_ids,
                        inst.masked_lm_positions, tok.convert_tokens_to_ids(inst.masked_lm_labels),
                        [1 if inst.is_random_next else 0]]
                f.write(" | ".join(" ".join(str(v) for v in c) for c in cols) + "\n")


if __name__ == "__main__":
    if sys.argv[1:2] == ["corpus"]:
        corpus()
    elif sys.argv[1:2] == ["examples"] and len(sys.argv) == 3:
        examples(sys.argv[2])
    else:
        sys.exit(__doc__)
