// A minimal reader for the small XML documents object stores answer with (ListBucketResult,
// InitiateMultipartUploadResult, Error). It finds elements by tag name and decodes entities; it is
// not a general XML parser (no namespaces prefixes, no DTDs), which those answers never need.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tokenmill {

// The raw contents of every <tag ...>...</tag> in `xml`, in document order, not nested in
// another element of the same tag. A self-closing <tag/> gives an empty string.
std::vector<std::string_view> XmlElements(std::string_view xml, std::string_view tag);

// The decoded text of the first <tag> in `xml`, or "" if absent.
std::string XmlText(std::string_view xml, std::string_view tag);

// Decodes &amp; &lt; &gt; &quot; &apos; &#NNN; &#xHH; and CDATA sections. Unknown entities are
// kept as written.
std::string XmlDecode(std::string_view text);

// Escapes & < > " ' for element text.
std::string XmlEscape(std::string_view text);

}  // namespace tokenmill
