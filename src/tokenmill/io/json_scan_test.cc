// The in-place scan of huge JSON records against simdjson: the same records accepted, the same
// text, the same errors (but for the wording of malformed JSON).

#include "tokenmill/io/json_scan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tokenmill/io/json_record.h"

namespace tokenmill {
namespace {

using ::testing::HasSubstr;

struct Outcome {
  Status status;
  std::string text;
  uint64_t replaced = 0;
};

Outcome ParseWith(std::string record, const std::string& field, bool in_place,
                  bool strict = false) {
  ReaderOptions options;
  options.text_field = field;
  options.strict_utf8 = strict;
  auto parser = JsonRecordParser::Create(options);
  EXPECT_TRUE(parser.ok());
  if (in_place) parser->set_in_place_from_for_testing(0);
  ReaderStats stats;
  Outcome out;
  out.status = parser->ParseInPlace(&record, &stats);
  if (out.status.ok()) out.text = record;
  out.replaced = stats.invalid_utf8_bytes;
  return out;
}

// Both parsers agree on `record`; returns the in-place outcome.
Outcome ExpectSame(const std::string& record, const std::string& field = "text",
                   bool strict = false) {
  const Outcome dom = ParseWith(record, field, false, strict);
  const Outcome scan = ParseWith(record, field, true, strict);
  EXPECT_EQ(scan.status.code(), dom.status.code())
      << "record " << record << "\nsimdjson: " << dom.status.ToString()
      << "\nscan: " << scan.status.ToString();
  if (dom.status.ok() && scan.status.ok()) {
    EXPECT_EQ(scan.text, dom.text) << "record " << record;
    EXPECT_EQ(scan.replaced, dom.replaced) << "record " << record;
  } else if (!dom.status.ok() && !scan.status.ok() &&
             dom.status.message().find("malformed JSON") == std::string::npos) {
    EXPECT_EQ(scan.status.message(), dom.status.message()) << "record " << record;
  }
  return scan;
}

TEST(JsonScanTest, AgreesWithSimdjsonOnChosenRecords) {
  const std::vector<std::string> records = {
      R"({"text": "hello"})",
      R"({"text":"a\"b\\c\/d\b\f\n\r\t e"})",
      R"({"text": "\u00e9\u4e2d\ud83d\ude00 \u0000 end"})",
      R"({"text": "lone \ud800 high, lone \udc00 low, \ud800\ud800 two"})",
      R"({"id": 1, "text": "second", "text": "duplicate"})",
      R"(  {"a": [1, 2.5, -3e+7, true, false, null, {"b": []}], "text": "x"}  )",
      R"({"te\u0078t": "escaped key"})",
      R"({"text": 5})",
      R"({"text": null})",
      R"({"text": ["a"]})",
      R"({"text": {"a": "b"}})",
      R"({"other": "x"})",
      R"({})",
      R"([])",
      R"("text")",
      R"(12)",
      R"({"text": "x"} trailing)",
      R"({"text": "x",})",
      R"({"text": "x")",
      R"({"text" "x"})",
      R"({text: "x"})",
      R"({"text": "bad \x escape"})",
      R"({"text": "bad \u12g4 escape"})",
      "{\"text\": \"raw \t tab\"}",
      R"({"text": 01})",
      R"({"text": 1.})",
      R"({"text": -})",
      R"({"text": 1e})",
      R"({"text": tru})",
      R"({"text": nulll})",
      R"({"text": "unterminated)",
      R"({"text": "x"}})",
      R"({"a": [}, "text": "x"})",
      R"({"text": "x"]})",
      "",
      "   ",
      R"({"text": "")",
      R"({"text": ""})",
  };
  for (const std::string& r : records) ExpectSame(r);
  ExpectSame(R"({"meta": {"text": "nested"}, "text": "top"})", "meta.text");
  ExpectSame(R"({"meta": {"other": 1}})", "meta.text");
  ExpectSame(R"({"meta": "flat"})", "meta.text");
  ExpectSame(R"({"meta": [1]})", "meta.text");
  ExpectSame(R"({"meta": {"text": {"deeper": "x"}}})", "meta.text.deeper");
  ExpectSame(R"({"text": "lone \ud800"})", "text", /*strict=*/true);
}

TEST(JsonScanTest, NestingDepthAsSimdjson) {
  for (size_t depth : {size_t{1000}, size_t{1023}, size_t{1024}, size_t{1025}, size_t{5000}}) {
    const std::string record =
        "{\"a\":" + std::string(depth - 1, '[') + std::string(depth - 1, ']') + ",\"text\":\"x\"}";
    SCOPED_TRACE(depth);
    ExpectSame(record);
  }
}

TEST(JsonScanTest, ErrorsNameTheByte) {
  const Outcome o = ParseWith(R"({"text": "x",, })", "text", true);
  ASSERT_FALSE(o.status.ok());
  EXPECT_THAT(o.status.message(),
              HasSubstr("malformed JSON (a key (a string) expected at byte 13)"));
  EXPECT_THAT(o.status.message(), HasSubstr("on_bad_record"));
}

// Random records: nested values, strings with every kind of escape and of UTF-8, then one
// mutation (a byte dropped, doubled or changed) in half of them.
class RecordGenerator {
 public:
  explicit RecordGenerator(uint32_t seed) : rng_(seed) {}

  std::string Record() {
    std::string out = "{";
    const int fields = Pick(5);
    bool text_done = false;
    for (int i = 0; i <= fields; ++i) {
      if (i > 0) out += Pick(3) == 0 ? " , " : ",";
      if (!text_done && Pick(fields + 1 - i) == 0) {
        out += "\"text\":";
        text_done = true;
      } else {
        out += "\"" + Chars(4) + "\":";
      }
      Value(&out, 0);
    }
    out += "}";
    if (Pick(2) == 0) Mutate(&out);
    return out;
  }

 private:
  int Pick(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }

  std::string Chars(int max) {
    static const std::vector<std::string> kPieces = {"a",
                                                     "Z",
                                                     " ",
                                                     "\\\"",
                                                     "\\\\",
                                                     "\\/",
                                                     "\\b",
                                                     "\\f",
                                                     "\\n",
                                                     "\\r",
                                                     "\\t",
                                                     "\\u0041",
                                                     "\\u00e9",
                                                     "\\u4E2D",
                                                     "\\ud83d\\ude00",
                                                     "\\ud800",
                                                     "\\udfff",
                                                     "\\u0000",
                                                     "\xC3\xA9",
                                                     "\xE4\xB8\xAD",
                                                     "\xF0\x9F\x98\x80",
                                                     "x",
                                                     "\\u20ac",
                                                     "text"};
    std::string out;
    const int n = Pick(max + 1);
    for (int i = 0; i < n; ++i) out += kPieces[static_cast<size_t>(Pick(kPieces.size()))];
    return out;
  }

  void Value(std::string* out, int depth) {
    switch (Pick(depth > 3 ? 6 : 8)) {
      case 0:
        *out += "\"" + Chars(12) + "\"";
        break;
      case 1:
        *out += std::to_string(Pick(100000) - 50000);
        if (Pick(2) == 0) *out += "." + std::to_string(Pick(1000));
        if (Pick(3) == 0) *out += "e" + std::string(Pick(2) ? "-" : "+") + std::to_string(Pick(9));
        break;
      case 2:
        *out += "true";
        break;
      case 3:
        *out += "false";
        break;
      case 4:
        *out += "null";
        break;
      case 5:
        *out += "\"" + Chars(3) + "\"";
        break;
      case 6: {
        *out += "[";
        const int n = Pick(4);
        for (int i = 0; i < n; ++i) {
          if (i > 0) *out += ",";
          Value(out, depth + 1);
        }
        *out += "]";
        break;
      }
      default: {
        *out += "{";
        const int n = Pick(4);
        for (int i = 0; i < n; ++i) {
          if (i > 0) *out += ",";
          *out += "\"" + std::string(Pick(2) ? "text" : Chars(3)) + "\" : ";
          Value(out, depth + 1);
        }
        *out += "}";
      }
    }
  }

  void Mutate(std::string* s) {
    const size_t at = static_cast<size_t>(rng_() % s->size());
    if (static_cast<unsigned char>((*s)[at]) >= 0x80) return;  // keep the UTF-8 valid
    static const char kBytes[] = "{}[]\",:\\ 0e.-tnu";
    switch (Pick(3)) {
      case 0:
        s->erase(at, 1);
        break;
      case 1:
        s->insert(at, 1, (*s)[at]);
        break;
      default:
        (*s)[at] = kBytes[Pick(sizeof(kBytes) - 1)];
    }
  }

  std::mt19937 rng_;
};

TEST(JsonScanTest, AgreesWithSimdjsonOnRandomRecords) {
  RecordGenerator gen(20261201);
  int ok = 0;
  for (int i = 0; i < 20000; ++i) {
    if (ExpectSame(gen.Record()).status.ok()) ++ok;
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GT(ok, 2000);  // both kinds are exercised
  EXPECT_LT(ok, 19000);
  ExpectSame(gen.Record(), "text.text");
}

TEST(JsonScanTest, UnescapesInPlaceFromTheFront) {
  std::string buffer = R"({"text":"a\u00e9\n\ud83d\ude00b"})";
  auto m = ScanJsonField(buffer, {"text"});
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(m->kind, JsonFieldMatch::Kind::kString);
  UnescapeJsonStringInPlace(&buffer, m->begin, m->end);
  EXPECT_EQ(buffer,
            "a\xC3\xA9\n\xF0\x9F\x98\x80"
            "b");
}

}  // namespace
}  // namespace tokenmill
