#include "tokenmill/tokenizer/models/wordpiece.h"

#include <fstream>
#include <iterator>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace tokenmill {
namespace {

using V = std::vector<std::string>;

const std::string kVocabDir = TOKENMILL_SOURCE_DIR "/data/vocab/";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::unique_ptr<Tokenizer> FromVocab(std::string_view vocab, TokenizerOptions options = {}) {
  auto t = LoadWordPieceVocab(options, vocab, "test-vocab.txt");
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? std::move(t).value() : nullptr;
}

std::unique_ptr<Tokenizer> FromFile(const std::string& name, TokenizerOptions options = {}) {
  const std::string path = kVocabDir + name;
  const std::string data = ReadFile(path);
  auto t = name.ends_with(".json") ? LoadWordPieceTokenizerJson(options, data, path)
                                   : LoadWordPieceVocab(options, data, path);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? std::move(t).value() : nullptr;
}

V Tokens(const Tokenizer& t, std::string_view text) {
  std::vector<uint32_t> ids;
  t.Encode(text, &ids);
  V out;
  for (uint32_t id : ids) out.emplace_back(t.IdToToken(id));
  return out;
}

// A small vocabulary: specials at 0-4, then pieces.
constexpr std::string_view kSmallVocab =
    "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nun\n##aff\n##able\nrun\n##ning\n,\n.\n[\n]\nsep\n"
    "a\n##a\naa\n##aa\nx\n";

TEST(WordPieceTest, GreedyLongestMatchFirst) {
  auto t = FromVocab(kSmallVocab);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(Tokens(*t, "unaffable, running."),
            (V{"un", "##aff", "##able", ",", "run", "##ning", "."}));
  // A word with a piece missing is one [UNK], not partial pieces.
  EXPECT_EQ(Tokens(*t, "unaffablez run"), (V{"[UNK]", "run"}));
  EXPECT_EQ(Tokens(*t, "aaaaa"), (V{"aa", "##aa", "##a"}));
  EXPECT_EQ(Tokens(*t, ""), V{});
}

TEST(WordPieceTest, MaxInputCharsPerWordDefaultsPerMode) {
  auto hf = FromVocab(kSmallVocab);
  ASSERT_NE(hf, nullptr);
  EXPECT_EQ(Tokens(*hf, std::string(100, 'a')).size(), 50u);  // 100 chars: word-pieced
  EXPECT_EQ(Tokens(*hf, std::string(101, 'a')), V{"[UNK]"});
  TokenizerOptions google;
  google.compat = CompatMode::kGoogleBert;
  auto g = FromVocab(kSmallVocab, google);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(Tokens(*g, std::string(200, 'a')).size(), 100u);  // 200 chars: word-pieced
  EXPECT_EQ(Tokens(*g, std::string(201, 'a')), V{"[UNK]"});
  TokenizerOptions small;
  small.max_input_chars_per_word = 3;
  auto s = FromVocab(kSmallVocab, small);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(Tokens(*s, "aaa aaaa"), (V{"aa", "##a", "[UNK]"}));
  // Characters are counted after normalization (é is one character, two bytes).
  EXPECT_EQ(Tokens(*s, "ááá"), (V{"aa", "##a"}));
  small.max_input_chars_per_word = 0;
  EXPECT_FALSE(LoadWordPieceVocab(small, kSmallVocab, "v.txt").ok());
}

TEST(WordPieceTest, EncodeInPiecesGivesTheIdsOfEncode) {
  auto t = FromFile("bert-base-uncased/vocab.txt");
  ASSERT_NE(t, nullptr);
  std::string text;
  std::mt19937 rng(3);
  const std::vector<std::string> parts = {"word",     " ",        "  ",  "\t",           "\xCE\xA3",
                                          "\xCF\x82", "\xCC\x81", "e",   "\xE4\xB8\xAD", ",",
                                          "[MASK]",   "\xFF",     "ab.", " \xCC\x81",    "X"};
  while (text.size() < 200000) text += parts[rng() % parts.size()];
  std::vector<uint32_t> whole;
  t->Encode(text, &whole);
  for (const size_t piece : {size_t{1}, size_t{7}, size_t{1000}, size_t{65536}}) {
    std::vector<uint32_t> joined;
    size_t calls = 0;
    t->EncodeInPieces(text, piece, [&](std::span<const uint32_t> ids) {
      joined.insert(joined.end(), ids.begin(), ids.end());
      ++calls;
    });
    EXPECT_EQ(joined, whole) << "piece " << piece;
    EXPECT_GT(calls, 2u);
  }
}

TEST(WordPieceTest, HugeWordsAreOneUnknownToken) {
  // The pre-tokenizer keeps only the first bytes of a word this long (max_word_bytes).
  auto t = FromVocab(kSmallVocab);
  ASSERT_NE(t, nullptr);
  const std::string huge(10000000, 'a');
  EXPECT_EQ(Tokens(*t, "run " + huge + " run"), (V{"run", "[UNK]", "run"}));
  EXPECT_EQ(Tokens(*t, huge + "\xC3\xA1" + huge + ",x"), (V{"[UNK]", ",", "x"}));
  EXPECT_EQ(Tokens(*t, std::string(404, 'a')), V{"[UNK]"});
  EXPECT_EQ(Tokens(*t, std::string(49, 'a') + "\xC3\xA1" + std::string(50, 'a')).size(), 50u);
}

TEST(WordPieceTest, SpecialTokensAreTextByDefault) {
  auto t = FromVocab(kSmallVocab);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(Tokens(*t, "[SEP]"), (V{"[", "sep", "]"}));
  TokenizerOptions literal;
  literal.split_special_tokens = false;
  auto l = FromVocab(kSmallVocab, literal);
  ASSERT_NE(l, nullptr);
  // Matched in the raw text before normalization, even when glued to other text.
  EXPECT_EQ(Tokens(*l, "[SEP]"), V{"[SEP]"});
  EXPECT_EQ(Tokens(*l, "run[SEP]run [CLS][MASK]x"),
            (V{"run", "[SEP]", "run", "[CLS]", "[MASK]", "x"}));
  // Case matters: "[sep]" is text.
  EXPECT_EQ(Tokens(*l, "[sep]"), (V{"[", "sep", "]"}));
  EXPECT_EQ(Tokens(*l, "[SEP"), (V{"[", "sep"}));
}

TEST(WordPieceTest, SpecialTokensStruct) {
  auto t = FromVocab(kSmallVocab);
  ASSERT_NE(t, nullptr);
  const SpecialTokens& s = t->specials();
  EXPECT_EQ(s.pad, 0u);
  EXPECT_EQ(s.unk, 1u);
  EXPECT_EQ(s.cls, 2u);
  EXPECT_EQ(s.sep, 3u);
  EXPECT_EQ(s.mask, 4u);
  EXPECT_FALSE(s.eod.has_value());
  EXPECT_EQ(s.all.size(), 5u);
  EXPECT_EQ(t->vocab_size(), 20u);
  EXPECT_EQ(t->kind(), TokenizerKind::kWordPiece);
  EXPECT_EQ(t->TokenToId("##able"), 7u);
  EXPECT_FALSE(t->TokenToId("able").has_value());
  EXPECT_EQ(t->IdToToken(19), "x");
  EXPECT_EQ(t->IdToToken(20), "");
}

TEST(WordPieceTest, MissingRequiredTokensIsAnErrorNamingTheFile) {
  for (const char* missing : {"[UNK]", "[CLS]", "[SEP]"}) {
    std::string vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nrun\n";
    vocab.erase(vocab.find(missing), std::string_view(missing).size() + 1);
    auto t = LoadWordPieceVocab({}, vocab, "my/vocab.txt");
    ASSERT_FALSE(t.ok()) << missing;
    EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(t.status().message().find("my/vocab.txt"), std::string::npos);
    EXPECT_NE(t.status().message().find(missing), std::string::npos) << t.status().message();
  }
  EXPECT_FALSE(LoadWordPieceVocab({}, "", "empty.txt").ok());
}

TEST(WordPieceTest, VocabLinesSplitOnNewlineOnly) {
  // U+2028 and U+0085 are line breaks for some splitters, not here; CRLF endings are fine.
  const std::string_view vocab = "[UNK]\r\n[CLS]\n[SEP]\n\u2028\n##\u2028\nrun\u0085x\nrun\n";
  auto t = FromVocab(vocab);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->vocab_size(), 7u);
  EXPECT_EQ(t->IdToToken(0), "[UNK]");
  // Trailing whitespace is trimmed, as HF does (Rust trim_end), so U+2028 too.
  EXPECT_EQ(t->IdToToken(3), "");
  EXPECT_EQ(t->IdToToken(4), "##");
  EXPECT_EQ(t->IdToToken(5), "run\u0085x");
  EXPECT_EQ(t->TokenToId("run"), 6u);
  EXPECT_EQ(Tokens(*t, "run"), V{"run"});
  // Google strips both ends (Python str.strip()).
  TokenizerOptions google;
  google.compat = CompatMode::kGoogleBert;
  auto g = FromVocab("[UNK]\n[CLS]\n[SEP]\n \u3000run\u00A0\n", google);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->IdToToken(3), "run");
  auto h = FromVocab("[UNK]\n[CLS]\n[SEP]\n \u3000run\u00A0\n");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->IdToToken(3), " \u3000run");
  // The real Chinese vocabulary: ids 343 and 13502 hold U+2028; later ids do not shift.
  auto zh = FromFile("bert-base-chinese/vocab.txt");
  ASSERT_NE(zh, nullptr);
  EXPECT_EQ(zh->vocab_size(), 21128u);
  EXPECT_EQ(zh->IdToToken(343), "");
  EXPECT_EQ(zh->IdToToken(344), "\u2030");
  EXPECT_EQ(zh->IdToToken(13502), "##");
  EXPECT_EQ(zh->TokenToId("[UNK]"), 100u);
  EXPECT_EQ(zh->TokenToId("中"), 704u);
  EXPECT_EQ(zh->TokenToId("##"), 13502u);
}

TEST(WordPieceTest, KeysOfOtherKindsAreErrors) {
  TokenizerOptions o;
  o.encoding = "cl100k_base";
  auto t = LoadWordPieceVocab(o, kSmallVocab, "vocab.txt");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("encoding"), std::string::npos) << t.status().message();
  o = {};
  o.merges = "vocab.bpe";
  EXPECT_FALSE(LoadWordPieceVocab(o, kSmallVocab, "vocab.txt").ok());
}

TEST(WordPieceTest, InvalidUtf8InVocabIsAnError) {
  auto t = LoadWordPieceVocab({}, "[UNK]\n[CLS]\n[SEP]\nab\xFF\n", "bad.txt");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("bad.txt:4"), std::string::npos) << t.status().message();
}

TEST(WordPieceTest, RealVocabularies) {
  auto t = FromFile("bert-base-uncased/vocab.txt");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(Tokens(*t, "Hello, World! unaffable tokenization"),
            (V{"hello", ",", "world", "!", "una", "##ffa", "##ble", "token", "##ization"}));
  std::vector<uint32_t> ids;
  t->Encode("Hello, World!", &ids);
  EXPECT_EQ(ids, (std::vector<uint32_t>{7592, 1010, 2088, 999}));
  EXPECT_EQ(t->Decode(ids), "hello , world !");
  ids.clear();
  t->Encode("tokenization", &ids);
  EXPECT_EQ(t->Decode(ids), "tokenization");
  EXPECT_EQ(t->specials().cls, 101u);
  EXPECT_EQ(t->specials().sep, 102u);
}

TEST(WordPieceTest, TokenizerJsonSettingsAreDefaultsOptionsWin) {
  // bert-base-chinese/tokenizer.json says lowercase = false.
  auto cased = FromFile("bert-base-chinese/tokenizer.json");
  ASSERT_NE(cased, nullptr);
  EXPECT_EQ(Tokens(*cased, "Hello"), V{"[UNK]"});
  TokenizerOptions lower;
  lower.lowercase = true;
  auto lowered = FromFile("bert-base-chinese/tokenizer.json", lower);
  ASSERT_NE(lowered, nullptr);
  EXPECT_EQ(Tokens(*lowered, "Hello"), (V{"hello"}));
  auto* wp = dynamic_cast<const WordPieceTokenizer*>(lowered.get());
  ASSERT_NE(wp, nullptr);
  EXPECT_TRUE(wp->config().normalizer.strip_accents);  // null in the file: follows lowercase
  EXPECT_EQ(wp->config().max_input_chars_per_word, 100);
  // The added tokens of the file are the special tokens.
  EXPECT_EQ(lowered->specials().all.size(), 5u);
  EXPECT_EQ(Tokens(*lowered, "[SEP]"), (V{"[", "sep", "]"}));
  TokenizerOptions literal;
  literal.split_special_tokens = false;
  auto l = FromFile("bert-base-chinese/tokenizer.json", literal);
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(Tokens(*l, "中[SEP]文"), (V{"中", "[SEP]", "文"}));
}

TEST(WordPieceTest, ElectraStripsAccentsOnlyWhenLowercasing) {
  TokenizerOptions o;
  o.compat = CompatMode::kGoogleElectra;
  o.lowercase = false;
  o.strip_accents = true;
  auto t = FromFile("bert-base-uncased/vocab.txt", o);
  ASSERT_NE(t, nullptr);
  auto* wp = dynamic_cast<const WordPieceTokenizer*>(t.get());
  EXPECT_FALSE(wp->config().normalizer.strip_accents);
  o.lowercase = true;
  o.strip_accents = false;
  auto u = FromFile("bert-base-uncased/vocab.txt", o);
  ASSERT_NE(u, nullptr);
  EXPECT_FALSE(dynamic_cast<const WordPieceTokenizer*>(u.get())->config().normalizer.strip_accents);
  // HF: independent switches.
  TokenizerOptions hf;
  hf.lowercase = false;
  hf.strip_accents = true;
  auto h = FromFile("bert-base-uncased/vocab.txt", hf);
  ASSERT_NE(h, nullptr);
  EXPECT_TRUE(dynamic_cast<const WordPieceTokenizer*>(h.get())->config().normalizer.strip_accents);
  EXPECT_EQ(Tokens(*h, "café"), (V{"cafe"}));
}

TEST(WordPieceTest, PrivateUseAndUnassignedPerMode) {
  const std::string text = "a\uE031b x\u0378y";
  auto hf = FromFile("bert-base-uncased/vocab.txt");
  ASSERT_NE(hf, nullptr);
  EXPECT_EQ(Tokens(*hf, text), (V{"ab", "[UNK]"}));
  TokenizerOptions o;
  o.compat = CompatMode::kGoogleBert;
  auto bert = FromFile("bert-base-uncased/vocab.txt", o);
  ASSERT_NE(bert, nullptr);
  EXPECT_EQ(Tokens(*bert, text), (V{"[UNK]", "[UNK]"}));
  o.compat = CompatMode::kGoogleElectra;
  auto electra = FromFile("bert-base-uncased/vocab.txt", o);
  ASSERT_NE(electra, nullptr);
  EXPECT_EQ(Tokens(*electra, text), (V{"ab", "x", "##y"}));
}

TEST(WordPieceTest, TokenizerJsonErrors) {
  auto err = [](std::string_view json) {
    auto t = LoadWordPieceTokenizerJson({}, json, "t.json");
    EXPECT_FALSE(t.ok()) << json;
    if (!t.ok()) {
      EXPECT_NE(t.status().message().find("t.json"), std::string::npos);
    }
    return t.ok() ? std::string() : t.status().message();
  };
  const std::string model =
      R"("model":{"type":"WordPiece","vocab":{"[UNK]":0,"[CLS]":1,"[SEP]":2,"a":3}})";
  const std::string pre = R"("pre_tokenizer":{"type":"BertPreTokenizer"})";
  err("not json");
  err("[1,2]");
  err(R"({"model":{"type":"BPE","vocab":{}}})");
  EXPECT_NE(err("{" + model + R"(,"normalizer":{"type":"NFC"},)" + pre + "}").find("NFC"),
            std::string::npos);
  err("{" + model + R"(,"pre_tokenizer":{"type":"Whitespace"}})");
  err(R"({"model":{"vocab":{"[UNK]":"zero"}},)" + pre + "}");
  err(R"({"model":{"vocab":{"[UNK]":-1}},)" + pre + "}");
  err(R"({"model":{"vocab":{"[CLS]":0,"[SEP]":1}},)" + pre + "}");  // no [UNK]
  err("{" + model + "," + pre + R"(,"normalizer":{"type":"BertNormalizer","lowercase":"yes"}})");
  // Normalized added tokens are not supported.
  err("{" + model + "," + pre +
      R"(,"added_tokens":[{"id":9,"content":"<x>","special":false,"normalized":true}]})");
  // A valid minimal file, without "type" (older files infer it), no normalizer.
  auto ok = LoadWordPieceTokenizerJson(
      {}, R"({"model":{"vocab":{"[UNK]":0,"[CLS]":1,"[SEP]":2,"A":3}},)" + pre + "}", "t.json");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(Tokens(**ok, "A a"), (V{"A", "[UNK]"}));  // no normalizer: no lowercasing
}

TEST(WordPieceTest, NonSpecialAddedTokensAreAlwaysMatched) {
  const std::string json =
      R"({"model":{"vocab":{"[UNK]":0,"[CLS]":1,"[SEP]":2,"a":3}},)"
      R"("pre_tokenizer":{"type":"BertPreTokenizer"},"normalizer":{"type":"BertNormalizer"},)"
      R"("added_tokens":[{"id":4,"content":"<NEW>","special":false,"normalized":false},)"
      R"({"id":1,"content":"[CLS]","special":true,"normalized":false}]})";
  auto t = LoadWordPieceTokenizerJson({}, json, "t.json");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ((*t)->vocab_size(), 5u);
  EXPECT_EQ(Tokens(**t, "a<NEW>a[CLS]"), (V{"a", "<NEW>", "a", "[UNK]", "[UNK]", "[UNK]"}));
  EXPECT_EQ((*t)->specials().all.count("[CLS]"), 1u);
  EXPECT_EQ((*t)->specials().all.count("<NEW>"), 0u);
}

TEST(WordPieceTest, InvalidUtf8TextNeverCrashes) {
  auto t = FromFile("bert-base-uncased/vocab.txt");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(Tokens(*t, "hel\xFFlo \xE2\x82"), V{"hello"});
  std::string all_bytes;
  for (int b = 0; b < 256; ++b) all_bytes.push_back(static_cast<char>(b));
  std::vector<uint32_t> ids;
  t->Encode(all_bytes, &ids);
  EXPECT_FALSE(ids.empty());
}

TEST(WordPieceTest, EncodeIsThreadSafe) {
  auto t = FromFile("bert-base-uncased/tokenizer.json");
  ASSERT_NE(t, nullptr);
  const std::string text =
      "The quick brown fox, naïve café, 中文 ΣΑΣ unaffable! " + std::string(150, 'q');
  std::vector<uint32_t> want;
  t->Encode(text, &want);
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      for (int k = 0; k < 200; ++k) {
        std::vector<uint32_t> ids;
        t->Encode(text, &ids);
        if (ids != want) return;
      }
      ok[i] = 1;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok, (std::vector<int>{1, 1, 1, 1}));
}

TEST(WordPieceTableTest, LaterDuplicateWins) {
  WordPieceTable t;
  t.Build({{"a", 1}, {"b", 2}, {"a", 3}, {"a-long-key-of-many-bytes", 4}, {"", 5}});
  EXPECT_EQ(t.Find("a"), 3u);
  EXPECT_EQ(t.Find("b"), 2u);
  EXPECT_EQ(t.Find("a-long-key-of-many-bytes"), 4u);
  EXPECT_EQ(t.Find("a-long-key-of-many-byte"), WordPieceTable::kNotFound);
  EXPECT_EQ(t.Find(""), 5u);
  EXPECT_EQ(t.Find("c"), WordPieceTable::kNotFound);
}

namespace {

// Keys that differ only past their 8th byte, only in length, or by NUL bytes where the table
// pads with zeros; each found with its id and each near miss not found. `extra` keys go in too.
void ExpectKeysFoundExactly(const std::vector<std::string>& extra) {
  std::vector<std::string> keys = {"",
                                   std::string("ab\0", 3),
                                   "ab",
                                   "abcdefgh",
                                   "abcdefghi",
                                   "abcdefghj",
                                   "abcdefg",
                                   std::string("abcdefg\0", 8),
                                   "abcdefghijklmnopq",
                                   "abcdefghijklmnopr",
                                   "##ab",
                                   "\xe4\xbd\xa0"};
  keys.insert(keys.end(), extra.begin(), extra.end());
  std::vector<std::pair<std::string_view, uint32_t>> entries;
  for (size_t i = 0; i < keys.size(); ++i) entries.emplace_back(keys[i], static_cast<uint32_t>(i));
  WordPieceTable t;
  t.Build(entries);
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(t.Find(keys[i]), i) << "key " << i << " of " << keys[i].size() << " bytes";
    // The same key one byte longer, or with its last byte changed, is not a key (none of the
    // keys above is one of those of another).
    const std::string longer = keys[i] + "~";
    EXPECT_EQ(t.Find(longer), WordPieceTable::kNotFound) << longer.size();
    if (!keys[i].empty()) {
      std::string changed = keys[i];
      changed.back() = '~';
      EXPECT_EQ(t.Find(changed), WordPieceTable::kNotFound) << changed.size();
    }
  }
  EXPECT_EQ(t.Find(std::string("ab\0\0", 4)), WordPieceTable::kNotFound);
  EXPECT_EQ(t.Find("abcdef"), WordPieceTable::kNotFound);
}

}  // namespace

TEST(WordPieceTableTest, KeysFoundExactlyWhateverTheirLengths) {
  ExpectKeysFoundExactly({std::string(127, 'p'), std::string(128, 'q'), std::string(254, 'r')});
  // A key of 256 bytes or more: sizes no longer fit the compact slots.
  ExpectKeysFoundExactly({std::string(254, 'x'), std::string(255, 'y'), std::string(300, 'z')});
  // More than 16 MiB of key bytes past the 8th (80,000 keys of 247 to 251 bytes): neither do
  // their offsets.
  std::vector<std::string> many;
  for (int i = 0; i < 80000; ++i) many.push_back(std::to_string(i) + std::string(246, 'k'));
  ExpectKeysFoundExactly(many);
}

TEST(WordPieceTrieTest, LongestPrefix) {
  WordPieceTrie t;
  t.Build({{"a", 1}, {"abc", 2}, {"abcde", 3}, {"b", 4}, {"abc", 5}, {"", 6}});
  uint32_t id = 0;
  EXPECT_EQ(t.LongestPrefix("abcd", &id), 3u);
  EXPECT_EQ(id, 5u);  // the later duplicate
  EXPECT_EQ(t.LongestPrefix("abcdef", &id), 5u);
  EXPECT_EQ(id, 3u);
  EXPECT_EQ(t.LongestPrefix("ab", &id), 1u);
  EXPECT_EQ(id, 1u);
  EXPECT_EQ(t.LongestPrefix("c", &id), 0u);
  EXPECT_EQ(t.LongestPrefix("", &id), 0u);
  // Every byte value, including 0 and 255.
  WordPieceTrie bytes;
  std::vector<std::string> keys;
  for (int b = 0; b < 256; ++b) keys.push_back(std::string(1, static_cast<char>(b)) + "z");
  std::vector<std::pair<std::string_view, uint32_t>> entries;
  for (size_t i = 0; i < keys.size(); ++i) entries.emplace_back(keys[i], static_cast<uint32_t>(i));
  bytes.Build(entries);
  for (int b = 0; b < 256; ++b) {
    ASSERT_EQ(bytes.LongestPrefix(keys[b] + "q", &id), 2u) << b;
    EXPECT_EQ(id, static_cast<uint32_t>(b));
  }
}

}  // namespace
}  // namespace tokenmill
