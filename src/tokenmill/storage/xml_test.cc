#include "tokenmill/storage/xml.h"

#include <gtest/gtest.h>

namespace tokenmill {
namespace {

TEST(XmlTest, ListBucketResult) {
  const char* xml = R"(<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name>
<IsTruncated>true</IsTruncated>
<Contents><Key>a&amp;b &lt;c&gt; &#233;&#x4E2D;</Key><Size>12</Size><ETag>&quot;abc&quot;</ETag></Contents>
<Contents><Key>plain</Key><Size>0</Size><ETag>"def"</ETag><Owner><ID>x</ID></Owner></Contents>
<NextContinuationToken>tok/en+=</NextContinuationToken></ListBucketResult>)";
  std::vector<std::string_view> contents = XmlElements(xml, "Contents");
  ASSERT_EQ(contents.size(), 2u);
  EXPECT_EQ(XmlText(contents[0], "Key"), "a&b <c> \xC3\xA9\xE4\xB8\xAD");
  EXPECT_EQ(XmlText(contents[0], "Size"), "12");
  EXPECT_EQ(XmlText(contents[0], "ETag"), "\"abc\"");
  EXPECT_EQ(XmlText(contents[1], "Key"), "plain");
  EXPECT_EQ(XmlText(xml, "IsTruncated"), "true");
  EXPECT_EQ(XmlText(xml, "NextContinuationToken"), "tok/en+=");
  EXPECT_EQ(XmlText(xml, "Missing"), "");
}

TEST(XmlTest, TagPrefixesAreNotConfused) {
  const char* xml = "<Keys>no</Keys><Key attr=\"1\">yes</Key><KeyMarker/>";
  EXPECT_EQ(XmlText(xml, "Key"), "yes");
  EXPECT_EQ(XmlElements(xml, "KeyMarker").size(), 1u);
  EXPECT_EQ(XmlText(xml, "KeyMarker"), "");
}

TEST(XmlTest, NestedSameNameAndTruncatedDocuments) {
  EXPECT_EQ(XmlElements("<a><a>x</a></a>", "a")[0], "<a>x</a>");
  EXPECT_TRUE(XmlElements("<a>unterminated", "a").empty());
  EXPECT_TRUE(XmlElements("<a", "a").empty());
  EXPECT_TRUE(XmlElements("", "a").empty());
}

TEST(XmlTest, DecodeKeepsUnknownEntitiesAndCdata) {
  EXPECT_EQ(XmlDecode("&bogus; & &#xZZ; &#1114112;"), "&bogus; & &#xZZ; &#1114112;");
  EXPECT_EQ(XmlDecode("<![CDATA[<raw> & ]]>tail"), "<raw> & tail");
  EXPECT_EQ(XmlDecode("&apos;&quot;"), "'\"");
}

TEST(XmlTest, EscapeRoundTrips) {
  std::string s = "a&b<c>\"d'e";
  EXPECT_EQ(XmlEscape(s), "a&amp;b&lt;c&gt;&quot;d&apos;e");
  EXPECT_EQ(XmlDecode(XmlEscape(s)), s);
}

}  // namespace
}  // namespace tokenmill
