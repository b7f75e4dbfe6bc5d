// Megatron-LM indexed dataset (docs/formats/megatron.md), as
// megatron/core/datasets/indexed_dataset.py writes and reads it: a prefix names two files,
//   <prefix>.bin  the token arrays of every sequence, back to back, little endian;
//   <prefix>.idx  "MMIDIDX\0\0" | u64 version 1 | u8 dtype code | u64 sequence count N |
//                 u64 document-index count D | i32 lengths[N] | i64 byte pointers[N] |
//                 i64 document indices[D] (starting with 0, ending with N).
// tokenmill writes one sequence per document (per Example): document indices 0, 1, ..., N.
// Thread-safety: the free functions are pure.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/formats/byte_source.h"
#include "tokenmill/formats/shard_writer.h"

namespace tokenmill {

inline constexpr std::string_view kMegatronIndexMagic{"MMIDIDX\0\0", 9};
inline constexpr uint64_t kMegatronIndexVersion = 1;
// magic (9) + version (8) + dtype (1) + sequence count (8) + document-index count (8).
inline constexpr uint64_t kMegatronIndexHeaderBytes = 34;

// Megatron's DType codes.
enum class MegatronDType : uint8_t {
  kUint8 = 1,
  kInt8 = 2,
  kInt16 = 3,
  kInt32 = 4,
  kInt64 = 5,
  kFloat64 = 6,
  kFloat32 = 7,
  kUint16 = 8,
};

// Megatron's DType.optimal_dtype: uint16 when vocab_size < 65500, else int32.
MegatronDType MegatronDTypeForVocab(uint32_t vocab_size);
// Bytes per element; 0 for a code that is not a Megatron dtype.
size_t MegatronDTypeSize(uint8_t code);
// "uint16", "int32", ...; "unknown" for other codes.
std::string_view MegatronDTypeName(uint8_t code);

struct MegatronIndex {
  uint8_t dtype = 0;
  std::vector<int32_t> sequence_lengths;
  std::vector<int64_t> sequence_pointers;  // byte offsets into the .bin
  std::vector<int64_t> document_indices;   // D entries, the first 0 and the last N
  uint64_t total_tokens = 0;               // sum of sequence_lengths
};

// The 34-byte header of an index of `sequences` sequences and `documents` document indices.
std::string EncodeMegatronIndexHeader(MegatronDType dtype, uint64_t sequences, uint64_t documents);

// Serializes an index; the pointers are computed from the lengths (contiguous from 0).
std::string EncodeMegatronIndex(MegatronDType dtype, const std::vector<int32_t>& lengths,
                                const std::vector<int64_t>& document_indices);

// What CheckMegatronIndex finds in a valid index.
struct MegatronIndexSummary {
  uint8_t dtype = 0;
  uint64_t sequences = 0;         // N
  uint64_t document_indices = 0;  // D (the documents are D - 1)
  uint64_t total_tokens = 0;      // sum of the sequence lengths
};

// Checks a .idx as ParseMegatronIndex does, with the same errors, reading it front to back
// through three buffers of 1 MiB (lengths, pointers and document indices, each read in order):
// memory does not grow with the index.
StatusOr<MegatronIndexSummary> CheckMegatronIndex(const ByteSource& idx,
                                                  std::optional<uint64_t> bin_size);

// Parses and checks the bytes of a .idx: magic, version, dtype code, counts that match the file
// size exactly, non-negative lengths, pointers contiguous from 0, document indices starting at 0,
// non-decreasing and ending at N. If `bin_size` is given it must equal the tokens times the dtype
// size. Errors are DataLoss naming `name` and the byte offset of the bad field.
StatusOr<MegatronIndex> ParseMegatronIndex(std::string_view data, const std::string& name,
                                           std::optional<uint64_t> bin_size);

// The "megatron" ShardWriter: one sequence (and one document) per Example. REQUIRES:
// options.vocab_size > 0 (it selects the dtype). Examples with an input_mask (ELECTRA/BERT) are
// refused: Megatron GPT datasets hold unpadded documents.
StatusOr<std::unique_ptr<ShardWriter>> NewMegatronShardWriter(const ShardWriterOptions& options);

}  // namespace tokenmill
