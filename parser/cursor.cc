// Cursor: whitespace, comments, names, numbers, strings and locations.
#include "parser/cursor.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstring>

namespace hlo {

namespace {

// Character classes as a table: names are scanned a byte at a time on
// every line, and a lookup beats the chain of comparisons.
enum : uint8_t { kStart = 1, kChar = 2, kBracketOrQuote = 4 };

constexpr std::array<uint8_t, 256> kClasses = [] {
  std::array<uint8_t, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kStart | kChar;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kStart | kChar;
  t['_'] = kStart | kChar;
  for (int c = '0'; c <= '9'; ++c) t[c] = kChar;
  t['.'] = t['-'] = kChar;
  for (char c : {'{', '}', '[', ']', '(', ')', '"', '\''}) t[static_cast<uint8_t>(c)] = kBracketOrQuote;
  return t;
}();

}  // namespace

bool isNameStart(char c) { return kClasses[static_cast<uint8_t>(c)] & kStart; }
bool isNameChar(char c) { return kClasses[static_cast<uint8_t>(c)] & kChar; }

static bool isDigit(char c) { return c >= '0' && c <= '9'; }

void Cursor::skipSpaceSlow() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      ++pos_;
      continue;
    }
    if (c == '/' && pos_ + 1 < text_.size()) {
      char n = text_[pos_ + 1];
      if (n == '/') {
        const void* nl = std::memchr(text_.data() + pos_, '\n', text_.size() - pos_);
        pos_ = nl ? static_cast<const char*>(nl) - text_.data() : text_.size();
        continue;
      }
      if (n == '*') {
        size_t end = text_.find("*/", pos_ + 2);
        if (end == std::string_view::npos) {
          unterminatedComment_ = true;
          commentPos_ = pos_;
          return;  // leave the cursor on the comment so the error points at it
        }
        pos_ = end + 2;
        continue;
      }
    }
    return;
  }
}


// Both compare the first character before the rest: most calls fail there.
bool Cursor::consumeWord(std::string_view word) {
  skipSpace();
  if (pos_ >= text_.size() || text_[pos_] != word[0] || text_.substr(pos_, word.size()) != word)
    return false;
  size_t end = pos_ + word.size();
  if (end < text_.size() && isNameChar(text_[end])) return false;
  pos_ = end;
  return true;
}

bool Cursor::consumeText(std::string_view literal) {
  skipSpace();
  if (pos_ >= text_.size() || text_[pos_] != literal[0] || text_.substr(pos_, literal.size()) != literal)
    return false;
  pos_ += literal.size();
  return true;
}

std::string_view Cursor::peekName() {
  size_t save = pos_;
  std::string_view n = name();
  pos_ = save;
  return n;
}

std::string_view Cursor::name(bool digitFirst) {
  skipSpace();
  size_t p = pos_;
  bool percent = p < text_.size() && text_[p] == '%';
  if (percent) ++p;
  if (p >= text_.size()) return {};
  char c = text_[p];
  if (!isNameStart(c) && !((percent || digitFirst) && isDigit(c))) return {};
  size_t start = p;
  while (p < text_.size() && isNameChar(text_[p])) {
    // A name never swallows the arrow of `->`.
    if (text_[p] == '-' && p + 1 < text_.size() && text_[p + 1] == '>') break;
    ++p;
  }
  pos_ = p;
  return text_.substr(start, p - start);
}

bool Cursor::integer(int64_t& value) {
  skipSpace();
  size_t p = pos_;
  bool negative = false;
  if (p < text_.size() && (text_[p] == '-' || text_[p] == '+')) negative = text_[p++] == '-';
  if (p >= text_.size() || !isDigit(text_[p])) return false;
  uint64_t v = 0;
  bool hex = text_[p] == '0' && p + 1 < text_.size() && (text_[p + 1] == 'x' || text_[p + 1] == 'X');
  if (hex) {
    p += 2;
    size_t digits = 0;
    while (p < text_.size() && std::isxdigit(static_cast<unsigned char>(text_[p]))) {
      char c = text_[p++];
      int d = isDigit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
      if (v >> 60) return false;
      v = v * 16 + d;
      ++digits;
    }
    if (!digits) return false;
  } else {
    while (p < text_.size() && isDigit(text_[p])) {
      int d = text_[p++] - '0';
      if (v > (UINT64_MAX - d) / 10) return false;
      v = v * 10 + d;
    }
  }
  if (p < text_.size() && (isNameChar(text_[p]) && text_[p] != '-' && text_[p] != '.'))
    return false;  // e.g. `3x3` is not an integer here
  if (v > static_cast<uint64_t>(INT64_MAX) + (negative ? 1 : 0)) return false;
  value = negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  pos_ = p;
  return true;
}

std::string_view Cursor::numberToken() {
  skipSpace();
  size_t p = pos_;
  if (p < text_.size() && (text_[p] == '-' || text_[p] == '+')) ++p;
  auto startsWith = [&](std::string_view w) { return text_.substr(p, w.size()) == w; };
  if (startsWith("nan")) {
    p += 3;
    if (p < text_.size() && text_[p] == '(') {
      size_t close = text_.find(')', p);
      if (close == std::string_view::npos) return {};
      p = close + 1;
    }
  } else if (startsWith("inf")) {
    p += 3;
  } else {
    size_t digitsStart = p;
    bool hex = startsWith("0x") || startsWith("0X");
    if (hex) p += 2;
    while (p < text_.size()) {
      char c = text_[p];
      bool ok = isDigit(c) || c == '.' || (hex && std::isxdigit(static_cast<unsigned char>(c)));
      if (!ok && !hex && (c == 'e' || c == 'E')) {
        ok = true;
        if (p + 1 < text_.size() && (text_[p + 1] == '-' || text_[p + 1] == '+')) ++p;
      }
      if (!ok) break;
      ++p;
    }
    if (p == digitsStart) return {};
  }
  if (p < text_.size() && isNameChar(text_[p]) && text_[p] != '-' && text_[p] != '.') return {};
  std::string_view token = text_.substr(pos_, p - pos_);
  pos_ = p;
  return token;
}

bool Cursor::quotedString(std::string& out) {
  char quote = peek();
  if (quote != '"' && quote != '\'') return false;
  size_t p = pos_ + 1;
  out.clear();
  auto digitOf = [](char c, int base) {
    int d = c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : 99;
    return d < base ? d : -1;
  };
  while (p < text_.size()) {
    char c = text_[p++];
    if (c == quote) {
      pos_ = p;
      return true;
    }
    if (c != '\\' || p >= text_.size()) {
      out += c;
      continue;
    }
    char e = text_[p++];
    if (digitOf(e, 8) >= 0 || (e == 'x' && p < text_.size() && digitOf(text_[p], 16) >= 0)) {
      // \NNN: up to three octal digits; \xHH...: hex digits.
      int base = e == 'x' ? 16 : 8;
      unsigned value = e == 'x' ? 0 : digitOf(e, 8);
      for (int n = e == 'x' ? 0 : 1; p < text_.size() && digitOf(text_[p], base) >= 0 && (base == 16 || n < 3); ++n)
        value = value * base + digitOf(text_[p++], base);
      out += static_cast<char>(value & 0xff);
      continue;
    }
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      default: out += e;  // \" \' \\ \? and anything else: the character itself
    }
  }
  return false;
}

// Carried values (metadata, backend configs) are long, so the scan jumps
// over ordinary characters with a table and over strings with memchr.
bool Cursor::balanced(std::string_view& out) {
  skipSpace();
  size_t start = pos_;
  size_t p = pos_;
  const size_t n = text_.size();
  std::string stack;  // the closing brackets owed, innermost last
  do {
    while (p < n && !(kClasses[static_cast<uint8_t>(text_[p])] & kBracketOrQuote)) ++p;
    if (p >= n) return false;
    char c = text_[p++];
    if (c == '"' || c == '\'') {  // skip a string, honouring escapes
      for (;;) {
        const void* q = std::memchr(text_.data() + p, c, n - p);
        if (!q) return false;
        size_t quote = static_cast<const char*>(q) - text_.data();
        size_t backslashes = 0;
        while (quote - backslashes > p && text_[quote - backslashes - 1] == '\\') ++backslashes;
        p = quote + 1;
        if (backslashes % 2 == 0) break;  // not escaped
      }
      continue;
    }
    if (c == '{' || c == '[' || c == '(') {
      stack += c == '{' ? '}' : c == '[' ? ']' : ')';
    } else {
      if (stack.empty() || stack.back() != c) return false;
      stack.pop_back();
    }
  } while (!stack.empty());
  pos_ = p;
  out = text_.substr(start, p - start);
  return true;
}

// Positions are asked for mostly in increasing order, so the line count is
// kept for the last position and moved from there, forwards or backwards,
// with memchr/memrchr doing the scanning.
SourceLoc Cursor::locAt(size_t pos) {
  if (pos > text_.size()) pos = text_.size();
  const char* base = text_.data();
  if (pos >= cachedPos_) {
    const char* p = base + cachedPos_;
    const char* end = base + pos;
    while (const void* nl = std::memchr(p, '\n', end - p)) {
      ++cachedLine_;
      p = static_cast<const char*>(nl) + 1;
      cachedLineStart_ = p - base;
    }
  } else {
    for (const char* p = base + pos; p < base + cachedPos_; ++p) cachedLine_ -= *p == '\n';
    const void* nl = pos ? memrchr(base, '\n', pos) : nullptr;
    cachedLineStart_ = nl ? static_cast<const char*>(nl) - base + 1 : 0;
  }
  cachedPos_ = pos;
  return SourceLoc{cachedLine_, static_cast<int>(pos - cachedLineStart_) + 1};
}

Status Cursor::error(std::string message) {
  skipSpace();
  return errorAt(pos_, std::move(message));
}

Status Cursor::errorAfter(size_t after, std::string message) {
  skipSpace();
  size_t tokenEnd = std::min(after, pos_);
  while (tokenEnd > 0 && std::isspace(static_cast<unsigned char>(text_[tokenEnd - 1]))) --tokenEnd;
  bool lineEnded = text_.substr(tokenEnd, pos_ - tokenEnd).find('\n') != std::string_view::npos;
  return errorAt(lineEnded ? tokenEnd : pos_, std::move(message));
}

}  // namespace hlo
