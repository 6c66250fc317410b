// What the fuzz targets of tests/fuzz share: a scratch file for the readers that take a path, the
// bundled test data they start from, and the rule every refusal must keep.
//
// The rule (issue 8, "never crash"): bad input gives a Status whose message names the input, never a
// signal, an abort or a sanitizer report. A refusal that breaks it (an empty message, a message that
// does not name the file, an internal error) is reported by refused() as a finding: it prints what
// it got and aborts, so libFuzzer saves the input like any crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/status.h"

namespace placer::fuzz {

// A file in a directory of this process's own under $TMPDIR (or /tmp), rewritten with every input;
// the directory is removed at exit. One per target and file name, made on first use.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& file_name);
  ~ScratchFile();
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  // Replaces the file's contents with `size` bytes of `data` and returns its path.
  const std::filesystem::path& write(const std::uint8_t* data, std::size_t size);
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path dir_;
  std::filesystem::path path_;
};

// A file of the source tree (tests/data/..., cost_model/presets/...), by its path from the root.
std::filesystem::path sourcePath(std::string_view relative);
// Its contents; aborts when it cannot be read, as nothing can be fuzzed without it.
std::string readSourceFile(std::string_view relative);

// Checks a refusal against the rule above: `reader` names the function for the report, `source` is
// what the message must contain. Returns normally when the refusal is a good one.
void checkRefusal(const Status& status, const std::string& source, const char* reader);

// Aborts with `what` on standard error: for a broken property after a successful read (a result that
// does not read back, a solver answer that fails its check).
[[noreturn]] void finding(const std::string& what);

}  // namespace placer::fuzz
