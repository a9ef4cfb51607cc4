#include "output/emit.hpp"

#include <algorithm>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "output/ascii_text.hpp"
#include "output/environment.hpp"
#include "output/output_safe.hpp"
#include "tpcost/base/error.hpp"
#include "tpcost/base/units.hpp"

namespace tpcost::cli {

namespace {

std::ostringstream& held() {
  static std::ostringstream notes;
  return notes;
}

}  // namespace

std::ostream& held_notes() { return held(); }

void release_notes() {
  auto& notes = held();
  if (const auto text = notes.str(); !text.empty()) {
    std::cerr << text;
  }
  drop_notes();
}

void drop_notes() {
  held().str(std::string());
  held().clear();
}

void note_assumption(const std::string& assumption) {
  release_notes();
  if (!assumption.empty()) {
    std::cerr << "tpcost: note: " << output_safe(assumption) << '\n';
  }
}

void note_misfit(const memory_report& memory, const std::string& what) {
  release_notes();
  if (!memory.fits()) {
    std::cerr << fmt::format(
        "tpcost: warning: {}DOES NOT FIT: the fullest stage needs {:.1f} GiB per GPU of the {:.1f} "
        "GiB there is\n",
        what.empty() ? std::string() : output_safe(what) + " ", memory.peak().total() / units::GiB,
        memory.capacity / units::GiB);
  }
}

void emit(const output_flags& flags, const std::string& raw, bool ascii) {
  // JSON is UTF-8 by definition (RFC 8259), whatever the locale; text follows the locale.
  const bool spell_ascii = flags.format != "json" && (ascii || !locale_is_utf8(process_env));
  std::string text = spell_ascii ? ascii_only(raw) : raw;
  if (flags.no_header) {
    if (flags.format != "csv") {
      throw invalid_spec("--no-header", "applies to --format csv only");
    }
    text.erase(0, std::min(text.size(), text.find('\n') + 1));  // CSV's first line
  }
  if (flags.output.empty() || flags.output == "-") {
    release_notes();  // past validation: the warnings come before the output, as they always did
    std::cout << text << std::flush;
    if (!std::cout) {
      throw io_error("cannot write to stdout");
    }
    return;
  }
  write_output_file("--output", flags.output, text);
  release_notes();
}

}  // namespace tpcost::cli
