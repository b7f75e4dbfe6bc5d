#include "tokenmill/io/glob.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tokenmill/base/rng.h"
#include "tokenmill/io/document_reader.h"
#include "tokenmill/io/test_util.h"

namespace tokenmill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(GlobMatchTest, Wildcards) {
  EXPECT_TRUE(GlobMatch("/d/*.txt", "/d/a.txt"));
  EXPECT_TRUE(GlobMatch("/d/*.txt", "/d/.txt"));
  EXPECT_FALSE(GlobMatch("/d/*.txt", "/d/sub/a.txt"));  // '*' never crosses '/'
  EXPECT_FALSE(GlobMatch("/d/*", "/d/sub/a.txt"));
  EXPECT_TRUE(GlobMatch("/d/*/*.txt", "/d/sub/a.txt"));
  EXPECT_TRUE(GlobMatch("/d/part-??.txt", "/d/part-07.txt"));
  EXPECT_FALSE(GlobMatch("/d/part-??.txt", "/d/part-7.txt"));
  EXPECT_FALSE(GlobMatch("/d?x", "/d/x"));  // '?' never matches '/'
  EXPECT_TRUE(GlobMatch("/d/part-0[0-3].txt", "/d/part-02.txt"));
  EXPECT_FALSE(GlobMatch("/d/part-0[0-3].txt", "/d/part-05.txt"));
  EXPECT_TRUE(GlobMatch("/d/part-0[!0-3].txt", "/d/part-05.txt"));
  EXPECT_TRUE(GlobMatch("/d/part-0[^0-3].txt", "/d/part-05.txt"));
  EXPECT_TRUE(GlobMatch("/d/[]]x", "/d/]x"));
  EXPECT_FALSE(GlobMatch("/d[/]x", "/d/x"));
  EXPECT_TRUE(GlobMatch("/d/\\*.txt", "/d/*.txt"));
  EXPECT_FALSE(GlobMatch("/d/\\*.txt", "/d/a.txt"));
  EXPECT_TRUE(GlobMatch("s3://bucket/corpus/*.jsonl.gz", "s3://bucket/corpus/p1.jsonl.gz"));
  EXPECT_TRUE(GlobMatch("*a*b*", "xxaxxbxx"));
  EXPECT_FALSE(GlobMatch("*a*b", "xxaxxbxxc"));
  EXPECT_TRUE(GlobMatch("", ""));
  EXPECT_FALSE(GlobMatch("", "a"));
}

TEST(GlobTest, PrefixesAndValidation) {
  EXPECT_TRUE(HasGlobWildcard("/a/*.txt"));
  EXPECT_TRUE(HasGlobWildcard("/a/[ab].txt"));
  EXPECT_FALSE(HasGlobWildcard("/a/b.txt"));
  EXPECT_FALSE(HasGlobWildcard("/a/\\*.txt"));
  EXPECT_EQ(LiteralGlobPrefix("gs://b/data/part-*.txt"), "gs://b/data/part-");
  EXPECT_EQ(LiteralGlobPrefix("/x/\\*y/?"), "/x/*y/");
  EXPECT_TRUE(ValidateGlob("/a/*/b?[cd]").ok());
  EXPECT_THAT(ValidateGlob("/a/**/b").message(), HasSubstr("\"**\" is not supported"));
  EXPECT_THAT(ValidateGlob("/a/[bc").message(), HasSubstr("no closing ']'"));
  EXPECT_THAT(ValidateGlob("/a/b\\").message(), HasSubstr("lone '\\'"));
}

// A reference matcher by plain recursion (exponential, fine for short strings).
bool RefMatch(std::string_view p, std::string_view t) {
  if (p.empty()) return t.empty();
  if (p[0] == '*') {
    for (size_t k = 0;; ++k) {
      if (RefMatch(p.substr(1), t.substr(k))) return true;
      if (k == t.size() || t[k] == '/') return false;
    }
  }
  if (t.empty()) return false;
  if (p[0] == '?') return t[0] != '/' && RefMatch(p.substr(1), t.substr(1));
  return p[0] == t[0] && RefMatch(p.substr(1), t.substr(1));
}

TEST(GlobMatchTest, AgreesWithARecursiveReference) {
  Rng rng(7, 0);
  const std::string pattern_chars = "ab/*?";
  const std::string text_chars = "ab/";
  for (int i = 0; i < 50000; ++i) {
    std::string pattern, text;
    for (int64_t k = rng.RandInt(0, 8); k > 0; --k) {
      const char c = pattern_chars[static_cast<size_t>(rng.RandInt(0, 4))];
      if (c == '*' && !pattern.empty() && pattern.back() == '*') continue;  // no "**"
      pattern += c;
    }
    for (int64_t k = rng.RandInt(0, 10); k > 0; --k) {
      text += text_chars[static_cast<size_t>(rng.RandInt(0, 2))];
    }
    ASSERT_EQ(GlobMatch(pattern, text), RefMatch(pattern, text))
        << "pattern \"" << pattern << "\" text \"" << text << "\"";
  }
}

std::vector<std::string> Urls(const std::vector<ObjectInfo>& infos) {
  std::vector<std::string> out;
  for (const ObjectInfo& i : infos) out.push_back(i.url);
  return out;
}

TEST(ExpandGlobsTest, SortedMatchesThatNeverCrossFolders) {
  testing::TempDir dir;
  const std::string d = dir.path();
  dir.Write("b.txt", "bb");
  dir.Write("a.txt", "a");
  dir.Write("a.txt.gz", "x");
  dir.Write("c.jsonl", "{}");
  dir.Write("sub/d.txt", "d");
  dir.Write("sub/deeper/e.txt", "e");
  dir.Write("part-10.txt", "");
  dir.Write("part-02.txt", "");

  auto r = ExpandGlobs({d + "/*.txt"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_THAT(Urls(*r),
              ElementsAre(d + "/a.txt", d + "/b.txt", d + "/part-02.txt", d + "/part-10.txt"));
  EXPECT_EQ((*r)[1].size, 2u);

  r = ExpandGlobs({d + "/*/*.txt"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_THAT(Urls(*r), ElementsAre(d + "/sub/d.txt"));

  // Several patterns: merged, sorted bytewise, de-duplicated; literal paths too.
  r = ExpandGlobs({d + "/part-*", d + "/a.*", d + "/a.txt", "file://" + d + "/c.jsonl"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_THAT(Urls(*r), ElementsAre(d + "/a.txt", d + "/a.txt.gz", d + "/part-02.txt",
                                    d + "/part-10.txt", "file://" + d + "/c.jsonl"));

  r = ExpandGlobs({"file://" + d + "/sub/deeper/?.txt"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_THAT(Urls(*r), ElementsAre("file://" + d + "/sub/deeper/e.txt"));
}

TEST(ExpandGlobsTest, NoMatchIsAnErrorNamingThePattern) {
  testing::TempDir dir;
  dir.Write("a.txt", "a");
  auto r = ExpandGlobs({dir.path() + "/*.txt", dir.path() + "/*.jsonl"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr(dir.path() + "/*.jsonl\" matches no file"));

  r = ExpandGlobs({dir.path() + "/missing.txt"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr(dir.path() + "/missing.txt\" does not exist"));

  r = ExpandGlobs({dir.path()});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("input \"" + dir.path() + "\""));

  r = ExpandGlobs({"/nonexistent-folder-for-tokenmill-tests/*.txt"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);

  r = ExpandGlobs({dir.path() + "/**/*.txt"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
}

TEST(ExpandGlobsTest, RelativePatternsBecomeAbsolute) {
  testing::TempDir dir;
  dir.Write("in/x.txt", "x");
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
  ASSERT_EQ(chdir(dir.path().c_str()), 0);
  auto glob = ExpandGlobs({"in/*.txt"});
  auto literal = ExpandGlobs({"in/x.txt"});
  ASSERT_EQ(chdir(cwd), 0);
  ASSERT_TRUE(glob.ok()) << glob.status().ToString();
  ASSERT_TRUE(literal.ok()) << literal.status().ToString();
  // mkdtemp's folder may sit behind a symbolic link: compare by file name.
  ASSERT_EQ(glob->size(), 1u);
  EXPECT_TRUE((*glob)[0].url.starts_with("/"));
  EXPECT_TRUE((*glob)[0].url.ends_with("/in/x.txt"));
  EXPECT_EQ(Urls(*literal), Urls(*glob));
}

}  // namespace
}  // namespace tokenmill
