#include "tokenmill/formats/megatron_merge.h"

#include <filesystem>
#include <memory>
#include <utility>

#include "tokenmill/formats/byte_source.h"
#include "tokenmill/formats/megatron.h"
#include "tokenmill/formats/output_file.h"

namespace tokenmill {
namespace {

std::string BaseName(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

// Sets *created once it starts writing the output files.
Status Merge(const std::vector<std::string>& inputs, const std::string& output_prefix,
             const SourceOpener& open, std::vector<ShardFile>* files, bool* created) {
  // Check every part before writing anything.
  struct Part {
    ByteSource bin;
    MegatronIndex index;
  };
  std::vector<Part> parts;
  parts.reserve(inputs.size());
  for (const std::string& prefix : inputs) {
    TM_ASSIGN_OR_RETURN(ByteSource idx, open(prefix + ".idx"));
    TM_ASSIGN_OR_RETURN(ByteSource bin, open(prefix + ".bin"));
    TM_ASSIGN_OR_RETURN(std::string idx_bytes, idx.read_at(0, idx.size));
    TM_ASSIGN_OR_RETURN(MegatronIndex index, ParseMegatronIndex(idx_bytes, idx.name, bin.size));
    if (!parts.empty() && index.dtype != parts.front().index.dtype) {
      return Status::InvalidArgument("cannot merge " + idx.name + " (dtype " +
                                     std::string(MegatronDTypeName(index.dtype)) + ") with " +
                                     inputs.front() + ".idx (dtype " +
                                     std::string(MegatronDTypeName(parts.front().index.dtype)) +
                                     "): write every part with the same vocabulary size");
    }
    parts.push_back({std::move(bin), std::move(index)});
  }

  std::vector<int32_t> lengths;
  std::vector<int64_t> documents = {0};
  uint64_t tokens = 0;
  *created = true;
  TM_ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> bin, OutputFile::Create(output_prefix + ".bin"));
  for (const Part& part : parts) {
    const int64_t offset = static_cast<int64_t>(lengths.size());
    lengths.insert(lengths.end(), part.index.sequence_lengths.begin(),
                   part.index.sequence_lengths.end());
    for (size_t j = 1; j < part.index.document_indices.size(); ++j) {
      documents.push_back(offset + part.index.document_indices[j]);
    }
    tokens += part.index.total_tokens;
    constexpr uint64_t kChunk = 4 << 20;
    for (uint64_t pos = 0; pos < part.bin.size; pos += kChunk) {
      TM_ASSIGN_OR_RETURN(std::string chunk, part.bin.read_at(pos, kChunk));
      if (chunk.empty()) {
        return Status::DataLoss(part.bin.name + ": ended at byte offset " + std::to_string(pos) +
                                " while being merged (changed meanwhile?)");
      }
      TM_RETURN_IF_ERROR(bin->Append(chunk));
      if (chunk.size() < kChunk && pos + chunk.size() < part.bin.size) {
        return Status::DataLoss(part.bin.name + ": short read at byte offset " +
                                std::to_string(pos));
      }
    }
  }
  TM_RETURN_IF_ERROR(bin->Close());
  const auto dtype = static_cast<MegatronDType>(parts.front().index.dtype);
  TM_ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> idx, OutputFile::Create(output_prefix + ".idx"));
  TM_RETURN_IF_ERROR(idx->Append(EncodeMegatronIndex(dtype, lengths, documents)));
  TM_RETURN_IF_ERROR(idx->Close());

  ShardFile bin_file;
  bin_file.name = BaseName(bin->path());
  bin_file.local_path = bin->path();
  bin_file.bytes = bin->bytes();
  bin_file.sha256 = bin->sha256();
  bin_file.examples = lengths.size();
  bin_file.tokens = tokens;
  ShardFile idx_file;
  idx_file.name = BaseName(idx->path());
  idx_file.local_path = idx->path();
  idx_file.bytes = idx->bytes();
  idx_file.sha256 = idx->sha256();
  files->push_back(std::move(bin_file));
  files->push_back(std::move(idx_file));
  return Status::Ok();
}

}  // namespace

StatusOr<std::vector<ShardFile>> MergeMegatron(const std::vector<std::string>& input_prefixes,
                                               const std::string& output_prefix,
                                               const SourceOpener& open) {
  if (input_prefixes.empty()) {
    return Status::InvalidArgument("megatron merge: give at least one input prefix");
  }
  std::error_code ec;
  for (const std::string& prefix : input_prefixes) {
    if (prefix == output_prefix ||
        std::filesystem::equivalent(prefix + ".bin", output_prefix + ".bin", ec)) {
      return Status::InvalidArgument("megatron merge: the output prefix " + output_prefix +
                                     " is also an input; choose another output");
    }
  }
  std::vector<ShardFile> files;
  bool created = false;
  Status status = Merge(input_prefixes, output_prefix, open, &files, &created);
  if (!status.ok() && created) {
    (void)RemoveFile(output_prefix + ".bin");
    (void)RemoveFile(output_prefix + ".idx");
  }
  if (!status.ok()) return status;
  return files;
}

}  // namespace tokenmill
