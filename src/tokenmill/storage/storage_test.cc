#include "tokenmill/storage/storage.h"

#include <gtest/gtest.h>

namespace tokenmill {
namespace {

TEST(PathHelpersTest, IsUrl) {
  EXPECT_TRUE(IsUrl("s3://b/k"));
  EXPECT_TRUE(IsUrl("gs://b/k"));
  EXPECT_TRUE(IsUrl("file:///x"));
  EXPECT_FALSE(IsUrl("/x/y"));
  EXPECT_FALSE(IsUrl("relative/y"));
  EXPECT_FALSE(IsUrl("http://example.com/x"));
}

TEST(PathHelpersTest, JoinPathUsesExactlyOneSlash) {
  EXPECT_EQ(JoinPath("s3://b/job", "done/1"), "s3://b/job/done/1");
  EXPECT_EQ(JoinPath("s3://b/job/", "done/1"), "s3://b/job/done/1");
  EXPECT_EQ(JoinPath("s3://b/job/", "/done/1"), "s3://b/job/done/1");
  EXPECT_EQ(JoinPath("/x", "y"), "/x/y");
  EXPECT_EQ(JoinPath("/", "y"), "/y");
  EXPECT_EQ(JoinPath("", "y"), "y");
  EXPECT_EQ(JoinPath("file:///a", "b"), "file:///a/b");
}

TEST(PathHelpersTest, Dirname) {
  EXPECT_EQ(Dirname("s3://b/x/y"), "s3://b/x");
  EXPECT_EQ(Dirname("s3://b/x"), "s3://b");
  EXPECT_EQ(Dirname("s3://b"), "s3://b");
  EXPECT_EQ(Dirname("gs://b/x/y/"), "gs://b/x");
  EXPECT_EQ(Dirname("/a/b/c"), "/a/b");
  EXPECT_EQ(Dirname("/a"), "/");
  EXPECT_EQ(Dirname("/"), "/");
  EXPECT_EQ(Dirname("a/b"), "a");
  EXPECT_EQ(Dirname("a"), ".");
  EXPECT_EQ(Dirname("file:///a/b"), "file:///a");
  EXPECT_EQ(Dirname("file:///a"), "file:///");
}

TEST(PathHelpersTest, Basename) {
  EXPECT_EQ(Basename("s3://b/x/y"), "y");
  EXPECT_EQ(Basename("s3://b/x/y/"), "y");
  EXPECT_EQ(Basename("s3://b"), "");
  EXPECT_EQ(Basename("/a/b.txt"), "b.txt");
  EXPECT_EQ(Basename("b.txt"), "b.txt");
  EXPECT_EQ(Basename("file:///a/b"), "b");
}

TEST(StorageForTest, LocalPathsShareOneBackend) {
  StatusOr<Storage*> a = StorageFor("/tmp/x");
  StatusOr<Storage*> b = StorageFor("file:///tmp/y");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_NE(*a, nullptr);
  EXPECT_EQ(*a, *b);
}

TEST(StorageForTest, RejectsUnknownSchemes) {
  StatusOr<Storage*> s = StorageFor("ftp://host/x");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("ftp://host/x"), std::string::npos);
  EXPECT_FALSE(StorageFor("").ok());
}

}  // namespace
}  // namespace tokenmill
