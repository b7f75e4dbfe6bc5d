// Merges several Megatron prefixes into one, as Megatron's IndexedDatasetBuilder.add_index()
// does: the .bin files are concatenated, the sequence lengths appended, the pointers recomputed
// and the document indices rebased (each part's indices shifted by the sequences before it, its
// leading 0 dropped). Every part is checked (ParseMegatronIndex with its .bin size) before it is
// used, and all must share one dtype. The parts are read through a SourceOpener, so they may be
// local files or objects in a bucket; each file is read once, front to back (each .idx in one read,
// each .bin 4 MiB at a time). Memory: one part's index at a time, whatever the number of parts (the
// merged index's sections are written to scratch files beside the output as the parts go by).
// Thread-safety: a pure function of its files.
#pragma once

#include <string>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/formats/byte_source.h"
#include "tokenmill/formats/shard_writer.h"

namespace tokenmill {

// Writes <output_prefix>.bin and <output_prefix>.idx (local files) and returns them in that order
// (.bin: examples = sequences, tokens = tokens; .idx: 0 and 0; names are the files' base names).
// `open` opens <prefix>.idx and <prefix>.bin of every input (default: local files). Each part is
// checked (ParseMegatronIndex with its .bin's size) before its bytes are used; the merged files
// take their names only once complete, so on error the output prefix is as it was. Scratch files
// <output_prefix>.merging.* are removed either way. REQUIRES: at least one input; the output
// prefix is not one of the inputs.
StatusOr<std::vector<ShardFile>> MergeMegatron(const std::vector<std::string>& input_prefixes,
                                               const std::string& output_prefix,
                                               const SourceOpener& open = LocalFileSource);

}  // namespace tokenmill
