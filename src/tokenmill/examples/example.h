// Example: one training example as the shard writers take it.
#pragma once

#include <cstdint>
#include <vector>

namespace tokenmill {

struct Example {
  // ELECTRA/BERT: input_ids zero-padded to max_seq_length. GPT: one document's ids (with the
  // end-of-document token where the builder put it).
  std::vector<uint32_t> tokens;
  // ELECTRA/BERT only (empty for GPT): 1 for real tokens, 0 for padding; 0 for segment A
  // ([CLS] A [SEP]) and 1 for segment B (B [SEP]); both padded to max_seq_length.
  std::vector<uint8_t> input_mask;
  std::vector<uint8_t> segment_ids;
  uint32_t num_real_tokens = 0;  // tokens that are not padding

  // GPT only: more of this document's ids follow in the next Example(s). A document too long to
  // hold whole comes as several parts, the last with `more` false (which may have no tokens);
  // writers treat the parts as one record. See RollingShardWriter for the shard rule.
  bool more = false;

  // BERT only (`bert` false and the vectors empty otherwise): the masked LM targets and the next
  // sentence label, as google-research/bert run_pretraining.py reads them. The three vectors are
  // zero padded to max_predictions_per_seq; weights are 1.0 for real predictions, 0.0 for padding.
  bool bert = false;
  std::vector<uint32_t> masked_lm_positions;  // positions in `tokens`, increasing
  std::vector<uint32_t> masked_lm_ids;        // the original ids at those positions
  std::vector<float> masked_lm_weights;
  uint32_t next_sentence_label = 0;  // 1: segment B is a random next, 0: the actual next
};

}  // namespace tokenmill
