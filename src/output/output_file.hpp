// Writing an output file (--output, --out, --plot, --plot-script) whole or not at all.
//
// The rules (docs/fuzzing.md, "Output files"):
// - a new path or a regular file: the bytes go to a temporary file with a unique name in the
//   target's directory, are fsync'ed, and the temporary file is renamed onto the target, so a
//   reader (or a concurrent writer) sees the old file or the new one, never a mix, and a
//   failure (full disk, read-only directory, a signal) leaves the previous file untouched. A
//   replaced file keeps its permission bits; a new one gets 0666 less the umask.
// - a character device or a FIFO, directly or through a symbolic link (/dev/null, /dev/stdout,
//   a shell's >(...)): written in place, never created, truncated or replaced.
// - anything else (a directory, a block device, a socket, a symbolic link to a regular file or
//   to nothing): refused with io_error (exit 3), and nothing is written.
#pragma once

#include <string>
#include <string_view>

#include "tpcost/base/error.hpp"

namespace tpcost::cli {

/// A file could not be written: exit code 3.
class io_error : public tpcost::error {
 public:
  using tpcost::error::error;
};

/// Writes `bytes` to `path` by the rules above; throws io_error naming `flag` and the path.
void write_output_file(std::string_view flag, const std::string& path, std::string_view bytes);

}  // namespace tpcost::cli
