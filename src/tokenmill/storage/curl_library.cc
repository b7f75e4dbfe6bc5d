#include "tokenmill/storage/curl_library.h"

#include <dlfcn.h>

#include <string>
#include <type_traits>

namespace tokenmill {

Status CheckCurlVersion(const curl_version_info_data* version, const char* soname) {
  if (version != nullptr && version->version_num >= kMinimumCurlVersion) return Status::Ok();
  return Status::InvalidArgument(
      std::string(soname) + " is libcurl " +
      (version != nullptr && version->version != nullptr ? version->version : "(unknown)") +
      ", older than 7.75, the first that signs S3 and GCS requests (CURLOPT_AWS_SIGV4): "
      "install libcurl 7.75 or newer");
}

Status CheckCurlFeatures(const CurlLibrary& lib, const char* soname) {
  CURL* handle = lib.easy_init();
  if (handle == nullptr) return Status::Internal("libcurl could not create a handle");
  const CURLcode code = lib.easy_setopt(handle, CURLOPT_AWS_SIGV4, "aws:amz");
  lib.easy_cleanup(handle);
  if (code == CURLE_OK) return Status::Ok();
  return Status::InvalidArgument(
      std::string(soname) +
      " cannot sign S3 and GCS requests (CURLOPT_AWS_SIGV4: " + lib.easy_strerror(code) +
      "; it was built with CURL_DISABLE_AWS): install a libcurl 7.75 or newer built with it, "
      "such as Debian's and Ubuntu's libcurl4");
}

Status CurlOptionError(const CurlLibrary& lib, CURLoption option, CURLcode code) {
  const curl_easyoption* known = lib.easy_option_by_id(option);
  std::string name = known != nullptr && known->name != nullptr
                         ? std::string("CURLOPT_") + known->name
                         : "option " + std::to_string(static_cast<int>(option));
  return Status::InvalidArgument("libcurl refused " + name + " (" + lib.easy_strerror(code) +
                                 "): install libcurl 7.75 or newer with its default features");
}

StatusOr<CurlLibrary> LoadCurlLibrary(const char* soname) {
  // Never unloaded: handles and the global state live until the process ends.
  void* handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Status::InvalidArgument(
        std::string("remote paths (s3://, gs://, http(s)://) need libcurl, and ") + soname +
        " could not be loaded (" + (why != nullptr ? why : "unknown reason") +
        "): install libcurl 7.75 or newer (Debian and Ubuntu: apt-get install libcurl4)");
  }
  auto fail = [handle](Status status) {
    dlclose(handle);
    return status;
  };
  CurlLibrary lib{};
  std::string missing;
  auto find = [&](auto* fn, const char* name) {
    void* sym = dlsym(handle, name);
    if (sym == nullptr) missing += std::string(missing.empty() ? "" : ", ") + name;
    *fn = reinterpret_cast<std::remove_pointer_t<decltype(fn)>>(sym);
  };
  CURLcode (*global_init)(long) = nullptr;
  curl_version_info_data* (*version_info)(CURLversion) = nullptr;
  find(&global_init, "curl_global_init");
  find(&version_info, "curl_version_info");
  find(&lib.easy_init, "curl_easy_init");
  find(&lib.easy_reset, "curl_easy_reset");
  find(&lib.easy_cleanup, "curl_easy_cleanup");
  find(&lib.easy_setopt, "curl_easy_setopt");
  find(&lib.easy_perform, "curl_easy_perform");
  find(&lib.easy_getinfo, "curl_easy_getinfo");
  find(&lib.easy_strerror, "curl_easy_strerror");
  find(&lib.slist_append, "curl_slist_append");
  find(&lib.slist_free_all, "curl_slist_free_all");
  find(&lib.easy_option_by_id, "curl_easy_option_by_id");
  void (*global_cleanup)() = nullptr;
  find(&global_cleanup, "curl_global_cleanup");
  if (!missing.empty()) {
    return fail(Status::InvalidArgument(std::string(soname) + " lacks " + missing +
                                        ": install libcurl 7.75 or newer"));
  }
  if (Status old = CheckCurlVersion(version_info(CURLVERSION_NOW), soname); !old.ok()) {
    return fail(old);
  }
  const CURLcode init = global_init(CURL_GLOBAL_DEFAULT);
  if (init != CURLE_OK) {
    return fail(
        Status::Internal(std::string("curl_global_init failed: ") + lib.easy_strerror(init)));
  }
  if (Status unsigned_only = CheckCurlFeatures(lib, soname); !unsigned_only.ok()) {
    global_cleanup();
    return fail(unsigned_only);
  }
  return lib;
}

StatusOr<const CurlLibrary*> Curl() {
  // Loaded once, by the first thread to ask (a function-local static is thread-safe).
  static const StatusOr<CurlLibrary> loaded = LoadCurlLibrary("libcurl.so.4");
  if (!loaded.ok()) return loaded.status();
  return &*loaded;
}

}  // namespace tokenmill
