#include "tokenmill/formats/megatron_merge.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <system_error>
#include <utility>

#include "tokenmill/base/endian.h"
#include "tokenmill/formats/megatron.h"
#include "tokenmill/formats/output_file.h"

namespace tokenmill {
namespace {

constexpr uint64_t kChunkBytes = 4 << 20;

std::string BaseName(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

// Appends the bytes of `source` to `out`, kChunkBytes at a time, front to back.
Status AppendSource(const ByteSource& source, OutputFile* out) {
  for (uint64_t pos = 0; pos < source.size; pos += kChunkBytes) {
    TM_ASSIGN_OR_RETURN(std::string chunk, source.read_at(pos, kChunkBytes));
    if (chunk.empty()) {
      return Status::DataLoss(source.name + ": ended at byte offset " + std::to_string(pos) +
                              " while being merged (changed meanwhile?)");
    }
    TM_RETURN_IF_ERROR(out->Append(chunk));
    if (chunk.size() < kChunkBytes && pos + chunk.size() < source.size) {
      return Status::DataLoss(source.name + ": short read at byte offset " + std::to_string(pos));
    }
  }
  return Status::Ok();
}

// The merge's own files beside the output prefix, removed when this goes (those renamed into
// place are gone by then).
struct ScratchFiles {
  std::string stem;
  std::string Path(std::string_view ext) const { return stem + std::string(ext); }
  ~ScratchFiles() {
    for (const char* ext : {".bin", ".idx", ".lengths", ".pointers", ".documents"}) {
      (void)RemoveFile(Path(ext));
    }
  }
};

// The merged index's three sections are written to their own scratch files as the parts go by,
// then joined behind the header; the merged files get their names only once complete.
Status Merge(const std::vector<std::string>& inputs, const std::string& output_prefix,
             const SourceOpener& open, std::vector<ShardFile>* files) {
  const ScratchFiles scratch{output_prefix + ".merging"};
  TM_ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> bin, OutputFile::Create(scratch.Path(".bin")));
  TM_ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> lengths,
                      OutputFile::Create(scratch.Path(".lengths")));
  TM_ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> pointers,
                      OutputFile::Create(scratch.Path(".pointers")));
  TM_ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> documents,
                      OutputFile::Create(scratch.Path(".documents")));
  std::optional<uint8_t> dtype;
  uint64_t sequences = 0, document_count = 1, tokens = 0;
  int64_t pointer = 0;  // where the next sequence starts in the merged .bin
  std::string buffer;
  PutFixedLE<int64_t>(&buffer, 0);  // the merged document indices' leading 0
  TM_RETURN_IF_ERROR(documents->Append(buffer));
  for (const std::string& prefix : inputs) {
    // One part at a time: its index is checked against its .bin's size before either is used.
    TM_ASSIGN_OR_RETURN(ByteSource idx, open(prefix + ".idx"));
    TM_ASSIGN_OR_RETURN(ByteSource part_bin, open(prefix + ".bin"));
    TM_ASSIGN_OR_RETURN(std::string idx_bytes, idx.read_at(0, idx.size));
    TM_ASSIGN_OR_RETURN(MegatronIndex index,
                        ParseMegatronIndex(idx_bytes, idx.name, part_bin.size));
    idx_bytes = std::string();
    if (dtype.has_value() && index.dtype != *dtype) {
      return Status::InvalidArgument(
          "cannot merge " + idx.name + " (dtype " + std::string(MegatronDTypeName(index.dtype)) +
          ") with " + inputs.front() + ".idx (dtype " + std::string(MegatronDTypeName(*dtype)) +
          "): write every part with the same vocabulary size");
    }
    dtype = index.dtype;
    const auto item = static_cast<int64_t>(MegatronDTypeSize(index.dtype));
    buffer.clear();
    for (int32_t len : index.sequence_lengths) PutFixedLE<int32_t>(&buffer, len);
    TM_RETURN_IF_ERROR(lengths->Append(buffer));
    buffer.clear();
    for (int32_t len : index.sequence_lengths) {
      PutFixedLE<int64_t>(&buffer, pointer);
      pointer += static_cast<int64_t>(len) * item;
    }
    TM_RETURN_IF_ERROR(pointers->Append(buffer));
    buffer.clear();
    for (size_t j = 1; j < index.document_indices.size(); ++j) {
      PutFixedLE<int64_t>(&buffer, static_cast<int64_t>(sequences) + index.document_indices[j]);
    }
    TM_RETURN_IF_ERROR(documents->Append(buffer));
    sequences += index.sequence_lengths.size();
    document_count += index.document_indices.size() - 1;
    tokens += index.total_tokens;
    TM_RETURN_IF_ERROR(AppendSource(part_bin, bin.get()));
  }
  buffer = std::string();
  TM_RETURN_IF_ERROR(bin->Close());
  TM_RETURN_IF_ERROR(lengths->Close());
  TM_RETURN_IF_ERROR(pointers->Close());
  TM_RETURN_IF_ERROR(documents->Close());

  TM_ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> idx, OutputFile::Create(scratch.Path(".idx")));
  TM_RETURN_IF_ERROR(idx->Append(
      EncodeMegatronIndexHeader(static_cast<MegatronDType>(*dtype), sequences, document_count)));
  for (const OutputFile* section : {lengths.get(), pointers.get(), documents.get()}) {
    TM_ASSIGN_OR_RETURN(ByteSource source, LocalFileSource(section->path()));
    TM_RETURN_IF_ERROR(AppendSource(source, idx.get()));
  }
  TM_RETURN_IF_ERROR(idx->Close());

  std::error_code ec;
  for (const std::string ext : {".bin", ".idx"}) {
    std::filesystem::rename(scratch.Path(ext), output_prefix + ext, ec);
    if (ec) {
      if (ext == ".idx") (void)RemoveFile(output_prefix + ".bin");
      return Status::IoError("cannot rename " + scratch.Path(ext) + " to " + output_prefix + ext +
                             ": " + ec.message());
    }
  }
  ShardFile bin_file;
  bin_file.name = BaseName(output_prefix + ".bin");
  bin_file.local_path = output_prefix + ".bin";
  bin_file.bytes = bin->bytes();
  bin_file.sha256 = bin->sha256();
  bin_file.examples = sequences;
  bin_file.tokens = tokens;
  ShardFile idx_file;
  idx_file.name = BaseName(output_prefix + ".idx");
  idx_file.local_path = output_prefix + ".idx";
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
  TM_RETURN_IF_ERROR(Merge(input_prefixes, output_prefix, open, &files));
  return files;
}

}  // namespace tokenmill
