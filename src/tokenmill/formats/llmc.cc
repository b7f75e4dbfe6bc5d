#include "tokenmill/formats/llmc.h"

#include <utility>

#include "tokenmill/base/endian.h"
#include "tokenmill/formats/rolling_shard_writer.h"
#include "tokenmill/formats/token_array.h"

namespace tokenmill {

LlmcHeader LlmcHeaderForVocab(uint32_t vocab_size, uint64_t tokens) {
  LlmcHeader h;
  if (vocab_size > 65536) {
    h.magic = kLlmcMagicUint32;
    h.version = kLlmcVersionUint32;
  }
  h.tokens = tokens;
  return h;
}

std::string EncodeLlmcHeader(const LlmcHeader& header) {
  std::string out;
  out.reserve(kLlmcHeaderBytes);
  PutFixedLE<int32_t>(&out, header.magic);
  PutFixedLE<int32_t>(&out, header.version);
  PutFixedLE<int32_t>(&out, static_cast<int32_t>(header.tokens));
  out.resize(kLlmcHeaderBytes, '\0');
  return out;
}

bool HasLlmcMagic(std::string_view data) {
  if (data.size() < 4) return false;
  int32_t magic = GetFixedLE<int32_t>(data.data());
  return magic == kLlmcMagicUint16 || magic == kLlmcMagicUint32;
}

StatusOr<LlmcHeader> ParseLlmcHeader(std::string_view header, uint64_t file_size,
                                     const std::string& name) {
  auto corrupt = [&](uint64_t offset, const std::string& what) {
    return Status::DataLoss(name + ": corrupt llm.c file at byte offset " + std::to_string(offset) +
                            ": " + what);
  };
  if (file_size < kLlmcHeaderBytes || header.size() < kLlmcHeaderBytes) {
    return corrupt(
        std::min<uint64_t>(file_size, header.size()),
        "the file has " + std::to_string(file_size) + " bytes, shorter than the 1024-byte header");
  }
  LlmcHeader h;
  h.magic = GetFixedLE<int32_t>(header.data());
  h.version = GetFixedLE<int32_t>(header.data() + 4);
  const int32_t tokens = GetFixedLE<int32_t>(header.data() + 8);
  if (h.magic != kLlmcMagicUint16 && h.magic != kLlmcMagicUint32) {
    return corrupt(0, "bad magic " + std::to_string(h.magic) +
                          " (expected 20240520 or 20240801); is this an llm.c token file?");
  }
  const int32_t expected_version =
      h.magic == kLlmcMagicUint16 ? kLlmcVersionUint16 : kLlmcVersionUint32;
  if (h.version != expected_version) {
    return corrupt(4, "version " + std::to_string(h.version) + " does not go with magic " +
                          std::to_string(h.magic) + " (expected " +
                          std::to_string(expected_version) + ")");
  }
  if (tokens <= 0) {
    return corrupt(
        8, "token count " + std::to_string(tokens) + " (llm.c's loader requires a positive count)");
  }
  h.tokens = static_cast<uint64_t>(tokens);
  for (size_t i = 3; i < kLlmcHeaderInts; ++i) {
    if (GetFixedLE<int32_t>(header.data() + 4 * i) != 0) {
      return corrupt(4 * i, "reserved header int " + std::to_string(i) + " is not zero");
    }
  }
  const uint64_t expected = kLlmcHeaderBytes + h.tokens * h.token_bytes();
  if (file_size != expected) {
    return corrupt(std::min(file_size, expected),
                   "the file has " + std::to_string(file_size) + " bytes, the header announces " +
                       std::to_string(h.tokens) + " tokens of " + std::to_string(h.token_bytes()) +
                       " bytes, that is " + std::to_string(expected) +
                       " bytes (truncated or damaged)");
  }
  return h;
}

namespace {

class LlmcShardWriter : public RollingShardWriter {
 public:
  explicit LlmcShardWriter(const ShardWriterOptions& options)
      : RollingShardWriter(options), header_(LlmcHeaderForVocab(options.vocab_size, 0)) {}

 protected:
  StatusOr<uint64_t> EncodeRecord(const Example& example) override {
    if (!example.input_mask.empty()) {
      return Status::InvalidArgument(
          "llmc output holds GPT documents, but this example has an input_mask "
          "(ELECTRA/BERT examples go to tfrecord)");
    }
    if (example.tokens.empty() && !continuing()) {
      return Status::InvalidArgument(
          "llmc output cannot hold an empty document: give each document its end-of-text token");
    }
    if (example.tokens.size() > kLlmcMaxTokens) {
      return Status::InvalidArgument("a document of " + std::to_string(example.tokens.size()) +
                                     " tokens exceeds llm.c's int32 token count");
    }
    record_.clear();
    AppendTokens(example.tokens, header_.token_bytes(), &record_);
    record_tokens_ = example.tokens.size();
    return record_.size();
  }
  uint64_t EmptyShardBytes() const override { return kLlmcHeaderBytes; }
  bool RecordFits() const override { return shard_tokens_ + record_tokens_ <= kLlmcMaxTokens; }
  Status OpenShard(const std::string& dir, const std::string& stem) override {
    name_ = stem + ".bin";
    shard_tokens_ = 0;
    TM_ASSIGN_OR_RETURN(file_, CreateFile(dir, name_));
    file_->DigestAtClose();            // the header is rewritten at the end
    LlmcHeader placeholder = header_;  // the count is filled in by CloseShard
    return file_->Append(EncodeLlmcHeader(placeholder));
  }
  Status WriteRecord() override {
    TM_RETURN_IF_ERROR(file_->Append(record_));
    shard_tokens_ += record_tokens_;
    return Status::Ok();
  }
  Status CloseShard(uint64_t examples, uint64_t tokens, std::vector<ShardFile>* files) override {
    std::unique_ptr<OutputFile> file = std::move(file_);
    LlmcHeader header = header_;
    header.tokens = shard_tokens_;
    TM_RETURN_IF_ERROR(file->WriteAt(0, EncodeLlmcHeader(header)));
    TM_ASSIGN_OR_RETURN(ShardFile done, CompleteFile(*file, name_, examples, tokens));
    files->push_back(std::move(done));
    return Status::Ok();
  }
  void DropShard() override { file_.reset(); }

 private:
  const LlmcHeader header_;
  std::string record_;
  uint64_t record_tokens_ = 0;
  uint64_t shard_tokens_ = 0;
  std::string name_;
  std::unique_ptr<OutputFile> file_;
};

}  // namespace

StatusOr<std::unique_ptr<ShardWriter>> NewLlmcShardWriter(const ShardWriterOptions& options) {
  if (options.vocab_size == 0) {
    return Status::InvalidArgument(
        "llmc output needs the vocabulary size (ShardWriterOptions.vocab_size) to choose uint16 "
        "or uint32 tokens");
  }
  return std::unique_ptr<ShardWriter>(new LlmcShardWriter(options));
}

}  // namespace tokenmill
