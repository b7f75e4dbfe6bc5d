#include "tokenmill/base/markup_escape.h"

#include <gtest/gtest.h>

namespace tokenmill {
namespace {

TEST(EscapeMarkup, EveryMarkupCharacterAndNothingElse) {
  EXPECT_EQ(EscapeMarkup(""), "");
  EXPECT_EQ(EscapeMarkup("plain text, 中文 ok"), "plain text, 中文 ok");
  EXPECT_EQ(EscapeMarkup("<a href=\"x\">Tom & Jerry's</a>"),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;");
  EXPECT_EQ(EscapeMarkup("it's", "&apos;"), "it&apos;s");
  EXPECT_EQ(EscapeMarkup("&amp;"), "&amp;amp;");  // escaped again, never taken as an entity
}

}  // namespace
}  // namespace tokenmill
