#!/usr/bin/python3
"""Converts a SentencePiece .model to a HF tokenizer.json laid out as transformers'
convert_slow_tokenizer.py does (commit 00111b31): SpmConverter for Unigram (Precompiled charsmap,
Strip right, Replace " {2,}" -> "▁", Metaspace), LlamaConverter's legacy layout for BPE (Prepend
"▁" if add_dummy_prefix, Replace " " -> "▁", no pre-tokenizer, BPE with merges extracted from the
vocabulary as SentencePieceExtractor does). Control and unknown pieces become special added
tokens (normalized: false).

  to_tokenizer_json.py IN.model OUT.tokenizer.json
"""

import base64
import json
import sys

from sentencepiece import sentencepiece_model_pb2

META = "\u2581"


def main(src, dst):
    proto = sentencepiece_model_pb2.ModelProto()
    with open(src, "rb") as f:
        proto.ParseFromString(f.read())
    pieces = [(p.piece, p.score, p.type) for p in proto.pieces]
    unk_id = proto.trainer_spec.unk_id
    byte_fallback = proto.trainer_spec.byte_fallback
    dummy = proto.normalizer_spec.add_dummy_prefix
    added = [{"id": i, "content": p, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True}
             for i, (p, _, t) in enumerate(pieces) if t in (2, 3)]  # UNKNOWN, CONTROL
    if proto.trainer_spec.model_type == 1:  # UNIGRAM
        charsmap = proto.normalizer_spec.precompiled_charsmap
        steps = [{"type": "Strip", "strip_left": False, "strip_right": True},
                 {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": META}]
        if charsmap:
            steps.insert(0, {"type": "Precompiled",
                             "precompiled_charsmap": base64.b64encode(charsmap).decode()})
        normalizer = {"type": "Sequence", "normalizers": steps}
        pre_tokenizer = {"type": "Metaspace", "replacement": META,
                         "prepend_scheme": "always" if dummy else "never", "split": True}
        model = {"type": "Unigram", "unk_id": unk_id,
                 "vocab": [[p, s] for p, s, _ in pieces], "byte_fallback": byte_fallback}
    elif proto.trainer_spec.model_type == 2:  # BPE
        vocab = {p: i for i, (p, _, _) in enumerate(pieces)}
        merges = []
        for piece, score, _ in pieces:
            local = []
            for k in range(1, len(piece)):
                left, right = piece[:k], piece[k:]
                if left in vocab and right in vocab:
                    local.append((left, right, score))
            local.sort(key=lambda m: (vocab[m[0]], vocab[m[1]]))
            merges.extend(local)
        merges.sort(key=lambda m: m[2], reverse=True)
        steps = ([{"type": "Prepend", "prepend": META}] if dummy else []) + [
            {"type": "Replace", "pattern": {"String": " "}, "content": META}]
        normalizer = {"type": "Sequence", "normalizers": steps}
        pre_tokenizer = None
        model = {"type": "BPE", "dropout": None, "unk_token": pieces[unk_id][0],
                 "continuing_subword_prefix": None, "end_of_word_suffix": None, "fuse_unk": True,
                 "byte_fallback": byte_fallback, "ignore_merges": False, "vocab": vocab,
                 "merges": [[a, b] for a, b, _ in merges]}
    else:
        sys.exit("%s: model type %d is neither Unigram nor BPE" % (src, proto.trainer_spec.model_type))
    out = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
           "normalizer": normalizer, "pre_tokenizer": pre_tokenizer, "post_processor": None,
           "decoder": None, "model": model}
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
