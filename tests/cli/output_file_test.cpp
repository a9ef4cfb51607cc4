// Output files under hostile conditions, through the real binary: concurrent writers, a
// read-only directory, a full disk, and targets that must never be replaced (a device, a
// FIFO, a directory, a symbolic link). The previous file must survive every failure.
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "run_binary.hpp"

namespace fs = std::filesystem;
using tpcost::test::read_file;

namespace {

struct shell_result {
  int exit_code;
  std::string output;  // stdout and stderr together
};

shell_result shell(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) {
    out.append(buffer, n);
  }
  const int status = pclose(pipe);
  return {WEXITSTATUS(status), out};
}

const std::string bin = TPCOST_BINARY;
const std::string config = std::string(TPCOST_CONFIGS_DIR) + "/gpt3-175b-dgx-a100.json";
const std::string check_json = bin + " check " + config + " --format json";

/// A fresh, empty directory for one test.
fs::path scratch(const std::string& name) {
  const auto dir =
      fs::temp_directory_path() / ("tpcost-output-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

bool is_json(const std::string& text) { return nlohmann::json::accept(text); }

/// Every entry of `dir` other than `keep`: leftover temporary files would show here.
std::size_t others_in(const fs::path& dir, const fs::path& keep) {
  std::size_t n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    n += entry.path().filename() != keep.filename() ? 1U : 0U;
  }
  return n;
}

/// A small tmpfs at `dir` (root only); false, with the reason, where mounting is not allowed.
bool mount_tmpfs(const fs::path& dir, const std::string& size, std::string& why) {
  if (::geteuid() != 0) {
    why = "not root";
    return false;
  }
  const auto options = "size=" + size;
  if (::mount("tpcost-test", dir.c_str(), "tmpfs", 0, options.c_str()) != 0) {
    why = std::string("mount(tmpfs) failed: ") + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace

TEST_CASE("40 concurrent check --output writers leave one complete report", "[cli][output]") {
  const auto dir = scratch("concurrent");
  const auto out = dir / "report.json";
  const auto expected = shell(check_json).output;
  REQUIRE(is_json(expected));
  for (int round = 0; round < 5; ++round) {
    const auto r = shell("for i in $(seq 40); do " + check_json + " --output " + out.string() +
                         " & done; wait");
    INFO("round " << round << ": " << r.output);
    CHECK(r.output.empty());
    CHECK(read_file(out.string()) == expected);
    CHECK(others_in(dir, out) == 0);  // no temporary file left behind
  }
  fs::remove_all(dir);
}

TEST_CASE("concurrent calibrate --out writers do not share a temporary file", "[cli][output]") {
  const auto dir = scratch("calibrate");
  const auto out = dir / "profile.json";
  const std::string input =
      std::string(TPCOST_TEST_DATA_DIR) + "/nccl/dgx-h100-8gpu-all_reduce.txt";
  const auto r = shell("for i in $(seq 20); do " + bin + " calibrate " + input + " --out " +
                       out.string() + " >/dev/null & done; wait");
  INFO(r.output);
  CHECK(r.output.empty());
  CHECK(is_json(read_file(out.string())));
  CHECK(others_in(dir, out) == 0);
  fs::remove_all(dir);
}

TEST_CASE("a failed write leaves the previous report untouched", "[cli][output]") {
  const auto dir = scratch("failures");
  const auto previous = shell(check_json).output;

  SECTION("a read-only directory") {
    const auto out = dir / "report.json";
    write(out, previous);
    std::string why;
    if (::geteuid() == 0) {
      // chmod does not stop root: make the directory a read-only tmpfs instead.
      if (!mount_tmpfs(dir, "64k", why)) {
        WARN("read-only directory case skipped: " << why);
        return;
      }
      write(out, previous);
      REQUIRE(::mount("tpcost-test", dir.c_str(), "tmpfs", MS_REMOUNT | MS_RDONLY, nullptr) == 0);
    } else {
      fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
    }
    const auto r = shell(bin + " sweep --output " + out.string());
    const auto after = read_file(out.string());
    if (::geteuid() == 0) {
      ::umount(dir.c_str());
    } else {
      fs::permissions(dir, fs::perms::owner_all);
    }
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.output, Catch::Matches("tpcost: error: --output: '.*report\\.json' cannot be "
                                        "written: (Read-only file system|Permission denied)\n"));
    CHECK(after == previous);
  }

  SECTION("a full disk") {
    std::string why;
    if (!mount_tmpfs(dir, "16k", why)) {
      WARN("full-disk case skipped (it needs a small tmpfs, mounted as root): " << why);
      return;
    }
    const auto out = dir / "report.json";
    write(out, previous);
    (void)shell("dd if=/dev/zero of=" + (dir / "filler").string() + " bs=1k count=64");
    const auto r = shell(check_json + " --output " + out.string());
    const auto after = read_file(out.string());
    const auto leftovers = others_in(dir, out);
    ::umount(dir.c_str());
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.output, Catch::Matches("tpcost: error: --output: '.*report\\.json' cannot be "
                                        "written: No space left on device\n"));
    CHECK(after == previous);
    CHECK(leftovers == 1);  // the filler alone: the temporary file was removed
  }
  fs::remove_all(dir);
}

TEST_CASE("an output path that is not a regular file is never replaced", "[cli][output]") {
  const auto dir = scratch("targets");

  SECTION("a symbolic link, to a file or to nothing") {
    const auto file = dir / "real.json";
    write(file, "previous");
    fs::create_symlink(file, dir / "link");
    fs::create_symlink(dir / "missing", dir / "dangling");
    for (const auto* name : {"link", "dangling"}) {
      const auto r = shell(bin + " sweep --output " + (dir / name).string());
      CHECK(r.exit_code == 3);
      CHECK_THAT(r.output, Catch::Contains("is a symbolic link"));
      CHECK(fs::is_symlink(dir / name));
    }
    CHECK(read_file(file.string()) == "previous");
    CHECK(!fs::exists(dir / "missing"));
  }

  SECTION("a directory") {
    const auto r = shell(bin + " calibrate " + std::string(TPCOST_TEST_DATA_DIR) +
                         "/nccl/dgx-h100-8gpu-all_reduce.txt --out " + dir.string());
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.output, Catch::Matches("tpcost: error: --out: '.*' is a directory; give a file "
                                        "name\n"));
    CHECK(fs::is_directory(dir));
  }

  SECTION("a FIFO with no reader fails at once instead of hanging") {
    const auto fifo = dir / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const auto r = shell("timeout 10 " + bin + " sweep --output " + fifo.string());
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.output, Catch::Contains("is a FIFO that nobody reads"));
    CHECK(fs::is_fifo(fifo));
  }

  SECTION("a FIFO with a reader, and /dev/stdout, are written in place") {
    const auto fifo = dir / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    // The reader is open before tpcost starts (a non-blocking open for reading succeeds with no
    // writer). A `cat` started in the background raced tpcost's check for a reader: under
    // load tpcost came first, refused the FIFO, and the cat waited forever on the pipe.
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    REQUIRE(reader >= 0);
    const auto r =
        shell("timeout 10 " + bin + " sweep --tp 8 --format csv --output " + fifo.string());
    std::string got;
    char buffer[4096];
    for (ssize_t n = 0; (n = ::read(reader, buffer, sizeof buffer)) > 0;) {
      got.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(reader);
    CHECK(r.exit_code == 0);
    CHECK(fs::is_fifo(fifo));
    CHECK_THAT(got, Catch::StartsWith("tp,compute_s"));
    const auto through_stdout = shell(bin + " sweep --tp 8 --format csv --output /dev/stdout");
    CHECK(through_stdout.exit_code == 0);
    CHECK_THAT(through_stdout.output, Catch::StartsWith("tp,compute_s"));
  }

  SECTION("a character device is written into, not replaced") {
    // A private copy of /dev/null where mknod is allowed (root), else /dev/null itself.
    auto device = fs::path("/dev/null");
    if (::geteuid() == 0 && ::mknod((dir / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
      device = dir / "null";
    }
    const auto r = shell(bin + " calibrate " + std::string(TPCOST_TEST_DATA_DIR) +
                         "/nccl/dgx-h100-8gpu-all_reduce.txt --out " + device.string());
    CHECK(r.exit_code == 0);
    CHECK(fs::is_character_file(device));
    CHECK(fs::is_character_file("/dev/null"));
  }
  fs::remove_all(dir);
}

TEST_CASE("a replaced report keeps its permission bits", "[cli][output]") {
  const auto dir = scratch("mode");
  const auto out = dir / "report.txt";
  write(out, "previous");
  fs::permissions(out, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  REQUIRE(shell(bin + " sweep --output " + out.string()).exit_code == 0);
  CHECK(fs::status(out).permissions() ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
  CHECK_THAT(read_file(out.string()), Catch::StartsWith("TP sweep"));
  fs::remove_all(dir);
}
