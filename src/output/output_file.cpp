#include "output/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "tpcost/base/quote.hpp"

namespace tpcost::cli {

namespace {

[[noreturn]] void refuse(std::string_view flag, const std::string& path, std::string_view why) {
  throw io_error(std::string(flag) + ": " + quote_value(path) + " " + std::string(why));
}

[[noreturn]] void fail_errno(std::string_view flag, const std::string& path, int error) {
  refuse(flag, path, std::string("cannot be written: ") + std::strerror(error));
}

/// Writes all of `bytes` to `fd`, retrying short writes and EINTR; returns 0 or an errno.
int write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const auto n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return errno;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

/// A character device or FIFO: written in place. A FIFO is opened without blocking so that
/// one with no reader fails at once (ENXIO) instead of hanging.
void write_in_place(std::string_view flag, const std::string& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENXIO) {
    refuse(flag, path, "is a FIFO that nobody reads; start its reader first");
  }
  if (fd < 0) {
    fail_errno(flag, path, errno);
  }
  const int flags = ::fcntl(fd, F_GETFL);
  int error = flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0 ? errno : 0;
  if (error == 0) {
    error = write_all(fd, bytes);
  }
  if (::close(fd) != 0 && error == 0 && errno != EINTR) {
    error = errno;
  }
  if (error != 0) {
    fail_errno(flag, path, error);
  }
}

/// The directory holding `path` ("." for a bare name) and the base name.
std::pair<std::string, std::string> split_path(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) {
    return {".", path};
  }
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

mode_t mode_for_new_file() {
  const mode_t mask = ::umask(0);  // umask can only be read by setting it
  ::umask(mask);
  return static_cast<mode_t>(0666) & ~mask;
}

/// A new path or a regular file: a unique temporary file beside it, fsync, rename.
void replace_atomically(std::string_view flag, const std::string& path, std::string_view bytes,
                        const struct stat* existing) {
  const auto [dir, base] = split_path(path);
  if (base.empty()) {
    refuse(flag, path, "names a directory; give a file name");
  }
  // "." + base + ".tpcost-XXXXXX" is 15 bytes longer than base: cut base so that the temporary
  // name stays within NAME_MAX (255) for any legal target name (a 254-byte name exited 3).
  constexpr std::size_t name_max = 255, added = 15;
  const auto stem = base.substr(0, std::min(base.size(), name_max - added));
  std::string name = dir + "/." + stem + ".tpcost-XXXXXX";
  std::vector<char> temp(name.begin(), name.end());
  temp.push_back('\0');
  const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) {
    fail_errno(flag, path, errno);
  }
  const std::string temporary(temp.data());
  const mode_t mode =
      existing != nullptr ? static_cast<mode_t>(existing->st_mode & 07777) : mode_for_new_file();
  int error = ::fchmod(fd, mode) != 0 ? errno : 0;
  if (error == 0) {
    error = write_all(fd, bytes);
  }
  if (error == 0 && ::fsync(fd) != 0) {
    error = errno;
  }
  if (::close(fd) != 0 && error == 0 && errno != EINTR) {
    error = errno;  // NFS and friends report a failed write at close
  }
  if (error == 0 && ::rename(temporary.c_str(), path.c_str()) != 0) {
    error = errno;
  }
  if (error != 0) {
    ::unlink(temporary.c_str());
    fail_errno(flag, path, error);
  }
  // The rename is durable once the directory is: best effort, the file itself is complete.
  if (const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir_fd >= 0) {
    (void)::fsync(dir_fd);
    ::close(dir_fd);
  }
}

}  // namespace

void write_output_file(std::string_view flag, const std::string& path, std::string_view bytes) {
  if (path.empty()) {
    refuse(flag, path, "is an empty path; give a file name, or '-' for stdout");
  }
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) {
    if (errno != ENOENT) {
      fail_errno(flag, path, errno);
    }
    replace_atomically(flag, path, bytes, nullptr);
    return;
  }
  struct stat target = link;
  if (S_ISLNK(link.st_mode) && ::stat(path.c_str(), &target) != 0) {
    refuse(flag, path, "is a symbolic link to nothing; tpcost does not replace links");
  }
  if (S_ISCHR(target.st_mode) || S_ISFIFO(target.st_mode)) {
    write_in_place(flag, path, bytes);
    return;
  }
  if (S_ISLNK(link.st_mode)) {
    refuse(flag, path,
           "is a symbolic link; tpcost does not replace links (give the file it points to)");
  }
  if (S_ISDIR(target.st_mode)) {
    refuse(flag, path, "is a directory; give a file name");
  }
  if (!S_ISREG(target.st_mode)) {
    refuse(flag, path,
           "is not a regular file (a block device or socket); tpcost will not replace it");
  }
  if (::access(path.c_str(), W_OK) != 0) {
    fail_errno(flag, path, errno);  // a read-only file stays read-only, as with '>'
  }
  replace_atomically(flag, path, bytes, &target);
}

}  // namespace tpcost::cli
