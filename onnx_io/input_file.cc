#include "onnx_io/input_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <system_error>

namespace placer {

namespace {

std::string bytesText(std::uintmax_t bytes) {
  if (bytes >= (std::uintmax_t{1} << 30) && bytes % (std::uintmax_t{1} << 30) == 0)
    return std::to_string(bytes >> 30) + " GiB";
  return std::to_string(bytes) + " bytes";
}

const char* kindOf(std::filesystem::file_type type) {
  switch (type) {
    case std::filesystem::file_type::directory:
      return "a directory";
    case std::filesystem::file_type::character:
      return "a character device";
    case std::filesystem::file_type::block:
      return "a block device";
    case std::filesystem::file_type::fifo:
      return "a FIFO";
    case std::filesystem::file_type::socket:
      return "a socket";
    default:
      return "not a regular file";
  }
}

}  // namespace

Expected<std::string> readInputFile(const std::filesystem::path& path, std::uintmax_t cap) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (ec) return ioError("cannot open " + path.string() + ": " + ec.message());
  if (status.type() != std::filesystem::file_type::regular)
    return ioError("cannot read " + path.string() + ": it is " + kindOf(status.type()) + ", not a file");
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return ioError("cannot read " + path.string() + ": " + ec.message());
  if (size > cap) {
    return invalidInput(path.string() + ": the file has " + std::to_string(size) + " bytes, more than the " +
                        bytesText(cap) + " an input may have");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return ioError("cannot open " + path.string() + ": " + std::strerror(errno));
  std::string bytes;
  bytes.reserve(static_cast<std::size_t>(size));
  bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) return ioError("cannot read " + path.string());
  if (bytes.size() > cap) {  // it grew while being read
    return invalidInput(path.string() + ": the file has more than the " + bytesText(cap) +
                        " an input may have");
  }
  return bytes;
}

}  // namespace placer
