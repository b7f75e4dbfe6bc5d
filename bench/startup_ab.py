#!/usr/bin/env python3
"""Fixed costs of two tokenmill binaries, run in turns: CPU of `--version`, wall and CPU of the
whole `run` of a one-line ELECTRA job, CPU of `tokenize --ids` of one line (bert-base-uncased
tokenizer.json, cl100k_base). Medians over PAIRS pairs.

    /usr/bin/python3 bench/startup_ab.py OLD_BINARY NEW_BINARY [--pairs 15]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VOCAB = os.path.join(REPO, "data", "vocab")


def timed(argv):
    """(wall seconds, CPU seconds of the process and its children)."""
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    if status != 0:
        raise SystemExit("failed: %s" % " ".join(argv))
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--pairs", type=int, default=15)
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="tokenmill-startup-")
    try:
        line = os.path.join(tmp, "one.txt")
        with open(line, "w") as f:
            f.write("hello world 你好\n")
        job = os.path.join(tmp, "job.toml")
        out = os.path.join(tmp, "out")
        with open(job, "w") as f:
            f.write('[input]\npaths = ["%s"]\n[tokenizer]\npath = "%s"\nlowercase = true\n'
                    '[examples]\nkind = "electra"\n[output]\nformat = "tfrecord"\npath = "%s"\n' %
                    (line, os.path.join(VOCAB, "bert-base-uncased", "vocab.txt"), out))

        def tokenize(tokenizer):
            return lambda b: [b, "tokenize", "--tokenizer", tokenizer, "--ids", line]

        def run(b):
            shutil.rmtree(out, ignore_errors=True)
            return [b, "run", job, "--workers", "1", "--quiet"]

        # (command of a binary, its rows: (name, which of timed()'s figures)); the one-line run
        # gives both of its rows from one run.
        commands = [
            (lambda b: [b, "--version"], [("--version, CPU s", 1)]),
            (run, [("one-line run, wall s", 0), ("one-line run, CPU s", 1)]),
            (tokenize(os.path.join(VOCAB, "bert-base-uncased", "tokenizer.json")),
             [("tokenize one line bert-base-uncased tokenizer.json, CPU s", 1)]),
            (tokenize(os.path.join(VOCAB, "tiktoken", "cl100k_base.tiktoken")),
             [("tokenize one line cl100k_base, CPU s", 1)]),
        ]
        rows = [row for _, figures in commands for row, _ in figures]
        results = {(row, b): [] for row in rows for b in (args.old, args.new)}
        for _ in range(args.pairs):
            for b in (args.old, args.new):
                for command, figures in commands:
                    measured = timed(command(b))
                    for row, k in figures:
                        results[(row, b)].append(measured[k])
        print("| measure (median of %d pairs) | old | new |" % args.pairs)
        print("|---|---|---|")
        for row in rows:
            old = statistics.median(results[(row, args.old)])
            new = statistics.median(results[(row, args.new)])
            print("| %s | %.4f | %.4f |" % (row, old, new))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
