// Merges several Megatron prefixes (local files) into one, as Megatron's
// IndexedDatasetBuilder.add_index() does: the .bin files are concatenated, the sequence lengths
// appended, the pointers recomputed and the document indices rebased (each part's indices shifted
// by the sequences before it, its leading 0 dropped). Every part is checked first
// (ParseMegatronIndex with its .bin size) and all must share one dtype. Thread-safety: a pure
// function of its files.
#pragma once

#include <string>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/formats/shard_writer.h"

namespace tokenmill {

// Writes <output_prefix>.bin and <output_prefix>.idx and returns them in that order
// (.bin: examples = sequences, tokens = tokens; .idx: 0 and 0; names are the files' base names).
// On error nothing is left at the output prefix. REQUIRES: at least one input; the output prefix
// is not one of the inputs.
StatusOr<std::vector<ShardFile>> MergeMegatron(const std::vector<std::string>& input_prefixes,
                                               const std::string& output_prefix);

}  // namespace tokenmill
