#include "tokenmill/base/status.h"

#include <gtest/gtest.h>

namespace tokenmill {
namespace {

StatusOr<int> Half(int x) {
  if (x % 2) return Status::InvalidArgument("odd");
  return x / 2;
}

Status UseHalf(int x, int* out) {
  TM_ASSIGN_OR_RETURN(*out, Half(x));
  TM_RETURN_IF_ERROR(Status::Ok());
  return Status::Ok();
}

TEST(Status, Basics) {
  EXPECT_TRUE(Status().ok());
  Status s = Status::NotFound("x.txt missing");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.ToString(), "NotFound: x.txt missing");
  EXPECT_EQ(s.WithContext("reading").message(), "reading: x.txt missing");
  EXPECT_TRUE(s.Is(StatusCode::kNotFound));
}

TEST(StatusOr, Macros) {
  int out = 0;
  EXPECT_TRUE(UseHalf(4, &out).ok());
  EXPECT_EQ(out, 2);
  Status s = UseHalf(3, &out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tokenmill
