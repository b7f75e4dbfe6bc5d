#include "tokenmill/storage/xml.h"

#include <cstdint>

#include "tokenmill/base/markup_escape.h"

namespace tokenmill {
namespace {

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// True if `xml[pos]` starts the tag `tag` ("<tag>", "<tag ...>" or "<tag/>").
bool IsOpenTag(std::string_view xml, size_t pos, std::string_view tag) {
  if (xml.compare(pos + 1, tag.size(), tag) != 0) return false;
  size_t after = pos + 1 + tag.size();
  if (after >= xml.size()) return false;
  char c = xml[after];
  return c == '>' || c == '/' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

}  // namespace

std::vector<std::string_view> XmlElements(std::string_view xml, std::string_view tag) {
  std::vector<std::string_view> out;
  std::string close = "</" + std::string(tag) + ">";
  size_t pos = 0;
  while ((pos = xml.find('<', pos)) != std::string_view::npos) {
    if (!IsOpenTag(xml, pos, tag)) {
      ++pos;
      continue;
    }
    size_t gt = xml.find('>', pos);
    if (gt == std::string_view::npos) break;
    if (xml[gt - 1] == '/') {
      out.emplace_back();
      pos = gt + 1;
      continue;
    }
    // Find the matching close tag, skipping nested elements of the same name.
    size_t depth = 1;
    size_t scan = gt + 1;
    size_t end = std::string_view::npos;
    while (depth > 0) {
      size_t next = xml.find('<', scan);
      if (next == std::string_view::npos) break;
      if (xml.compare(next, close.size(), close) == 0) {
        if (--depth == 0) {
          end = next;
          break;
        }
        scan = next + close.size();
      } else {
        if (IsOpenTag(xml, next, tag)) {
          size_t g = xml.find('>', next);
          if (g != std::string_view::npos && xml[g - 1] != '/') ++depth;
        }
        scan = next + 1;
      }
    }
    if (end == std::string_view::npos) break;  // truncated document
    out.push_back(xml.substr(gt + 1, end - gt - 1));
    pos = end + close.size();
  }
  return out;
}

std::string XmlText(std::string_view xml, std::string_view tag) {
  std::vector<std::string_view> e = XmlElements(xml, tag);
  return e.empty() ? std::string() : XmlDecode(e[0]);
}

std::string XmlDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 9, "<![CDATA[") == 0) {
      size_t end = text.find("]]>", i + 9);
      if (end == std::string_view::npos) end = text.size();
      out.append(text.substr(i + 9, end - i - 9));
      i = end + 3;
      continue;
    }
    char c = text[i];
    if (c != '&') {
      out += c;
      ++i;
      continue;
    }
    size_t semi = text.find(';', i);
    if (semi == std::string_view::npos || semi - i > 10) {
      out += c;
      ++i;
      continue;
    }
    std::string_view ent = text.substr(i + 1, semi - i - 1);
    if (ent == "amp") {
      out += '&';
    } else if (ent == "lt") {
      out += '<';
    } else if (ent == "gt") {
      out += '>';
    } else if (ent == "quot") {
      out += '"';
    } else if (ent == "apos") {
      out += '\'';
    } else if (ent.size() > 1 && ent[0] == '#') {
      uint32_t cp = 0;
      bool hex = ent[1] == 'x' || ent[1] == 'X';
      bool ok = ent.size() > (hex ? 2u : 1u);
      for (char d : ent.substr(hex ? 2 : 1)) {
        int v;
        if (d >= '0' && d <= '9') {
          v = d - '0';
        } else if (hex && d >= 'a' && d <= 'f') {
          v = d - 'a' + 10;
        } else if (hex && d >= 'A' && d <= 'F') {
          v = d - 'A' + 10;
        } else {
          ok = false;
          break;
        }
        cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(v);
        if (cp > 0x10FFFF) ok = false;
      }
      if (!ok) {
        out.append(text.substr(i, semi - i + 1));
      } else {
        AppendUtf8(cp, &out);
      }
    } else {
      out.append(text.substr(i, semi - i + 1));
    }
    i = semi + 1;
  }
  return out;
}

std::string XmlEscape(std::string_view text) { return EscapeMarkup(text, "&apos;"); }

}  // namespace tokenmill
