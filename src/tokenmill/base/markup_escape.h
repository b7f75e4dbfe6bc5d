// Escaping text for XML and HTML.
#pragma once

#include <string>
#include <string_view>

namespace tokenmill {

// `text` with &, <, >, " and ' replaced by entities, safe in element text and in attribute values
// of either quote. `apostrophe`: the entity for ' ("&#39;" is understood by XML and HTML alike;
// "&apos;" by XML and HTML5).
std::string EscapeMarkup(std::string_view text, std::string_view apostrophe = "&#39;");

}  // namespace tokenmill
