#include "tokenmill/formats/shard_reader.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "tokenmill/base/crc32c.h"
#include "tokenmill/base/endian.h"
#include "tokenmill/formats/llmc.h"
#include "tokenmill/formats/megatron.h"
#include "tokenmill/formats/tf_example.h"
#include "tokenmill/formats/tfrecord.h"
#include "tokenmill/formats/token_array.h"

namespace tokenmill {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

Status CheckVocab(const std::vector<uint32_t>& tokens, uint32_t vocab_size, const std::string& name,
                  uint64_t offset, uint64_t token_bytes) {
  if (vocab_size == 0) return Status::Ok();
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] >= vocab_size) {
      std::string where = token_bytes == 0
                              ? "in the record at byte offset " + std::to_string(offset)
                              : "at byte offset " + std::to_string(offset + i * token_bytes);
      return Status::DataLoss(name + ": token id " + std::to_string(tokens[i]) + " " + where +
                              " is outside the vocabulary (vocab_size " +
                              std::to_string(vocab_size) +
                              "); the file is damaged or was written for another tokenizer");
    }
  }
  return Status::Ok();
}

Example GptExample(std::vector<uint32_t> tokens) {
  Example e;
  e.tokens = std::move(tokens);
  e.num_real_tokens = static_cast<uint32_t>(e.tokens.size());
  return e;
}

class TfRecordShardReader : public ShardReader {
 public:
  TfRecordShardReader(ByteSource file, const ShardReaderOptions& options)
      : file_(std::move(file)), options_(options), records_(file_) {
    info_.format = OutputFormat::kTfRecord;
    info_.name = file_.name;
    info_.bytes = file_.size;
    info_.dtype = "int64";
  }

  const ShardInfo& info() const override { return info_; }
  const ShardCounts& counts() const override { return counts_; }
  uint64_t record_offset() const override { return records_.record_offset(); }

  StatusOr<bool> Next(Example* example) override {
    std::string_view data;
    TM_ASSIGN_OR_RETURN(bool got, records_.Next(&data));
    if (!got) return false;
    Status s = DecodeTfExample(data, example);
    if (!s.ok()) {
      return Status::DataLoss(file_.name + ": record at byte offset " +
                              std::to_string(records_.record_offset()) + ": " + s.message());
    }
    TM_RETURN_IF_ERROR(
        CheckVocab(example->tokens, options_.vocab_size, file_.name, records_.record_offset(), 0));
    ++counts_.records;
    counts_.tokens += example->tokens.size();
    counts_.real_tokens += example->num_real_tokens;
    return true;
  }

 private:
  ByteSource file_;
  ShardReaderOptions options_;
  TfRecordReader records_;
  ShardInfo info_;
  ShardCounts counts_;
};

class MegatronShardReader : public ShardReader {
 public:
  // `summary`: CheckMegatronIndex of `idx` with the size of `bin`.
  MegatronShardReader(ByteSource idx, ByteSource bin, const MegatronIndexSummary& summary,
                      TokenEncoding encoding, const ShardReaderOptions& options)
      : idx_(std::move(idx)),
        bin_(std::move(bin)),
        sequences_(summary.sequences),
        encoding_(encoding),
        options_(options),
        lengths_(idx_, kMegatronIndexHeaderBytes, kLengthsBuffer),
        in_(bin_) {
    info_.format = OutputFormat::kMegatron;
    info_.name = idx_.name;
    info_.bytes = idx_.size + bin_.size;
    info_.token_bytes = static_cast<uint32_t>(TokenEncodingSize(encoding));
    info_.dtype = std::string(MegatronDTypeName(summary.dtype));
    info_.sequences = static_cast<int64_t>(summary.sequences);
    info_.documents = static_cast<int64_t>(summary.document_indices) - 1;
    info_.tokens = static_cast<int64_t>(summary.total_tokens);
  }

  const ShardInfo& info() const override { return info_; }
  const ShardCounts& counts() const override { return counts_; }
  uint64_t record_offset() const override { return offset_; }

  StatusOr<bool> Next(Example* example) override {
    if (next_ == sequences_) return false;
    // The lengths are read as the sequences are, through a bounded buffer; the pointers were
    // checked to follow them, so a sequence starts where the one before it ended.
    std::string_view length_bytes;
    TM_ASSIGN_OR_RETURN(bool got_length, lengths_.Read(4, &length_bytes));
    const int32_t signed_length = got_length ? GetFixedLE<int32_t>(length_bytes.data()) : -1;
    if (signed_length < 0) {
      return Status::DataLoss(idx_.name + ": the length of sequence " + std::to_string(next_) +
                              " changed since the index was checked");
    }
    const auto length = static_cast<uint64_t>(signed_length);
    offset_ = in_.position();
    std::string_view bytes;
    TM_ASSIGN_OR_RETURN(bool got, in_.Read(length * info_.token_bytes, &bytes));
    if (!got) {
      return Status::DataLoss(bin_.name + ": the file ends inside sequence " +
                              std::to_string(next_) + " at byte offset " + std::to_string(offset_));
    }
    std::vector<uint32_t> tokens;
    size_t bad = DecodeTokens(bytes, encoding_, &tokens);
    if (bad != std::string_view::npos) {
      return Status::DataLoss(bin_.name + ": value at byte offset " +
                              std::to_string(offset_ + bad * info_.token_bytes) +
                              " is not a token id (negative or too large)");
    }
    TM_RETURN_IF_ERROR(
        CheckVocab(tokens, options_.vocab_size, bin_.name, offset_, info_.token_bytes));
    *example = GptExample(std::move(tokens));
    ++next_;
    ++counts_.records;
    counts_.tokens += length;
    counts_.real_tokens += length;
    return true;
  }

 private:
  static constexpr size_t kLengthsBuffer = size_t{1} << 20;
  ByteSource idx_;
  ByteSource bin_;
  uint64_t sequences_;
  TokenEncoding encoding_;
  ShardReaderOptions options_;
  SourceReader lengths_;  // over the index's lengths
  SourceReader in_;
  ShardInfo info_;
  ShardCounts counts_;
  size_t next_ = 0;
  uint64_t offset_ = 0;
};

class LlmcShardReader : public ShardReader {
 public:
  LlmcShardReader(ByteSource file, const LlmcHeader& header, const ShardReaderOptions& options)
      : file_(std::move(file)), options_(options), in_(file_, kLlmcHeaderBytes) {
    info_.format = OutputFormat::kLlmc;
    info_.name = file_.name;
    info_.bytes = file_.size;
    info_.token_bytes = static_cast<uint32_t>(header.token_bytes());
    info_.dtype = header.token_bytes() == 2 ? "uint16" : "uint32";
    info_.tokens = static_cast<int64_t>(header.tokens);
    info_.llmc_magic = header.magic;
    info_.llmc_version = header.version;
    encoding_ = header.token_bytes() == 2 ? TokenEncoding::kUint16 : TokenEncoding::kUint32;
    limit_ = options_.eod_id.has_value() ? options_.llmc_max_document_tokens
                                         : options_.llmc_chunk_tokens;
    limit_ = std::max<uint32_t>(limit_, 1);
  }

  const ShardInfo& info() const override { return info_; }
  const ShardCounts& counts() const override { return counts_; }
  uint64_t record_offset() const override { return offset_; }

  StatusOr<bool> Next(Example* example) override {
    std::vector<uint32_t> record;
    offset_ = kLlmcHeaderBytes + consumed_ * info_.token_bytes;
    while (record.size() < limit_) {
      if (chunk_pos_ == chunk_.size()) {
        if (in_.remaining() == 0) break;
        TM_RETURN_IF_ERROR(Refill());
      }
      const uint32_t t = chunk_[chunk_pos_];
      if (options_.eod_id.has_value() && t == *options_.eod_id && !record.empty()) break;
      record.push_back(t);
      ++chunk_pos_;
      ++consumed_;
    }
    if (record.empty()) return false;
    counts_.records++;
    counts_.tokens += record.size();
    counts_.real_tokens += record.size();
    *example = GptExample(std::move(record));
    return true;
  }

 private:
  Status Refill() {
    const uint64_t offset = in_.position();
    const size_t width = info_.token_bytes;
    const uint64_t n = std::min<uint64_t>(in_.remaining() / width, 1 << 16);
    std::string_view bytes;
    TM_ASSIGN_OR_RETURN(bool got, in_.Read(n * width, &bytes));
    if (!got || n == 0) {
      return Status::DataLoss(file_.name + ": the file ends inside a token at byte offset " +
                              std::to_string(offset));
    }
    DecodeTokens(bytes, encoding_, &chunk_);
    chunk_pos_ = 0;
    return CheckVocab(chunk_, options_.vocab_size, file_.name, offset, width);
  }

  ByteSource file_;
  ShardReaderOptions options_;
  SourceReader in_;
  TokenEncoding encoding_;
  uint32_t limit_;
  ShardInfo info_;
  ShardCounts counts_;
  std::vector<uint32_t> chunk_;
  size_t chunk_pos_ = 0;
  uint64_t consumed_ = 0;  // tokens returned so far
  uint64_t offset_ = 0;
};

// True if `source` starts with a TFRecord length whose CRC matches.
StatusOr<bool> LooksLikeTfRecord(const ByteSource& source) {
  if (source.size < kTfRecordOverhead) return false;
  TM_ASSIGN_OR_RETURN(std::string head, source.read_at(0, 12));
  if (head.size() < 12) return false;
  return GetFixedLE<uint32_t>(head.data() + 8) == crc32c::Mask(crc32c::Value(head.data(), 8));
}

}  // namespace

StatusOr<std::unique_ptr<ShardReader>> OpenTfRecordShard(ByteSource file,
                                                         const ShardReaderOptions& options) {
  return std::unique_ptr<ShardReader>(new TfRecordShardReader(std::move(file), options));
}

StatusOr<std::unique_ptr<ShardReader>> OpenMegatronShard(ByteSource idx, ByteSource bin,
                                                         const ShardReaderOptions& options) {
  // The index is checked whole first (memory: bounded buffers, not the index), then read again,
  // its lengths only, as the sequences are.
  TM_ASSIGN_OR_RETURN(MegatronIndexSummary summary, CheckMegatronIndex(idx, bin.size));
  TokenEncoding encoding;
  switch (static_cast<MegatronDType>(summary.dtype)) {
    case MegatronDType::kUint8:
      encoding = TokenEncoding::kUint8;
      break;
    case MegatronDType::kInt8:
      encoding = TokenEncoding::kInt8;
      break;
    case MegatronDType::kInt16:
      encoding = TokenEncoding::kInt16;
      break;
    case MegatronDType::kUint16:
      encoding = TokenEncoding::kUint16;
      break;
    case MegatronDType::kInt32:
      encoding = TokenEncoding::kInt32;
      break;
    case MegatronDType::kInt64:
      encoding = TokenEncoding::kInt64;
      break;
    default:
      return Status::InvalidArgument(idx.name + ": dtype " +
                                     std::string(MegatronDTypeName(summary.dtype)) +
                                     " holds no token ids (only integer dtypes can be read)");
  }
  return std::unique_ptr<ShardReader>(
      new MegatronShardReader(std::move(idx), std::move(bin), summary, encoding, options));
}

StatusOr<std::unique_ptr<ShardReader>> OpenLlmcShard(ByteSource file,
                                                     const ShardReaderOptions& options) {
  TM_ASSIGN_OR_RETURN(std::string header, file.read_at(0, kLlmcHeaderBytes));
  TM_ASSIGN_OR_RETURN(LlmcHeader h, ParseLlmcHeader(header, file.size, file.name));
  return std::unique_ptr<ShardReader>(new LlmcShardReader(std::move(file), h, options));
}

StatusOr<std::unique_ptr<ShardReader>> OpenShard(const std::string& location,
                                                 const SourceOpener& open,
                                                 const ShardReaderOptions& options) {
  auto open_megatron = [&](const std::string& prefix) -> StatusOr<std::unique_ptr<ShardReader>> {
    TM_ASSIGN_OR_RETURN(ByteSource idx, open(prefix + ".idx"));
    TM_ASSIGN_OR_RETURN(ByteSource bin, open(prefix + ".bin"));
    return OpenMegatronShard(std::move(idx), std::move(bin), options);
  };
  if (EndsWith(location, ".tfrecord")) {
    TM_ASSIGN_OR_RETURN(ByteSource file, open(location));
    return OpenTfRecordShard(std::move(file), options);
  }
  if (EndsWith(location, ".idx")) return open_megatron(location.substr(0, location.size() - 4));
  if (EndsWith(location, ".bin")) {
    const std::string prefix = location.substr(0, location.size() - 4);
    StatusOr<ByteSource> idx = open(prefix + ".idx");
    if (idx.ok()) return open_megatron(prefix);
    if (!idx.status().Is(StatusCode::kNotFound)) return idx.status();
    TM_ASSIGN_OR_RETURN(ByteSource file, open(location));
    TM_ASSIGN_OR_RETURN(std::string head, file.read_at(0, 4));
    if (HasLlmcMagic(head)) return OpenLlmcShard(std::move(file), options);
    return Status::InvalidArgument(location +
                                   ": not an llm.c file (no llm.c magic) and no Megatron .idx "
                                   "beside it (" +
                                   prefix + ".idx)");
  }
  StatusOr<ByteSource> idx = open(location + ".idx");
  if (idx.ok()) return open_megatron(location);
  if (!idx.status().Is(StatusCode::kNotFound)) return idx.status();
  TM_ASSIGN_OR_RETURN(ByteSource file, open(location));
  TM_ASSIGN_OR_RETURN(std::string head, file.read_at(0, 4));
  if (HasLlmcMagic(head)) return OpenLlmcShard(std::move(file), options);
  TM_ASSIGN_OR_RETURN(bool tfrecord, LooksLikeTfRecord(file));
  if (tfrecord) return OpenTfRecordShard(std::move(file), options);
  return Status::InvalidArgument(
      location +
      ": cannot tell the shard format (not TFRecord, llm.c or a Megatron prefix); "
      "name it .tfrecord, .bin or .idx");
}

StatusOr<std::unique_ptr<ShardReader>> OpenLocalShard(const std::string& path,
                                                      const ShardReaderOptions& options) {
  return OpenShard(path, LocalFileSource, options);
}

}  // namespace tokenmill
