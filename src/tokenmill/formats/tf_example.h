// tf.train.Example encoding and decoding by hand (docs/formats/tfrecord.md).
//
// The schema (tensorflow/core/example/{example,feature}.proto):
//   Example   { Features features = 1; }
//   Features  { map<string, Feature> feature = 1; }      (entries: key = 1, value = 2)
//   Feature   { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2;
//                            Int64List int64_list = 3; } }
//   BytesList { repeated bytes value = 1; }
//   FloatList { repeated float value = 1 [packed = true]; }
//   Int64List { repeated int64 value = 1 [packed = true]; }
// The encoder writes int64_list features `input_ids`, `input_mask` and `segment_ids` (the last two
// only when the Example has them), and for BERT examples (`Example::bert`) also `masked_lm_ids`,
// `masked_lm_positions`, `next_sentence_labels` (int64_list) and `masked_lm_weights`
// (float_list), map entries sorted by key, values packed: the bytes
// TensorFlow's deterministic serialization produces. The decoder reads any valid Example (packed
// or unpacked lists, fields in any order, unknown fields skipped).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/examples/example.h"

namespace tokenmill {

// Feature keys, as ELECTRA's and BERT's input functions read them.
inline constexpr std::string_view kInputIdsKey = "input_ids";
inline constexpr std::string_view kInputMaskKey = "input_mask";
inline constexpr std::string_view kSegmentIdsKey = "segment_ids";
inline constexpr std::string_view kMaskedLmPositionsKey = "masked_lm_positions";
inline constexpr std::string_view kMaskedLmIdsKey = "masked_lm_ids";
inline constexpr std::string_view kMaskedLmWeightsKey = "masked_lm_weights";
inline constexpr std::string_view kNextSentenceLabelsKey = "next_sentence_labels";

// Appends the serialized tf.train.Example of `example` to *out.
void EncodeTfExample(const Example& example, std::string* out);

// One decoded Feature: the oneof kind and the list it holds.
struct TfFeature {
  enum class Kind { kNone, kBytesList, kFloatList, kInt64List };
  Kind kind = Kind::kNone;
  std::vector<std::string> bytes_list;
  std::vector<float> float_list;
  std::vector<int64_t> int64_list;
};

using TfFeatures = std::map<std::string, TfFeature, std::less<>>;

// Parses a serialized tf.train.Example. DataLoss (with the byte offset inside `data`) if it is not
// valid protobuf wire format.
StatusOr<TfFeatures> ParseTfExample(std::string_view data);

// Parses a serialized tf.train.Example into an Example: `input_ids` (required), `input_mask` and
// `segment_ids` (optional; when present, as long as input_ids), all int64_list.
// num_real_tokens = the number of non-zero input_mask values, or all tokens without a mask.
// With `masked_lm_positions` present the example is a BERT one (`bert` = true): the four BERT
// features are then required (masked_lm_* of one length, next_sentence_labels of length 1).
// DataLoss if a feature is missing, of another kind, of the wrong length or out of range.
Status DecodeTfExample(std::string_view data, Example* example);

}  // namespace tokenmill
