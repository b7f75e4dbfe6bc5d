#include "tokenmill/formats/tf_example.h"

#include <gtest/gtest.h>

#include <string>

#include "tokenmill/formats/formats_testing.h"

namespace tokenmill {
namespace {

std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

// tokens {7, 300}, input_mask {1, 0}, segment_ids {0, 0}, derived by hand from the wire format
// (300 = varint ac 02) and equal to `protoc --encode=tensorflow.Example` of the same text.
constexpr std::string_view kTinyExampleHex =
    "0a43"  // Example.features, 67 bytes
    "0a14"
    "0a09"
    "696e7075745f696473"
    "1207"
    "1a05"
    "0a03"
    "07ac02"  // input_ids
    "0a14"
    "0a0a"
    "696e7075745f6d61736b"
    "1206"
    "1a04"
    "0a02"
    "0100"  // input_mask
    "0a15"
    "0a0b"
    "7365676d656e745f696473"
    "1206"
    "1a04"
    "0a02"
    "0000";  // segment_ids

Example Tiny() {
  Example e;
  e.tokens = {7, 300};
  e.input_mask = {1, 0};
  e.segment_ids = {0, 0};
  e.num_real_tokens = 1;
  return e;
}

TEST(TfExample, EncodesExactBytes) {
  std::string out;
  EncodeTfExample(Tiny(), &out);
  EXPECT_EQ(testing::Hex(out), kTinyExampleHex);
}

// A BERT example: input_ids {2, 5, 300, 3, 0}, input_mask {1, 1, 1, 1, 0}, segment_ids
// {0, 0, 0, 1, 0}, masked_lm_positions {2, 0}, masked_lm_ids {300, 0}, masked_lm_weights
// {1.0, 0.0}, next_sentence_labels {1}: the bytes of python3-protobuf's
// tf.train.Example(...).SerializeToString(deterministic=True) (tests/e2e/tfstub builds the
// message classes from TensorFlow's schema).
constexpr std::string_view kBertExampleHex =
    "0ac7010a170a09696e7075745f696473120a1a080a060205ac0203000a170a0a696e7075745f6d61736b1209"
    "1a070a0501010101000a180a0d6d61736b65645f6c6d5f69647312071a050a03ac02000a1d0a136d61736b65"
    "645f6c6d5f706f736974696f6e7312061a040a0202000a210a116d61736b65645f6c6d5f7765696768747312"
    "0c120a0a080000803f000000000a1d0a146e6578745f73656e74656e63655f6c6162656c7312051a030a0101"
    "0a180a0b7365676d656e745f69647312091a070a050000000100";

Example BertExample() {
  Example e;
  e.tokens = {2, 5, 300, 3, 0};
  e.input_mask = {1, 1, 1, 1, 0};
  e.segment_ids = {0, 0, 0, 1, 0};
  e.num_real_tokens = 4;
  e.bert = true;
  e.masked_lm_positions = {2, 0};
  e.masked_lm_ids = {300, 0};
  e.masked_lm_weights = {1.0f, 0.0f};
  e.next_sentence_label = 1;
  return e;
}

TEST(TfExample, EncodesBertExamplesAsProtobufDoes) {
  std::string out;
  EncodeTfExample(BertExample(), &out);
  EXPECT_EQ(out, Unhex(kBertExampleHex));
}

TEST(TfExample, BertRoundTrip) {
  std::string out;
  EncodeTfExample(BertExample(), &out);
  Example back;
  ASSERT_TRUE(DecodeTfExample(out, &back).ok());
  const Example want = BertExample();
  EXPECT_TRUE(back.bert);
  EXPECT_EQ(back.tokens, want.tokens);
  EXPECT_EQ(back.input_mask, want.input_mask);
  EXPECT_EQ(back.segment_ids, want.segment_ids);
  EXPECT_EQ(back.num_real_tokens, 4u);
  EXPECT_EQ(back.masked_lm_positions, want.masked_lm_positions);
  EXPECT_EQ(back.masked_lm_ids, want.masked_lm_ids);
  EXPECT_EQ(back.masked_lm_weights, want.masked_lm_weights);
  EXPECT_EQ(back.next_sentence_label, 1u);
}

TEST(TfExample, BertFeaturesMustBeComplete) {
  {
    // Exactly the seven features of run_pretraining.py, with their kinds.
    std::string out;
    EncodeTfExample(BertExample(), &out);
    auto features = ParseTfExample(out);
    ASSERT_TRUE(features.ok());
    std::vector<std::string> keys;
    for (const auto& [key, feature] : *features) {
      keys.push_back(key);
      EXPECT_EQ(feature.kind, key == kMaskedLmWeightsKey ? TfFeature::Kind::kFloatList
                                                         : TfFeature::Kind::kInt64List)
          << key;
    }
    EXPECT_EQ(keys, (std::vector<std::string>{"input_ids", "input_mask", "masked_lm_ids",
                                              "masked_lm_positions", "masked_lm_weights",
                                              "next_sentence_labels", "segment_ids"}));
  }
  // A record with masked_lm_positions but no masked_lm_weights is refused.
  Example e = BertExample();
  std::string out;
  EncodeTfExample(e, &out);
  const std::string key = "masked_lm_weights";
  const size_t at = out.find(key);
  ASSERT_NE(at, std::string::npos);
  out[at] = 'x';  // the feature is now "xasked_lm_weights"
  Example back;
  const Status s = DecodeTfExample(out, &back);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("masked_lm_weights"), std::string::npos) << s.ToString();
}

TEST(TfExample, GptExampleHasOnlyInputIds) {
  std::string out;
  EncodeTfExample(testing::Gpt({1, 2, 3}), &out);
  // features { feature { key: "input_ids" value { int64_list { value: [1, 2, 3] } } } }, as
  // protoc --encode=tensorflow.Example gives it.
  EXPECT_EQ(testing::Hex(out),
            "0a16"
            "0a14"
            "0a09696e7075745f696473"
            "1207"
            "1a05"
            "0a03010203");
}

TEST(TfExample, EmptyListOmitsTheValueField) {
  std::string out;
  EncodeTfExample(testing::Gpt({}), &out);
  EXPECT_EQ(testing::Hex(out),
            "0a11"
            "0a0f"
            "0a09696e7075745f696473"
            "1202"
            "1a00");
  Example back;
  ASSERT_TRUE(DecodeTfExample(out, &back).ok());
  EXPECT_TRUE(back.tokens.empty());
}

// Encodes `e`, decodes it back and expects the three ELECTRA features unchanged; returns the
// encoding.
std::string ExpectRoundTrip(const Example& e, Example* back) {
  std::string out;
  EncodeTfExample(e, &out);
  EXPECT_TRUE(DecodeTfExample(out, back).ok());
  EXPECT_EQ(back->tokens, e.tokens);
  EXPECT_EQ(back->input_mask, e.input_mask);
  EXPECT_EQ(back->segment_ids, e.segment_ids);
  return out;
}

TEST(TfExample, RoundTrip) {
  Example e = testing::Electra({101, 2023, 2003, 102, 1037, 102}, 16, 4);
  e.tokens[0] = 4294967295u;  // the largest id survives too
  Example back;
  ExpectRoundTrip(e, &back);
  EXPECT_EQ(back.num_real_tokens, 6u);
}

TEST(TfExample, VarintsOfEveryLengthAndMaskValuesAbove127) {
  // Each varint length's first and last value, and one-byte features with values >= 128 (two
  // bytes each), round-trip; the encoding's bytes are the plain varints.
  Example e;
  e.tokens = {0, 127, 128, 16383, 16384, 2097151, 2097152, 268435455, 268435456, 4294967295u};
  e.input_mask.assign(e.tokens.size(), 1);
  e.segment_ids = {0, 1, 127, 128, 200, 255, 0, 1, 2, 3};
  e.num_real_tokens = e.tokens.size();
  Example back;
  const std::string out = ExpectRoundTrip(e, &back);
  std::string packed;  // the ids' varints, encoded the plain way
  for (uint64_t v : e.tokens) {
    for (; v >= 0x80; v >>= 7) packed.push_back(static_cast<char>((v & 0x7f) | 0x80));
    packed.push_back(static_cast<char>(v));
  }
  EXPECT_EQ(packed.size(), 30u);
  EXPECT_NE(out.find(std::string("\x0a\x1e", 2) + packed), std::string::npos)
      << "the packed ids, after their length";
  EXPECT_NE(out.find(std::string("\x80\x01\xc8\x01\xff\x01", 6)), std::string::npos)
      << "128, 200, 255 as two-byte varints, packed";
}

TEST(TfExample, EveryIdOfTheVarintTableAndPastItWithTrailingZeros) {
  // Ids below 2^16 come from a table, others are computed, and the trailing zeros (padding)
  // are written at once: all of them give the plain varints, in any mix.
  Example e;
  for (uint32_t v = 0; v < 70000; ++v) e.tokens.push_back(v % 3 == 0 ? 70000 - v : v);
  e.tokens.insert(e.tokens.end(), {0, 65535, 65536, 0, 0, 0});
  e.num_real_tokens = static_cast<uint32_t>(e.tokens.size());
  std::string packed;
  for (uint64_t v : e.tokens) {
    for (; v >= 0x80; v >>= 7) packed.push_back(static_cast<char>((v & 0x7f) | 0x80));
    packed.push_back(static_cast<char>(v));
  }
  Example back;
  const std::string out = ExpectRoundTrip(e, &back);
  EXPECT_EQ(back.tokens, e.tokens);
  EXPECT_NE(out.find(packed), std::string::npos);
  Example zeros;  // only padding
  zeros.tokens.assign(9, 0);
  zeros.num_real_tokens = 9;
  EXPECT_NE(ExpectRoundTrip(zeros, &back).find(std::string("\x0a\x09") + std::string(9, '\0')),
            std::string::npos);
  EXPECT_EQ(back.tokens, zeros.tokens);
}

TEST(TfExample, DecodesUnpackedReorderedAndUnknownFields) {
  // Example { unknown varint field 5 = 1; features { feature {
  //   value { int64_list { value: 5 value: 6 (unpacked) } } key: "input_ids" (value first) } } }
  std::string features = Unhex(
      "0a15"  // map entry, 21 bytes
      "1208"
      "1a06"
      "0805"
      "0806"
      "2001"                      // value: Feature{int64_list{1:5, 1:6, 4:1 unknown}}
      "0a09696e7075745f696473");  // key
  std::string example = Unhex("2801") + "\x0a" + std::string(1, char(features.size())) + features;
  Example back;
  Status s = DecodeTfExample(example, &back);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(back.tokens, (std::vector<uint32_t>{5, 6}));
  EXPECT_EQ(back.num_real_tokens, 2u);
}

TEST(TfExample, ParsesOtherKinds) {
  // features { feature { key: "f" value { float_list { value: 1.5 } } }
  //            feature { key: "b" value { bytes_list { value: "hi" } } } }
  std::string data = Unhex(
      "0a1c"
      "0a0d"
      "0a0166"
      "1208"
      "1206"
      "0a040000c03f"  // float_list (2), packed
      "0a0b"
      "0a0162"
      "1206"
      "0a04"
      "0a026869");  // bytes_list (1)
  auto features = ParseTfExample(data);
  ASSERT_TRUE(features.ok()) << features.status().ToString();
  ASSERT_EQ(features->size(), 2u);
  EXPECT_EQ(features->at("f").kind, TfFeature::Kind::kFloatList);
  EXPECT_EQ(features->at("f").float_list, (std::vector<float>{1.5f}));
  EXPECT_EQ(features->at("b").kind, TfFeature::Kind::kBytesList);
  EXPECT_EQ(features->at("b").bytes_list, (std::vector<std::string>{"hi"}));
  Example e;
  Status s = DecodeTfExample(data, &e);
  EXPECT_TRUE(s.Is(StatusCode::kDataLoss));
  EXPECT_NE(s.message().find("no 'input_ids'"), std::string::npos) << s.message();
}

TEST(TfExample, RejectsBadSemantics) {
  // input_mask of another length.
  Example short_mask = testing::Gpt({1, 2, 3});
  short_mask.input_mask = {1};
  std::string data;
  EncodeTfExample(short_mask, &data);
  Example back;
  Status s = DecodeTfExample(data, &back);
  EXPECT_TRUE(s.Is(StatusCode::kDataLoss));
  EXPECT_NE(s.message().find("'input_mask' has 1 values where 3 were expected"), std::string::npos)
      << s.message();

  // A negative id: value -1 is a 10-byte varint.
  std::string negative = Unhex(
      "0a1d"
      "0a1b"
      "0a09696e7075745f696473"
      "120e"
      "1a0c"
      "0a0a"
      "ffffffffffffffffff01");
  s = DecodeTfExample(negative, &back);
  EXPECT_TRUE(s.Is(StatusCode::kDataLoss));
  EXPECT_NE(s.message().find("out of range"), std::string::npos) << s.message();
}

TEST(TfExample, RejectsBadWireFormat) {
  std::string tiny = Unhex(kTinyExampleHex);
  // Every strict prefix is invalid (a length runs past the end) and never crashes.
  for (size_t n = 1; n < tiny.size(); ++n) {
    Example back;
    Status s = DecodeTfExample(tiny.substr(0, n), &back);
    EXPECT_TRUE(s.Is(StatusCode::kDataLoss)) << n;
  }
  Example back;
  Status s = DecodeTfExample(Unhex("08ffffffffffffffffffff01"), &back);  // 11-byte varint
  EXPECT_NE(s.message().find("varint longer than 10 bytes"), std::string::npos) << s.message();
  s = DecodeTfExample(Unhex("0b"), &back);  // wire type 3 (group)
  EXPECT_NE(s.message().find("unsupported wire type 3"), std::string::npos) << s.message();
  s = DecodeTfExample(Unhex("0a04"
                            "0a02"
                            "0a05"),
                      &back);  // the key's length runs past
  EXPECT_NE(s.message().find("runs past its message"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("at byte 6"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace tokenmill
