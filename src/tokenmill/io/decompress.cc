#include "tokenmill/io/decompress.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <memory>

#include "tokenmill/base/log.h"

namespace tokenmill {
namespace {

std::string_view Extension(std::string_view url) {
  const size_t slash = url.find_last_of('/');
  const std::string_view base = slash == std::string_view::npos ? url : url.substr(slash + 1);
  const size_t dot = base.find_last_of('.');
  return dot == std::string_view::npos ? std::string_view() : base.substr(dot);
}

class PlainStream : public DecodingStream {
 public:
  explicit PlainStream(std::unique_ptr<ReadStream> raw) : raw_(std::move(raw)) {}

  StatusOr<size_t> Read(char* buf, size_t n) override {
    TM_ASSIGN_OR_RETURN(const size_t got, raw_->Read(buf, n));
    bytes_in_ += got;
    return got;
  }
  uint64_t bytes_in() const override { return bytes_in_; }
  uint64_t bytes_out() const override { return bytes_in_; }

 private:
  std::unique_ptr<ReadStream> raw_;
  uint64_t bytes_in_ = 0;
};

// Shared input side: a fixed buffer refilled from the raw stream.
class CompressedInput {
 public:
  explicit CompressedInput(std::unique_ptr<ReadStream> raw)
      : raw_(std::move(raw)), buf_(new char[kDecodeBufferSize]) {}

  // Refills the buffer if it is consumed. Sets eof() when the raw stream ends.
  Status Refill() {
    if (pos_ < len_ || eof_) return Status::Ok();
    TM_ASSIGN_OR_RETURN(const size_t got, raw_->Read(buf_.get(), kDecodeBufferSize));
    pos_ = 0;
    len_ = got;
    bytes_in_ += got;
    if (got == 0) eof_ = true;
    return Status::Ok();
  }
  const char* data() const { return buf_.get() + pos_; }
  size_t available() const { return len_ - pos_; }
  void Consume(size_t k) { pos_ += k; }
  bool eof() const { return eof_ && pos_ == len_; }
  uint64_t bytes_in() const { return bytes_in_; }
  // Compressed offset of the next unconsumed byte.
  uint64_t offset() const { return bytes_in_ - (len_ - pos_); }

 private:
  std::unique_ptr<ReadStream> raw_;
  std::unique_ptr<char[]> buf_;  // not zero-filled: only bytes read are used
  size_t pos_ = 0;
  size_t len_ = 0;
  bool eof_ = false;
  uint64_t bytes_in_ = 0;
};

class GzipStream : public DecodingStream {
 public:
  GzipStream(std::unique_ptr<ReadStream> raw, std::string name)
      : in_(std::move(raw)), name_(std::move(name)) {
    // 15 + 16: a 32 KiB window and a gzip (not zlib) header.
    init_status_ = inflateInit2(&z_, 15 + 16);
  }
  ~GzipStream() override {
    if (init_status_ == Z_OK) inflateEnd(&z_);
  }

  uint64_t bytes_in() const override { return in_.bytes_in(); }
  uint64_t bytes_out() const override { return bytes_out_; }

  StatusOr<size_t> Read(char* buf, size_t n) override {
    if (init_status_ != Z_OK) {
      return Status::Internal(name_ + ": cannot initialise zlib (out of memory?)");
    }
    if (done_ || n == 0) return size_t{0};
    while (true) {
      TM_RETURN_IF_ERROR(in_.Refill());
      if (between_members_) {
        if (in_.eof()) {
          done_ = true;
          return size_t{0};
        }
        if (static_cast<unsigned char>(in_.data()[0]) != 0x1F) {
          TM_RETURN_IF_ERROR(SkipTrailingZeros());
          done_ = true;
          return size_t{0};
        }
        between_members_ = false;
      }
      z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in_.data()));
      z_.avail_in = static_cast<uInt>(std::min<size_t>(in_.available(), UINT32_MAX));
      z_.next_out = reinterpret_cast<Bytef*>(buf);
      z_.avail_out = static_cast<uInt>(std::min<size_t>(n, UINT32_MAX));
      const uInt avail_in_before = z_.avail_in;
      const int ret = inflate(&z_, Z_NO_FLUSH);
      const size_t consumed = avail_in_before - z_.avail_in;
      const size_t produced = std::min<size_t>(n, UINT32_MAX) - z_.avail_out;
      in_.Consume(consumed);
      bytes_out_ += produced;
      if (ret == Z_STREAM_END) {
        inflateReset(&z_);
        between_members_ = true;
        ++members_;
      } else if (ret == Z_OK || ret == Z_BUF_ERROR) {
        if (produced == 0 && consumed == 0 && in_.eof()) return Truncated();
      } else {
        return Status::DataLoss(
            name_ + ": corrupt gzip data at compressed byte " + std::to_string(in_.offset()) +
            " (zlib: " + (z_.msg != nullptr ? z_.msg : "error " + std::to_string(ret)) +
            "); the file is damaged: re-create or re-copy it");
      }
      if (produced > 0) return produced;
    }
  }

 private:
  Status Truncated() const {
    if (in_.bytes_in() == 0) {
      return Status::DataLoss(name_ +
                              ": the file is empty (0 bytes), which is not valid gzip data; "
                              "remove it or re-create it");
    }
    return Status::DataLoss(name_ + ": truncated gzip data: the file ends at compressed byte " +
                            std::to_string(in_.offset()) + " inside gzip member " +
                            std::to_string(members_ + 1) + " (after " + std::to_string(bytes_out_) +
                            " decompressed bytes); the file is incomplete: re-copy or "
                            "re-create it");
  }

  // After the last member: zero padding is ignored (as gzip does), anything else is an error.
  Status SkipTrailingZeros() {
    const uint64_t start = in_.offset();
    while (true) {
      TM_RETURN_IF_ERROR(in_.Refill());
      if (in_.eof()) break;
      const char* p = in_.data();
      for (size_t i = 0; i < in_.available(); ++i) {
        if (p[i] != 0) {
          return Status::DataLoss(name_ +
                                  ": trailing garbage after the gzip data at compressed "
                                  "byte " +
                                  std::to_string(in_.offset() + i) +
                                  " (not a gzip member); the file is damaged or not gzip: "
                                  "re-create it");
        }
      }
      in_.Consume(in_.available());
    }
    LogWarning(name_ + ": ignored " + std::to_string(in_.offset() - start) +
               " zero bytes after the gzip data");
    return Status::Ok();
  }

  CompressedInput in_;
  std::string name_;
  z_stream z_{};
  int init_status_ = Z_OK;
  bool between_members_ = false;
  bool done_ = false;
  uint64_t members_ = 0;
  uint64_t bytes_out_ = 0;
};

class ZstdStream : public DecodingStream {
 public:
  ZstdStream(std::unique_ptr<ReadStream> raw, std::string name)
      : in_(std::move(raw)), name_(std::move(name)), dctx_(ZSTD_createDCtx()) {}
  ~ZstdStream() override { ZSTD_freeDCtx(dctx_); }

  uint64_t bytes_in() const override { return in_.bytes_in(); }
  uint64_t bytes_out() const override { return bytes_out_; }

  StatusOr<size_t> Read(char* buf, size_t n) override {
    if (dctx_ == nullptr) return Status::Internal(name_ + ": cannot create a zstd context");
    if (done_ || n == 0) return size_t{0};
    while (true) {
      TM_RETURN_IF_ERROR(in_.Refill());
      ZSTD_inBuffer input{in_.data(), in_.available(), 0};
      ZSTD_outBuffer output{buf, n, 0};
      const size_t ret = ZSTD_decompressStream(dctx_, &output, &input);
      in_.Consume(input.pos);
      bytes_out_ += output.pos;
      if (ZSTD_isError(ret)) {
        return Status::DataLoss(name_ + ": corrupt zstd data near compressed byte " +
                                std::to_string(in_.offset()) + " (zstd: " + ZSTD_getErrorName(ret) +
                                "); the file is damaged: re-create or re-copy it");
      }
      // A call that makes no progress says nothing about the frame (after a complete frame,
      // zstd answers an empty input with the size of the next frame's header).
      if (input.pos > 0 || output.pos > 0) frame_open_ = ret != 0;
      if (output.pos > 0) return output.pos;
      if (in_.eof() && input.pos == 0) {
        if (in_.bytes_in() == 0) {
          return Status::DataLoss(name_ +
                                  ": the file is empty (0 bytes), which is not valid zstd data; "
                                  "remove it or re-create it");
        }
        if (frame_open_) {
          return Status::DataLoss(name_ +
                                  ": truncated zstd data: the file ends at compressed "
                                  "byte " +
                                  std::to_string(in_.offset()) + " inside a zstd frame (after " +
                                  std::to_string(bytes_out_) +
                                  " decompressed bytes); the file is incomplete: re-copy or "
                                  "re-create it");
        }
        done_ = true;
        return size_t{0};
      }
    }
  }

 private:
  CompressedInput in_;
  std::string name_;
  ZSTD_DCtx* dctx_;
  bool frame_open_ = false;
  bool done_ = false;
  uint64_t bytes_out_ = 0;
};

}  // namespace

Compression CompressionForUrl(std::string_view url) {
  const std::string_view ext = Extension(url);
  if (ext == ".gz") return Compression::kGzip;
  if (ext == ".zst") return Compression::kZstd;
  return Compression::kNone;
}

std::string_view CompressionName(Compression c) {
  switch (c) {
    case Compression::kNone:
      return "none";
    case Compression::kGzip:
      return "gzip";
    case Compression::kZstd:
      return "zstd";
  }
  return "none";
}

std::unique_ptr<DecodingStream> NewDecodingStream(std::unique_ptr<ReadStream> raw,
                                                  Compression compression, std::string name) {
  switch (compression) {
    case Compression::kGzip:
      return std::make_unique<GzipStream>(std::move(raw), std::move(name));
    case Compression::kZstd:
      return std::make_unique<ZstdStream>(std::move(raw), std::move(name));
    case Compression::kNone:
      break;
  }
  return std::make_unique<PlainStream>(std::move(raw));
}

}  // namespace tokenmill
