#include "tokenmill/formats/megatron.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "tokenmill/base/endian.h"
#include "tokenmill/formats/byte_source.h"
#include "tokenmill/formats/rolling_shard_writer.h"
#include "tokenmill/formats/token_array.h"

namespace tokenmill {

MegatronDType MegatronDTypeForVocab(uint32_t vocab_size) {
  return vocab_size < 65500 ? MegatronDType::kUint16 : MegatronDType::kInt32;
}

size_t MegatronDTypeSize(uint8_t code) {
  switch (code) {
    case 1:  // uint8
    case 2:  // int8
      return 1;
    case 3:  // int16
    case 8:  // uint16
      return 2;
    case 4:  // int32
    case 7:  // float32
      return 4;
    case 5:  // int64
    case 6:  // float64
      return 8;
    default:
      return 0;
  }
}

std::string_view MegatronDTypeName(uint8_t code) {
  static constexpr std::string_view kNames[] = {"unknown", "uint8",   "int8",    "int16", "int32",
                                                "int64",   "float64", "float32", "uint16"};
  return code < std::size(kNames) ? kNames[code] : kNames[0];
}

std::string EncodeMegatronIndexHeader(MegatronDType dtype, uint64_t sequences, uint64_t documents) {
  std::string out;
  out.append(kMegatronIndexMagic);
  PutFixedLE<uint64_t>(&out, kMegatronIndexVersion);
  out.push_back(static_cast<char>(dtype));
  PutFixedLE<uint64_t>(&out, sequences);
  PutFixedLE<uint64_t>(&out, documents);
  return out;
}

std::string EncodeMegatronIndex(MegatronDType dtype, const std::vector<int32_t>& lengths,
                                const std::vector<int64_t>& document_indices) {
  const uint64_t item = MegatronDTypeSize(static_cast<uint8_t>(dtype));
  std::string out = EncodeMegatronIndexHeader(dtype, lengths.size(), document_indices.size());
  out.reserve(kMegatronIndexHeaderBytes + 12 * lengths.size() + 8 * document_indices.size());
  for (int32_t len : lengths) PutFixedLE<int32_t>(&out, len);
  int64_t pointer = 0;
  for (int32_t len : lengths) {
    PutFixedLE<int64_t>(&out, pointer);
    pointer += static_cast<int64_t>(len) * static_cast<int64_t>(item);
  }
  for (int64_t d : document_indices) PutFixedLE<int64_t>(&out, d);
  return out;
}

StatusOr<MegatronIndexSummary> CheckMegatronIndex(const ByteSource& idx,
                                                  std::optional<uint64_t> bin_size) {
  const std::string& name = idx.name;
  auto corrupt = [&](uint64_t offset, const std::string& what) {
    return Status::DataLoss(name + ": corrupt Megatron index at byte offset " +
                            std::to_string(offset) + ": " + what);
  };
  const uint64_t size = idx.size;
  if (size < kMegatronIndexHeaderBytes) {
    return corrupt(
        size, "the file has " + std::to_string(size) + " bytes, shorter than the 34-byte header");
  }
  SourceReader head_reader(idx, 0, kMegatronIndexHeaderBytes);
  std::string_view head;
  TM_ASSIGN_OR_RETURN(bool got_head, head_reader.Read(kMegatronIndexHeaderBytes, &head));
  if (!got_head) return corrupt(0, "the header could not be read");
  if (head.substr(0, 9) != kMegatronIndexMagic) {
    return corrupt(0, "bad magic (expected \"MMIDIDX\\0\\0\"); is this a Megatron .idx file?");
  }
  const uint64_t version = GetFixedLE<uint64_t>(head.data() + 9);
  if (version != kMegatronIndexVersion) {
    return corrupt(9, "unsupported version " + std::to_string(version) + " (expected 1)");
  }
  MegatronIndexSummary summary;
  summary.dtype = static_cast<uint8_t>(head[17]);
  const uint64_t item = MegatronDTypeSize(summary.dtype);
  if (item == 0) return corrupt(17, "unknown dtype code " + std::to_string(summary.dtype));
  const uint64_t n = GetFixedLE<uint64_t>(head.data() + 18);
  const uint64_t d = GetFixedLE<uint64_t>(head.data() + 26);
  const uint64_t body = size - kMegatronIndexHeaderBytes;
  // Overflow-safe: n * 12 + d * 8 == body.
  if (n > body / 12 || d > (body - n * 12) / 8 || n * 12 + d * 8 != body) {
    std::string what = "sequence count " + std::to_string(n) + " and document-index count " +
                       std::to_string(d) + " do not match the file size " + std::to_string(size);
    if (n <= body / 12 && d <= (body - n * 12) / 8 && body - n * 12 - d * 8 == n) {
      what += " (it has one extra byte per sequence: multimodal indexes are not supported)";
    }
    return corrupt(18, what);
  }
  if (d == 0) return corrupt(26, "no document indices (there must be at least the leading 0)");
  summary.sequences = n;
  summary.document_indices = d;

  // The sections, a block of entries at a time, each through its own buffer of 1 MiB (a read of
  // an object in a bucket is a request: a few large ones, not many small ones).
  constexpr uint64_t kBlock = 16384;
  constexpr size_t kBuffer = size_t{1} << 20;
  const uint64_t pointers_offset = kMegatronIndexHeaderBytes + 4 * n;
  const uint64_t documents_offset = kMegatronIndexHeaderBytes + 12 * n;
  SourceReader lengths(idx, kMegatronIndexHeaderBytes, kBuffer);
  SourceReader pointers(idx, pointers_offset, kBuffer);
  auto read = [&](SourceReader& reader, uint64_t bytes, std::string_view* out) -> Status {
    TM_ASSIGN_OR_RETURN(bool got, reader.Read(bytes, out));
    return got ? Status::Ok() : corrupt(reader.position(), "the file ended early");
  };
  uint64_t expected_pointer = 0;  // stays below 2^63 + 2^34: no overflow
  for (uint64_t first = 0; first < n; first += kBlock) {
    const uint64_t count = std::min(kBlock, n - first);
    std::string_view len_bytes, ptr_bytes;
    TM_RETURN_IF_ERROR(read(lengths, 4 * count, &len_bytes));
    TM_RETURN_IF_ERROR(read(pointers, 8 * count, &ptr_bytes));
    for (uint64_t k = 0; k < count; ++k) {
      const uint64_t i = first + k;
      const int32_t len = GetFixedLE<int32_t>(len_bytes.data() + 4 * k);
      const int64_t ptr = GetFixedLE<int64_t>(ptr_bytes.data() + 8 * k);
      if (len < 0) {
        return corrupt(
            kMegatronIndexHeaderBytes + 4 * i,
            "sequence " + std::to_string(i) + " has negative length " + std::to_string(len));
      }
      if (ptr < 0 || static_cast<uint64_t>(ptr) != expected_pointer) {
        return corrupt(pointers_offset + 8 * i,
                       "sequence " + std::to_string(i) + " starts at byte " + std::to_string(ptr) +
                           " of the .bin, expected " + std::to_string(expected_pointer) +
                           " (pointers must follow the lengths)");
      }
      summary.total_tokens += static_cast<uint64_t>(len);
      expected_pointer += static_cast<uint64_t>(len) * item;
    }
  }
  SourceReader documents(idx, documents_offset, kBuffer);
  int64_t previous = 0;
  for (uint64_t first = 0; first < d; first += kBlock) {
    const uint64_t count = std::min(kBlock, d - first);
    std::string_view doc_bytes;
    TM_RETURN_IF_ERROR(read(documents, 8 * count, &doc_bytes));
    for (uint64_t k = 0; k < count; ++k) {
      const uint64_t j = first + k;
      const int64_t v = GetFixedLE<int64_t>(doc_bytes.data() + 8 * k);
      if (j == 0 && v != 0) {
        return corrupt(documents_offset,
                       "the first document index is " + std::to_string(v) + ", expected 0");
      }
      if (v < previous || static_cast<uint64_t>(v) > n) {
        return corrupt(documents_offset + 8 * j,
                       "document index " + std::to_string(j) + " is " + std::to_string(v) +
                           " (indices must not decrease and must stay within the " +
                           std::to_string(n) + " sequences)");
      }
      previous = v;
    }
  }
  if (static_cast<uint64_t>(previous) != n) {
    return corrupt(documents_offset + 8 * (d - 1),
                   "the last document index is " + std::to_string(previous) +
                       ", expected the sequence count " + std::to_string(n));
  }
  if (bin_size.has_value() && *bin_size != expected_pointer) {
    return Status::DataLoss(name + ": the .bin beside this index has " + std::to_string(*bin_size) +
                            " bytes, the index describes " + std::to_string(expected_pointer) +
                            " (" + std::to_string(summary.total_tokens) + " tokens of " +
                            std::string(MegatronDTypeName(summary.dtype)) +
                            "); the pair is damaged or mismatched");
  }
  return summary;
}

StatusOr<MegatronIndex> ParseMegatronIndex(std::string_view data, const std::string& name,
                                           std::optional<uint64_t> bin_size) {
  TM_ASSIGN_OR_RETURN(MegatronIndexSummary summary,
                      CheckMegatronIndex(MemorySource(name, data), bin_size));
  MegatronIndex index;
  index.dtype = summary.dtype;
  index.total_tokens = summary.total_tokens;
  const uint64_t n = summary.sequences;
  const char* lengths = data.data() + kMegatronIndexHeaderBytes;
  const char* pointers = lengths + 4 * n;
  const char* documents = pointers + 8 * n;
  index.sequence_lengths.resize(n);
  index.sequence_pointers.resize(n);
  index.document_indices.resize(summary.document_indices);
  for (uint64_t i = 0; i < n; ++i) {
    index.sequence_lengths[i] = GetFixedLE<int32_t>(lengths + 4 * i);
    index.sequence_pointers[i] = GetFixedLE<int64_t>(pointers + 8 * i);
  }
  for (uint64_t j = 0; j < summary.document_indices; ++j) {
    index.document_indices[j] = GetFixedLE<int64_t>(documents + 8 * j);
  }
  return index;
}

namespace {

class MegatronShardWriter : public RollingShardWriter {
 public:
  MegatronShardWriter(const ShardWriterOptions& options, MegatronDType dtype)
      : RollingShardWriter(options), dtype_(dtype), width_(MegatronDTypeSize(uint8_t(dtype))) {}

 protected:
  StatusOr<uint64_t> EncodeRecord(const Example& example) override {
    if (!example.input_mask.empty()) {
      return Status::InvalidArgument(
          "megatron output holds GPT documents, but this example has an input_mask "
          "(ELECTRA/BERT examples go to tfrecord)");
    }
    const uint64_t length = (continuing() ? pending_length_ : 0) + example.tokens.size();
    if (length > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
      return Status::InvalidArgument("a document of " + std::to_string(length) +
                                     " tokens exceeds Megatron's int32 sequence length");
    }
    record_.clear();
    AppendTokens(example.tokens, width_, &record_);
    length_ = static_cast<int32_t>(length);
    more_ = example.more;
    // tokens, then (with the document's last part) its length, pointer and document index
    return record_.size() + (more_ ? 0 : 4 + 8 + 8);
  }
  uint64_t EmptyShardBytes() const override { return kMegatronIndexHeaderBytes + 8; }
  Status OpenShard(const std::string& dir, const std::string& stem) override {
    dir_ = dir;
    stem_ = stem;
    lengths_.clear();
    TM_ASSIGN_OR_RETURN(bin_, CreateFile(dir, stem + ".bin"));
    return Status::Ok();
  }
  Status WriteRecord() override {
    TM_RETURN_IF_ERROR(bin_->Append(record_));
    pending_length_ = more_ ? static_cast<uint64_t>(length_) : 0;
    if (!more_) lengths_.push_back(length_);
    return Status::Ok();
  }
  Status CloseShard(uint64_t examples, uint64_t tokens, std::vector<ShardFile>* files) override {
    std::unique_ptr<OutputFile> bin = std::move(bin_);
    TM_ASSIGN_OR_RETURN(ShardFile bin_file, CompleteFile(*bin, stem_ + ".bin", examples, tokens));
    std::vector<int64_t> documents(lengths_.size() + 1);
    for (size_t i = 0; i < documents.size(); ++i) documents[i] = static_cast<int64_t>(i);
    TM_ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> idx, CreateFile(dir_, stem_ + ".idx"));
    TM_RETURN_IF_ERROR(idx->Append(EncodeMegatronIndex(dtype_, lengths_, documents)));
    TM_ASSIGN_OR_RETURN(ShardFile idx_file, CompleteFile(*idx, stem_ + ".idx", 0, 0));
    files->push_back(std::move(bin_file));
    files->push_back(std::move(idx_file));
    return Status::Ok();
  }
  void DropShard() override { bin_.reset(); }

 private:
  const MegatronDType dtype_;
  const size_t width_;
  std::string record_;
  int32_t length_ = 0;
  bool more_ = false;
  uint64_t pending_length_ = 0;  // tokens of the open document's parts written so far
  std::string dir_;
  std::string stem_;
  std::vector<int32_t> lengths_;
  std::unique_ptr<OutputFile> bin_;
};

}  // namespace

StatusOr<std::unique_ptr<ShardWriter>> NewMegatronShardWriter(const ShardWriterOptions& options) {
  if (options.vocab_size == 0) {
    return Status::InvalidArgument(
        "megatron output needs the vocabulary size (ShardWriterOptions.vocab_size) to choose "
        "uint16 or int32 tokens");
  }
  if (options.vocab_size > static_cast<uint32_t>(std::numeric_limits<int32_t>::max()) + 1u) {
    return Status::InvalidArgument("vocab_size " + std::to_string(options.vocab_size) +
                                   " does not fit Megatron's int32 tokens");
  }
  return std::unique_ptr<ShardWriter>(
      new MegatronShardWriter(options, MegatronDTypeForVocab(options.vocab_size)));
}

}  // namespace tokenmill
