#include "tokenmill/base/log.h"

#include <gtest/gtest.h>

namespace tokenmill {
namespace {

TEST(Redact, HeadersQueryAndJson) {
  EXPECT_EQ(RedactSecrets("Authorization: AWS4-HMAC-SHA256 Credential=AKIA/x, Signature=abc"),
            "Authorization: [REDACTED]");
  EXPECT_EQ(RedactSecrets("GET /b/k?X-Amz-Signature=deadbeef&x=1"),
            "GET /b/k?X-Amz-Signature=[REDACTED]&x=1");
  EXPECT_EQ(RedactSecrets(R"({"access_token":"ya29.secret","expires_in":3599})"),
            R"({"access_token":"[REDACTED]","expires_in":3599})");
}

TEST(Redact, RegisteredLiterals) {
  RegisterSecret("supersecretvalue123");
  EXPECT_EQ(RedactSecrets("key supersecretvalue123 leaked"), "key [REDACTED] leaked");
}

}  // namespace
}  // namespace tokenmill

namespace tokenmill {
namespace {

TEST(Redact, EveryCarrierAndNothingElse) {
  EXPECT_EQ(RedactSecrets("authorization: Bearer ya29.abc\nnext line"),
            "authorization: [REDACTED]\nnext line");
  EXPECT_EQ(RedactSecrets("?X-Amz-Credential=AKIA%2F1&X-Amz-Security-Token=tok 'x'"),
            "?X-Amz-Credential=[REDACTED]&X-Amz-Security-Token=[REDACTED] 'x'");
  EXPECT_EQ(RedactSecrets(R"({"token": "abc", "name": "keep"})"),
            R"({"token": "[REDACTED]", "name": "keep"})");
  EXPECT_EQ(RedactSecrets("s3://bucket/key returned 403 AccessDenied"),
            "s3://bucket/key returned 403 AccessDenied");
}

}  // namespace
}  // namespace tokenmill
