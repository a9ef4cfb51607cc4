// Output for a terminal or file that is not UTF-8 (`--ascii`, or a locale such as LANG=C):
// every non-ASCII character tpcost prints, spelt in ASCII, so that no byte outside 0..127
// reaches it. The charts draw their own ASCII glyphs (chart.hpp); this covers the rest (the
// symbols of the formulas and units) and anything that reaches the output unforeseen.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace tpcost::cli {

struct ascii_spelling {
  std::string_view utf8;
  std::string_view ascii;
};

// The characters found in src/ and include/ (grep -P '[^\x00-\x7F]'), by frequency.
inline constexpr std::array<ascii_spelling, 57> ascii_spellings{{
    {"\u00B7", "*"},     {"\u2212", "-"},    {"\u03B2", "beta"},   {"\u03B1", "alpha"},
    {"\u00B2", "^2"},    {"\u00B3", "^3"},   {"\u00D7", "x"},      {"\u2013", "-"},
    {"\u2014", "-"},     {"\u03BC", "mu"},   {"\u00B5", "u"},      {"\u03B7", "eta"},
    {"\u2192", "->"},    {"\u2190", "<-"},   {"\u1D40", "^T"},     {"\u03A3", "sum "},
    {"\u2308", "ceil("}, {"\u2309", ")"},    {"\u230A", "floor("}, {"\u230B", ")"},
    {"\u00F7", "/"},     {"\u2265", ">="},   {"\u2264", "<="},     {"\u2248", "~"},
    {"\u2113", "l"},     {"\u2082", "2"},    {"\u0304", ""},       {"\u00E4", "a"},
    {"\u221A", "sqrt"},  {"\u2208", " in "}, {"\u03B3", "gamma"},  {"\u00B1", "+-"},
    {"\u00A7", "S"},     {"\u2026", "..."},  {"\u2018", "'"},      {"\u2019", "'"},
    {"\u201C", "\""},    {"\u201D", "\""},   {"\u00A0", " "},      {"\u2502", "|"},
    {"\u2506", "|"},     {"\u250A", "|"},    {"\u254E", "|"},      {"\u2500", "-"},
    {"\u252C", "+"},     {"\u2524", "+"},    {"\u2514", "+"},      {"\u251C", "+"},
    {"\u253C", "+"},     {"\u2594", "-"},    {"\u2588", "#"},      {"\u2593", "#"},
    {"\u2592", "="},     {"\u2591", ":"},    {"\u221E", "inf"},    {"\u0394", "delta "},
    {"\u03C4", "tau"},
}};

/// `text` with each character of the table spelt in ASCII, block elements (U+2580..U+259F)
/// as '#', and any other non-ASCII character as '?'.
inline std::string ascii_only(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      out += text[i++];
      continue;
    }
    const std::size_t n = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    const auto ch = text.substr(i, n);
    i += n;
    bool known = false;
    for (const auto& s : ascii_spellings) {
      if (s.utf8 == ch) {
        out += s.ascii;
        known = true;
        break;
      }
    }
    if (known) {
      continue;
    }
    // U+2580..U+259F, the block elements of bars and shading: E2 96 80..E2 96 9F.
    const bool block = ch.size() == 3 && static_cast<unsigned char>(ch[0]) == 0xE2 &&
                       static_cast<unsigned char>(ch[1]) == 0x96 &&
                       static_cast<unsigned char>(ch[2]) >= 0x80 &&
                       static_cast<unsigned char>(ch[2]) <= 0x9F;
    out += block ? "#" : "?";
  }
  return out;
}

}  // namespace tpcost::cli
