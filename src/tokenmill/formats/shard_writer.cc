#include "tokenmill/formats/shard_writer.h"

#include <cstdio>
#include <filesystem>
#include <system_error>
#include <utility>

#include "tokenmill/formats/llmc.h"
#include "tokenmill/formats/megatron.h"
#include "tokenmill/formats/rolling_shard_writer.h"
#include "tokenmill/formats/tfrecord.h"

namespace tokenmill {

std::string ShardStem(uint64_t task_id, uint64_t shard_index) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "part-%06llu-%03llu", static_cast<unsigned long long>(task_id),
                static_cast<unsigned long long>(shard_index));
  return buf;
}

RollingShardWriter::RollingShardWriter(const ShardWriterOptions& options) : options_(options) {}

RollingShardWriter::~RollingShardWriter() {
  if (!finished_) {
    // The derived part (and its open files) is gone already: only delete the paths.
    for (const std::string& path : created_) (void)RemoveFile(path);
  }
}

Status RollingShardWriter::Add(const Example& example) {
  if (finished_)
    return Status::FailedPrecondition("ShardWriter::Add called after Finish or Abandon");
  if (!status_.ok()) return status_;
  status_ = AddImpl(example);
  return status_;
}

Status RollingShardWriter::AddImpl(const Example& example) {
  const size_t n = example.tokens.size();
  if (!example.input_mask.empty() && example.input_mask.size() != n) {
    return Status::InvalidArgument("example has " + std::to_string(n) + " tokens but " +
                                   std::to_string(example.input_mask.size()) +
                                   " input_mask values");
  }
  if (!example.segment_ids.empty() && example.segment_ids.size() != n) {
    return Status::InvalidArgument("example has " + std::to_string(n) + " tokens but " +
                                   std::to_string(example.segment_ids.size()) + " segment_ids");
  }
  if (example.num_real_tokens > n) {
    return Status::InvalidArgument("example has num_real_tokens " +
                                   std::to_string(example.num_real_tokens) + " > its " +
                                   std::to_string(n) + " tokens");
  }
  if (options_.vocab_size != 0) {
    for (size_t i = 0; i < n; ++i) {
      if (example.tokens[i] >= options_.vocab_size) {
        return Status::InvalidArgument(
            "token id " + std::to_string(example.tokens[i]) + " at position " + std::to_string(i) +
            " is outside the vocabulary (vocab_size " + std::to_string(options_.vocab_size) +
            "); check the tokenizer and vocab_size");
      }
    }
  }
  TM_ASSIGN_OR_RETURN(uint64_t growth, EncodeRecord(example));
  if (in_document_) {  // a later part: it stays with the first
    if (!RecordFits()) {
      return Status::InvalidArgument("a document is too long for one shard of this format");
    }
  } else if (example.more) {  // the first part of a long document: a shard of its own
    if (shard_open_) TM_RETURN_IF_ERROR(CloseOpenShard());
  } else if (shard_open_ && (shard_bytes_ + growth > options_.shard_size || !RecordFits())) {
    TM_RETURN_IF_ERROR(CloseOpenShard());
  }
  if (!shard_open_) {
    std::error_code ec;
    std::filesystem::create_directories(options_.scratch_dir, ec);
    if (ec) {
      return Status::IoError(options_.scratch_dir +
                             ": cannot create the scratch folder: " + ec.message());
    }
    TM_RETURN_IF_ERROR(OpenShard(options_.scratch_dir, ShardStem(options_.task_id, shard_index_)));
    ++shard_index_;
    shard_open_ = true;
    shard_bytes_ = EmptyShardBytes();
    shard_examples_ = 0;
    shard_tokens_ = 0;
  }
  TM_RETURN_IF_ERROR(WriteRecord());
  shard_bytes_ += growth;
  if (!example.more) ++shard_examples_;
  shard_tokens_ += example.num_real_tokens;
  in_document_ = example.more;
  return Status::Ok();
}

Status RollingShardWriter::CloseOpenShard() {
  shard_open_ = false;
  return CloseShard(shard_examples_, shard_tokens_, &files_);
}

StatusOr<std::vector<ShardFile>> RollingShardWriter::Finish() {
  if (finished_)
    return Status::FailedPrecondition("ShardWriter::Finish called after Finish or Abandon");
  if (status_.ok() && in_document_) {
    status_ = Status::FailedPrecondition("ShardWriter::Finish called in the middle of a document");
  }
  if (status_.ok() && shard_open_) status_ = CloseOpenShard();
  if (!status_.ok()) return status_;  // the caller Abandon()s
  finished_ = true;
  return std::move(files_);
}

void RollingShardWriter::Abandon() {
  if (shard_open_) DropShard();
  shard_open_ = false;
  for (const std::string& path : created_) (void)RemoveFile(path);
  created_.clear();
  files_.clear();
  finished_ = true;
  if (status_.ok()) status_ = Status::Cancelled("shard writer abandoned");
}

StatusOr<std::unique_ptr<OutputFile>> RollingShardWriter::CreateFile(const std::string& dir,
                                                                     const std::string& name) {
  std::string path = (std::filesystem::path(dir) / name).string();
  created_.push_back(path);
  return OutputFile::Create(path, OutputFile::kDefaultBufferSize, options_.write_behind);
}

StatusOr<ShardFile> RollingShardWriter::CompleteFile(OutputFile& file, const std::string& name,
                                                     uint64_t examples, uint64_t tokens) {
  TM_RETURN_IF_ERROR(file.Close());
  ShardFile out;
  out.name = name;
  out.local_path = file.path();
  out.bytes = file.bytes();
  out.sha256 = file.sha256();
  out.examples = examples;
  out.tokens = tokens;
  return out;
}

StatusOr<std::unique_ptr<ShardWriter>> CreateShardWriter(const ShardWriterOptions& options) {
  if (options.scratch_dir.empty()) {
    return Status::InvalidArgument("ShardWriterOptions.scratch_dir is empty: give a local folder");
  }
  if (options.shard_size == 0) {
    return Status::InvalidArgument("shard_size must be greater than 0");
  }
  switch (options.format) {
    case OutputFormat::kTfRecord:
      return NewTfRecordShardWriter(options);
    case OutputFormat::kMegatron:
      return NewMegatronShardWriter(options);
    case OutputFormat::kLlmc:
      return NewLlmcShardWriter(options);
  }
  return Status::InvalidArgument("unknown output format");
}

std::string_view OutputFormatName(OutputFormat format) {
  switch (format) {
    case OutputFormat::kTfRecord:
      return "tfrecord";
    case OutputFormat::kMegatron:
      return "megatron";
    case OutputFormat::kLlmc:
      return "llmc";
  }
  return "unknown";
}

StatusOr<OutputFormat> ParseOutputFormat(std::string_view name) {
  for (OutputFormat f : {OutputFormat::kTfRecord, OutputFormat::kMegatron, OutputFormat::kLlmc}) {
    if (name == OutputFormatName(f)) return f;
  }
  return Status::InvalidArgument("unknown output format '" + std::string(name) +
                                 "': use tfrecord, megatron or llmc");
}

}  // namespace tokenmill
