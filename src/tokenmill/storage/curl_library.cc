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
  return lib;
}

StatusOr<const CurlLibrary*> Curl() {
  // Loaded once, by the first thread to ask (a function-local static is thread-safe).
  static const StatusOr<CurlLibrary> loaded = LoadCurlLibrary("libcurl.so.4");
  if (!loaded.ok()) return loaded.status();
  return &*loaded;
}

}  // namespace tokenmill
