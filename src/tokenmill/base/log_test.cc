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
