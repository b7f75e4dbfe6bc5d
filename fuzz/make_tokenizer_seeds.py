#!/usr/bin/python3
"""Writes seed inputs for spm_model_fuzz and hf_tokenizer_json_fuzz into fuzz/corpus/: small
SentencePiece models and their tokenizer.json (given as arguments), truncations, byte flips and
structural edits, each named by its SHA-1 as libFuzzer names corpus files.

  fuzz/make_tokenizer_seeds.py A.model A.json [B.model B.json ...]
"""
import hashlib
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def save(target, data):
    folder = os.path.join(HERE, "corpus", target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def main(paths):
    rng = random.Random(11)
    models = [p for p in paths if p.endswith(".model")]
    jsons = [p for p in paths if p.endswith(".json")]
    for p in models:
        data = open(p, "rb").read()
        save("spm_model_fuzz", data)
        for cut in (0, 1, 7, 64, len(data) // 3, len(data) - 1):
            save("spm_model_fuzz", data[:cut])
        for _ in range(4):
            b = bytearray(data)
            for _ in range(8):
                b[rng.randrange(len(b))] = rng.randrange(256)
            save("spm_model_fuzz", bytes(b))
    save("spm_model_fuzz", b"\x0a\x05\x0a\x03<s>")  # one piece, no trainer_spec
    for p in jsons:
        text = open(p, "rb").read()
        for flag in (b"\x00", b"\x01"):
            save("hf_tokenizer_json_fuzz", flag + text)
        save("hf_tokenizer_json_fuzz", b"\x00" + text[: len(text) // 2])
        j = json.loads(text)
        edits = []
        e = json.loads(text)
        e["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
            {"type": "WhitespaceSplit"}, {"type": "Digits", "individual_digits": True},
            {"type": "Punctuation", "behavior": "Contiguous"},
            {"type": "Split", "pattern": {"Regex": "\\s+"}, "behavior": "MergedWithNext",
             "invert": True},
            {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first",
             "split": False}]}
        edits.append(e)
        e = json.loads(text)
        e["normalizer"] = {"type": "Sequence", "normalizers": [
            {"type": "NFKC"}, {"type": "Lowercase"}, {"type": "Nmt"}, {"type": "StripAccents"},
            {"type": "Strip", "strip_left": True, "strip_right": False},
            {"type": "Replace", "pattern": {"Regex": "[0-9]+"}, "content": "#"}]}
        e["added_tokens"].append({"id": 5, "content": "hi", "single_word": True, "lstrip": True,
                                  "rstrip": True, "normalized": True, "special": False})
        edits.append(e)
        e = json.loads(text)
        e["normalizer"] = {"type": "Frobnicate"}
        edits.append(e)
        e = json.loads(text)
        e["model"].pop("vocab", None)
        edits.append(e)
        for e in edits:
            save("hf_tokenizer_json_fuzz", b"\x00" + json.dumps(e).encode())
        del j
    wl = {"model": {"type": "WordLevel", "unk_token": "[UNK]",
                    "vocab": {"[UNK]": 0, "hello": 1, "world": 2}},
          "pre_tokenizer": {"type": "Whitespace"}, "normalizer": None, "added_tokens": []}
    save("hf_tokenizer_json_fuzz", b"\x00" + json.dumps(wl).encode())
    wl["pre_tokenizer"] = {"type": "CharDelimiterSplit", "delimiter": "o"}
    save("hf_tokenizer_json_fuzz", b"\x01" + json.dumps(wl).encode())


if __name__ == "__main__":
    main(sys.argv[1:])
