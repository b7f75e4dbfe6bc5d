// MappedFile: a local regular file mapped read-only, whole, for reading text in place (no copy
// into a buffer).
//
// A mapped file that another process truncates while it is read makes the next read of a page
// past its new end raise SIGBUS. While a MappedFile is open, a SIGBUS inside its mapping ends
// the process with a message that names the file and exit status 1, instead of a crash; other
// SIGBUS signals keep their default action. One MappedFile at a time per process (the last one
// opened is the guarded one).
// Thread-safety: const methods may be called from many threads.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace tokenmill {

class MappedFile {
 public:
  // Pages before a position are given back to the kernel in steps of this many bytes.
  static constexpr size_t kReleaseBytes = size_t{16} << 20;
  // Populate() maps this many bytes ahead.
  static constexpr size_t kPopulateBytes = size_t{2} << 20;

  // Null if `path` is not a non-empty regular file that can be mapped (the caller then reads it
  // as a stream).
  static std::unique_ptr<MappedFile> Open(const std::string& path);
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::string_view text() const { return {data_, size_}; }
  // Maps the pages of the next kPopulateBytes from `pos` in one call (one fault per page is
  // slower; where the kernel lacks MADV_POPULATE_READ the pages fault in as they are read).
  // Returns the end of that range.
  size_t Populate(size_t pos) const;
  // Drops the pages wholly before `pos` from this process (they stay in the page cache); returns
  // the position up to which they were dropped.
  size_t Release(size_t pos) const;

 private:
  MappedFile(const char* data, size_t size) : data_(data), size_(size) {}
  const char* data_;
  size_t size_;
};

}  // namespace tokenmill
