// The shared helpers of the fuzz targets (fuzz_support.h).
#include "tests/fuzz/fuzz_support.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

namespace placer::fuzz {

namespace {

std::filesystem::path makeScratchDirectory() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/onnx-placer-fuzz-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (::mkdtemp(name.data()) == nullptr) finding("cannot create " + pattern + ": " + std::strerror(errno));
  return name.data();
}

}  // namespace

ScratchFile::ScratchFile(const std::string& file_name)
    : dir_(makeScratchDirectory()), path_(dir_ / file_name) {}

ScratchFile::~ScratchFile() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

const std::filesystem::path& ScratchFile::write(const std::uint8_t* data, std::size_t size) {
  std::ofstream out(path_, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) finding("cannot write " + path_.string());
  return path_;
}

std::filesystem::path sourcePath(std::string_view relative) {
  return std::filesystem::path(ONNX_PLACER_SOURCE_DIR) / relative;
}

std::string readSourceFile(std::string_view relative) {
  const std::filesystem::path path = sourcePath(relative);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) finding("cannot read " + path.string());
  return text.str();
}

void checkRefusal(const Status& status, const std::string& source, const char* reader) {
  const std::string& message = status.message();
  if (status.isOk()) finding(std::string(reader) + " failed with an ok status");
  if (status.code() == StatusCode::Internal) finding(std::string(reader) + ": internal error: " + message);
  if (message.find(source) == std::string::npos)
    finding(std::string(reader) + ": the message does not name " + source + ": \"" + message + "\"");
}

void finding(const std::string& what) {
  std::fprintf(stderr, "onnx-placer fuzz finding: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace placer::fuzz
