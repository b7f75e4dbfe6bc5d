#include "tokenmill/storage/curl_library.h"

#include <gtest/gtest.h>

#include <string>

namespace tokenmill {
namespace {

TEST(CurlLibraryTest, LoadsOnceWithEveryFunction) {
  auto first = Curl();
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto second = Curl();
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*first, *second);
  const CurlLibrary& lib = **first;
  EXPECT_STREQ(lib.easy_strerror(CURLE_OK), "No error");
  CURL* handle = lib.easy_init();
  ASSERT_NE(handle, nullptr);
  EXPECT_EQ(lib.easy_setopt(handle, CURLOPT_URL, "http://127.0.0.1:1/"), CURLE_OK);
  lib.easy_reset(handle);
  lib.easy_cleanup(handle);
  curl_slist* list = lib.slist_append(nullptr, "x-a: 1");
  ASSERT_NE(list, nullptr);
  lib.slist_free_all(list);
}

TEST(CurlLibraryTest, AnAbsentLibrarySaysWhatToInstall) {
  auto lib = LoadCurlLibrary("libtokenmill-absent-curl.so.4");
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().code(), StatusCode::kInvalidArgument);
  const std::string m = lib.status().message();
  EXPECT_NE(m.find("libtokenmill-absent-curl.so.4"), std::string::npos) << m;
  EXPECT_NE(m.find("s3://"), std::string::npos) << m;
  EXPECT_NE(m.find("apt-get install libcurl4"), std::string::npos) << m;
}

TEST(CurlLibraryTest, ALibraryWithoutCurlsFunctionsIsNamed) {
  auto lib = LoadCurlLibrary("libz.so.1");
  ASSERT_FALSE(lib.ok());
  const std::string m = lib.status().message();
  EXPECT_NE(m.find("libz.so.1 lacks curl_global_init"), std::string::npos) << m;
  EXPECT_NE(m.find("curl_easy_setopt"), std::string::npos) << m;
}

TEST(CurlLibraryTest, OnlyLibcurl775OrNewerIsTaken) {
  curl_version_info_data data{};
  data.version = "7.74.0";
  data.version_num = 0x074A00;
  const Status old = CheckCurlVersion(&data, "libcurl.so.4");
  EXPECT_EQ(old.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(old.message().find("libcurl.so.4 is libcurl 7.74.0, older than 7.75"),
            std::string::npos)
      << old.message();
  EXPECT_NE(old.message().find("install libcurl 7.75 or newer"), std::string::npos);
  data.version = "7.75.0";
  data.version_num = 0x074B00;
  EXPECT_TRUE(CheckCurlVersion(&data, "libcurl.so.4").ok());
  data.version = "8.11.1";
  data.version_num = 0x080B01;
  EXPECT_TRUE(CheckCurlVersion(&data, "libcurl.so.4").ok());
  EXPECT_NE(CheckCurlVersion(nullptr, "x.so").message().find("x.so is libcurl (unknown)"),
            std::string::npos);
}

// A libcurl built with CURL_DISABLE_AWS: every function real, but CURLOPT_AWS_SIGV4 not built in.
CURLcode SetoptWithoutSigV4(CURL*, CURLoption option, ...) {
  return option == CURLOPT_AWS_SIGV4 ? CURLE_NOT_BUILT_IN : CURLE_OK;
}

TEST(CurlLibraryTest, ALibraryThatCannotSignIsRefused) {
  auto real = Curl();
  ASSERT_TRUE(real.ok()) << real.status().ToString();
  EXPECT_TRUE(CheckCurlFeatures(**real, "libcurl.so.4").ok());
  CurlLibrary unsigned_only = **real;
  unsigned_only.easy_setopt = SetoptWithoutSigV4;
  const Status refused = CheckCurlFeatures(unsigned_only, "libcurl-nosigv4.so.4");
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  const std::string m = refused.message();
  EXPECT_NE(m.find("libcurl-nosigv4.so.4 cannot sign S3 and GCS requests"), std::string::npos) << m;
  EXPECT_NE(m.find("CURLOPT_AWS_SIGV4: " + std::string((**real).easy_strerror(CURLE_NOT_BUILT_IN))),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("CURL_DISABLE_AWS"), std::string::npos) << m;
}

TEST(CurlLibraryTest, ARefusedOptionIsNamedByLibcurl) {
  auto lib = Curl();
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();
  const Status named = CurlOptionError(**lib, CURLOPT_AWS_SIGV4, CURLE_NOT_BUILT_IN);
  EXPECT_EQ(named.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(named.message().find("libcurl refused CURLOPT_AWS_SIGV4 (" +
                                 std::string((**lib).easy_strerror(CURLE_NOT_BUILT_IN)) + ")"),
            std::string::npos)
      << named.message();
  const Status numbered =
      CurlOptionError(**lib, static_cast<CURLoption>(99999), CURLE_BAD_FUNCTION_ARGUMENT);
  EXPECT_NE(numbered.message().find("libcurl refused option 99999"), std::string::npos)
      << numbered.message();
}

}  // namespace
}  // namespace tokenmill
