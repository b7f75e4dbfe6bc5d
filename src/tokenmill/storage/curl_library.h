// CurlLibrary: libcurl's functions, loaded from libcurl.so.4 the first time a remote path
// (s3://, gs://, http(s)://, the GCE metadata server) is used. A local job never loads libcurl
// and the two dozen libraries it pulls in (TLS, HTTP/2, Kerberos, LDAP...), whose symbol
// binding would otherwise cost every tokenmill process about 10 ms at start.
#pragma once

#include <curl/curl.h>

#include "tokenmill/base/status.h"

namespace tokenmill {

// The oldest libcurl that works: 7.75.0, the first with CURLOPT_AWS_SIGV4.
inline constexpr unsigned kMinimumCurlVersion = 0x074B00;

struct CurlLibrary {
  CURL* (*easy_init)();
  void (*easy_reset)(CURL*);
  void (*easy_cleanup)(CURL*);
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_perform)(CURL*);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  const char* (*easy_strerror)(CURLcode);
  curl_slist* (*slist_append)(curl_slist*, const char*);
  void (*slist_free_all)(curl_slist*);
  const curl_easyoption* (*easy_option_by_id)(CURLoption);
};

// libcurl, loaded and initialised (curl_global_init) once per process; later calls return the
// same functions, or the same error: which library could not be loaded, why, and what to install.
StatusOr<const CurlLibrary*> Curl();

// Ok for libcurl 7.75 or newer; otherwise InvalidArgument naming the version found (an older
// libcurl would send S3 and GCS requests unsigned).
Status CheckCurlVersion(const curl_version_info_data* version, const char* soname);

// Ok when `lib` signs requests: CURLOPT_AWS_SIGV4 is built in. A libcurl built without it
// (CURL_DISABLE_AWS) accepts the other options and would send S3 and GCS requests unsigned,
// which a bucket answers with 403 (and a public bucket would serve); InvalidArgument instead.
Status CheckCurlFeatures(const CurlLibrary& lib, const char* soname);

// The error of a request option that libcurl refused: the option's name (as libcurl knows it),
// libcurl's reason, and what to do.
Status CurlOptionError(const CurlLibrary& lib, CURLoption option, CURLcode code);

// The loader behind Curl() for the library file `soname`, without the process-wide cache (for
// tests: an absent library gives the error Curl() would).
StatusOr<CurlLibrary> LoadCurlLibrary(const char* soname);

}  // namespace tokenmill
