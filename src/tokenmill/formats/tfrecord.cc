#include "tokenmill/formats/tfrecord.h"

#include <cstdio>
#include <utility>

#include "tokenmill/base/crc32c.h"
#include "tokenmill/base/endian.h"
#include "tokenmill/formats/rolling_shard_writer.h"
#include "tokenmill/formats/tf_example.h"

namespace tokenmill {
namespace {

std::string Hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", v);
  return buf;
}

}  // namespace

void AppendTfRecord(std::string_view data, std::string* out) {
  std::string header;
  PutFixedLE<uint64_t>(&header, data.size());
  PutFixedLE<uint32_t>(&header, crc32c::Mask(crc32c::Value(header)));
  out->append(header);
  out->append(data);
  PutFixedLE<uint32_t>(out, crc32c::Mask(crc32c::Value(data)));
}

TfRecordReader::TfRecordReader(const ByteSource& source) : source_(source), in_(source) {}

StatusOr<bool> TfRecordReader::Next(std::string_view* data) {
  const uint64_t offset = in_.position();
  if (in_.remaining() == 0) return false;
  auto corrupt = [&](const std::string& what) {
    return Status::DataLoss(source_.name + ": corrupt TFRecord at byte offset " +
                            std::to_string(offset) + ": " + what +
                            "; the file is damaged, write it again");
  };
  std::string_view header;
  TM_ASSIGN_OR_RETURN(bool got, in_.Read(12, &header));
  if (!got) {
    return corrupt("the file ends inside a record header (" + std::to_string(in_.remaining()) +
                   " bytes left, 12 needed)");
  }
  const uint64_t length = GetFixedLE<uint64_t>(header.data());
  const uint32_t stored = GetFixedLE<uint32_t>(header.data() + 8);
  const uint32_t computed = crc32c::Mask(crc32c::Value(header.data(), 8));
  if (stored != computed) {
    return corrupt("length CRC mismatch (stored " + Hex32(stored) + ", computed " +
                   Hex32(computed) + ")");
  }
  if (length > in_.remaining() || in_.remaining() - length < 4) {
    return corrupt("record length " + std::to_string(length) + " runs past the end of the file (" +
                   std::to_string(in_.remaining()) + " bytes left)");
  }
  std::string_view framed;  // data + its CRC, read together
  TM_ASSIGN_OR_RETURN(got, in_.Read(length + 4, &framed));
  if (!got) return corrupt("the file ends inside a record");
  const uint32_t data_stored = GetFixedLE<uint32_t>(framed.data() + length);
  const uint32_t data_computed = crc32c::Mask(crc32c::Value(framed.data(), length));
  if (data_stored != data_computed) {
    return corrupt("data CRC mismatch (stored " + Hex32(data_stored) + ", computed " +
                   Hex32(data_computed) + ")");
  }
  record_offset_ = offset;
  *data = framed.substr(0, length);
  return true;
}

namespace {

class TfRecordShardWriter : public RollingShardWriter {
 public:
  using RollingShardWriter::RollingShardWriter;

 protected:
  StatusOr<uint64_t> EncodeRecord(const Example& example) override {
    if (example.more) {
      return Status::InvalidArgument("tfrecord examples cannot come in parts (Example::more)");
    }
    payload_.clear();
    EncodeTfExample(example, &payload_);
    record_.clear();
    AppendTfRecord(payload_, &record_);
    return record_.size();
  }
  uint64_t EmptyShardBytes() const override { return 0; }
  Status OpenShard(const std::string& dir, const std::string& stem) override {
    name_ = stem + ".tfrecord";
    TM_ASSIGN_OR_RETURN(file_, CreateFile(dir, name_));
    return Status::Ok();
  }
  Status WriteRecord() override { return file_->Append(record_); }
  Status CloseShard(uint64_t examples, uint64_t tokens, std::vector<ShardFile>* files) override {
    std::unique_ptr<OutputFile> file = std::move(file_);
    TM_ASSIGN_OR_RETURN(ShardFile done, CompleteFile(*file, name_, examples, tokens));
    files->push_back(std::move(done));
    return Status::Ok();
  }
  void DropShard() override { file_.reset(); }

 private:
  std::string payload_;
  std::string record_;
  std::string name_;
  std::unique_ptr<OutputFile> file_;
};

}  // namespace

StatusOr<std::unique_ptr<ShardWriter>> NewTfRecordShardWriter(const ShardWriterOptions& options) {
  return std::unique_ptr<ShardWriter>(new TfRecordShardWriter(options));
}

}  // namespace tokenmill
