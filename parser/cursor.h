// Cursor: the lexical layer of the HLO text parser.
//
// Walks the text byte by byte, skipping whitespace and comments (`// ...`,
// `/* ... */`), reading names, numbers and strings, and turning byte offsets
// into line:column positions for error messages.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "hlo/status.h"

namespace hlo {

class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}

  std::string_view text() const { return text_; }
  size_t pos() const { return pos_; }
  void setPos(size_t p) { pos_ = p; }

  // Skips whitespace and comments; an unterminated /* sets an error.
  // Inline for the common case, a significant character already at the
  // cursor: the parser asks this before nearly every token.
  void skipSpace() {
    if (pos_ < text_.size() && !mayStartSpace(text_[pos_])) return;
    skipSpaceSlow();
  }
  bool atEnd() {
    skipSpace();
    return pos_ >= text_.size();
  }
  // The next significant character (after skipping), or '\0' at the end.
  char peek() {
    skipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  // The character right at the cursor, without skipping.
  char rawPeek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  bool consume(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  // Consumes `word` when it is the next whole word.
  bool consumeWord(std::string_view word);
  bool consumeText(std::string_view literal);  // exact characters, after skipping

  // A name: [A-Za-z_][A-Za-z0-9_.-]*, or with a leading `%` also digits first
  // (and without one where `digitFirst` says so: a signature lists `%2v: f32[]`
  // as `2v: f32[]`). Returns empty if none (the leading % is not part of it).
  std::string_view name(bool digitFirst = false);
  // Like name() but does not move.
  std::string_view peekName();
  // A signed decimal or 0x-hex integer; false (cursor unmoved) if none.
  bool integer(int64_t& value);
  // A token that may be a number: [-+]digits/./e/E/[-+], nan, inf, nan(0x..).
  std::string_view numberToken();
  // A "..." or '...' string, as XLA's lexer takes either, with C escapes
  // decoded (\n \t \" \\ ..., octal \101, hex \x41); false, cursor
  // unmoved, if there is none or it never ends.
  bool quotedString(std::string& out);
  // Everything up to the matching close of the bracket at the cursor
  // ({, [, ( or "..."), returned with the brackets; strings inside are skipped.
  bool balanced(std::string_view& out);

  // Errors.
  SourceLoc locAt(size_t pos);
  SourceLoc loc() {
    skipSpace();
    return locAt(pos_);
  }
  // An error at the next significant character. While the cursor stands on
  // a /* comment that never ends, that is the error reported instead.
  Status error(std::string message);
  // An error for something missing after the last token read, which ends at
  // or before `after` (whitespace between is skipped back): at the next
  // significant character when it is on that token's line, else right after
  // the token, where the user must add it (a `)` missing at a line's end is
  // reported there, not at the next line's first token).
  Status errorAfter(size_t after, std::string message);
  // An error at `pos` (or, as for error(), the unterminated comment).
  Status errorAt(size_t pos, std::string message) {
    if (unterminatedComment_) return errorStatus("unterminated /* comment", locAt(commentPos_));
    return errorStatus(std::move(message), locAt(pos));
  }
  // Set when a /* comment never ends.
  bool unterminatedComment() const { return unterminatedComment_; }

 private:
  static bool mayStartSpace(char c) {
    return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '/';
  }
  void skipSpaceSlow();

  std::string_view text_;
  size_t pos_ = 0;
  bool unterminatedComment_ = false;
  size_t commentPos_ = 0;
  // Line bookkeeping for locAt: positions usually grow, so scan forward.
  size_t cachedPos_ = 0;
  int cachedLine_ = 1;
  size_t cachedLineStart_ = 0;
};

bool isNameStart(char c);
bool isNameChar(char c);

}  // namespace hlo
