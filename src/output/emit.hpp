// What a command writes: its output to stdout or --output, its notes to stderr.
#pragma once

#include <ostream>
#include <string>

#include "output/output_file.hpp"
#include "output/output_format.hpp"
#include "tpcost/model/memory.hpp"

namespace tpcost::cli {

/// Writes `text` to --output (or stdout) whole; throws io_error when the file cannot be written.
/// Text (not JSON) is spelt in ASCII (ascii_text.hpp) under `ascii` (--ascii) or a locale that
/// is not UTF-8.
void emit(const output_flags& flags, const std::string& text, bool ascii = false);

/// The warnings of the readers, held back until the command gets past validation: a run that
/// then fails with exit 2 prints its one error line alone (exit_codes.hpp), and one that goes
/// on prints them where it always did, before its first output or note. Whatever is written
/// here goes to stderr at release_notes(); emit, note_assumption, note_misfit and the end of a
/// run that did not fail with exit 2 call it.
std::ostream& held_notes();
/// Writes the held notes to stderr, once.
void release_notes();
/// Forgets the held notes: the run failed on invalid input, whose one line says it all.
void drop_notes();

/// An output read by programs (CSV, a markdown table, a -q table) has no room for the
/// "assumed: ..." line a report starts with (hardware_origin.hpp): it goes to stderr as
/// "tpcost: note: assumed: ...". Nothing when `assumption` is empty.
void note_assumption(const std::string& assumption);

/// The -q form of a report's "DOES NOT FIT" line, on stderr: "tpcost: warning: [WHAT ]DOES NOT
/// FIT: the fullest stage needs X GiB per GPU of the Y GiB there is". Nothing when it fits.
void note_misfit(const memory_report& memory, const std::string& what = {});

}  // namespace tpcost::cli
