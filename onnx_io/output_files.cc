#include "onnx_io/output_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <regex>
#include <system_error>

namespace placer {

namespace fs = std::filesystem;

namespace {

fs::path parentOf(const fs::path& path) {
  return path.parent_path().empty() ? fs::path(".") : path.parent_path();
}

// A name beside `path` that does not exist yet: ".NAME.<tag>-XXXXXX", created by `make`.
std::string siblingPattern(const fs::path& path, const char* tag) {
  return (parentOf(path) / ("." + path.filename().string() + "." + tag + "-XXXXXX")).string();
}

Status writeAll(int fd, std::string_view bytes, const fs::path& shown) {
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t w = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (w < 0) {
      if (errno == EINTR) continue;
      return ioError("cannot write " + shown.string() + ": " + std::strerror(errno));
    }
    written += static_cast<std::size_t>(w);
  }
  if (::fsync(fd) != 0) return ioError("cannot write " + shown.string() + ": " + std::strerror(errno));
  return Status::ok();
}

// Writes `bytes` to a new file at `path` (which must not exist), mode 0644.
Status writeNewFile(const fs::path& path, std::string_view bytes, const fs::path& shown) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ioError("cannot create " + shown.string() + ": " + std::strerror(errno));
  Status s = writeAll(fd, bytes, shown);
  if (::close(fd) != 0 && s) s = ioError("cannot write " + shown.string() + ": " + std::strerror(errno));
  return s;
}

// Copies `data`'s pieces into `fd` (a new, empty file), zeros between them; checks `stop` between
// chunks, so a large copy ends soon after an interruption.
Status copyPieces(int fd, const DataFile& data, const fs::path& shown, const std::atomic<bool>* stop) {
  std::vector<char> buffer(std::size_t{1} << 20);
  std::uint64_t written = 0;
  for (const DataFile::Piece& piece : data.pieces) {
    if (piece.at < written) return internalError("overlapping pieces in " + shown.string());
    if (piece.at > written && ::ftruncate(fd, static_cast<off_t>(piece.at)) != 0)
      return ioError("cannot write " + shown.string() + ": " + std::strerror(errno));
    if (::lseek(fd, static_cast<off_t>(piece.at), SEEK_SET) < 0)
      return ioError("cannot write " + shown.string() + ": " + std::strerror(errno));
    const int in = ::open(piece.file.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) return ioError("cannot read " + piece.file.string() + ": " + std::strerror(errno));
    std::uint64_t done = 0;
    Status status = Status::ok();
    while (status && done < piece.length) {
      if (stop != nullptr && stop->load(std::memory_order_relaxed)) {
        status = interrupted("interrupted while writing " + shown.string());
        break;
      }
      const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), piece.length - done));
      const ssize_t r = ::pread(in, buffer.data(), want, static_cast<off_t>(piece.offset + done));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        status = ioError("cannot read " + piece.file.string() + ": " +
                         (r == 0 ? std::string("it ends before byte ") + std::to_string(piece.offset + piece.length)
                                 : std::string(std::strerror(errno))));
        break;
      }
      std::size_t out = 0;
      while (status && out < static_cast<std::size_t>(r)) {
        const ssize_t w = ::write(fd, buffer.data() + out, static_cast<std::size_t>(r) - out);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) status = ioError("cannot write " + shown.string() + ": " + std::strerror(errno));
        else out += static_cast<std::size_t>(w);
      }
      done += static_cast<std::uint64_t>(r);
    }
    ::close(in);
    if (!status) return status;
    written = piece.at + piece.length;
  }
  if (data.size > written && ::ftruncate(fd, static_cast<off_t>(data.size)) != 0)
    return ioError("cannot write " + shown.string() + ": " + std::strerror(errno));
  if (::fsync(fd) != 0) return ioError("cannot write " + shown.string() + ": " + std::strerror(errno));
  return Status::ok();
}

// Writes `data` at `path`, which must not exist: a hard link, or a new file of copied pieces.
Status writeDataFile(const fs::path& path, const DataFile& data, const fs::path& shown,
                     const std::atomic<bool>* stop) {
  if (!data.link_to.empty()) {
    if (::link(data.link_to.c_str(), path.c_str()) == 0) return Status::ok();
    const int error = errno;
    std::string why = std::strerror(error);
    if (error == EXDEV) why = "it is on another file system";
    return ioError("cannot link " + shown.string() + " to " + data.link_to.string() + " (" + why +
                   "): write the outputs on the file system that holds the model's data, or copy the data "
                   "(--stage-data copy)");
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ioError("cannot create " + shown.string() + ": " + std::strerror(errno));
  Status s = copyPieces(fd, data, shown, stop);
  if (::close(fd) != 0 && s) s = ioError("cannot write " + shown.string() + ": " + std::strerror(errno));
  return s;
}

void removeQuietly(const fs::path& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

bool isInside(const fs::path& path, const fs::path& dir) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(path, ec);
  const fs::path d = fs::weakly_canonical(dir, ec);
  auto pi = p.begin();
  for (auto di = d.begin(); di != d.end(); ++di, ++pi) {
    if (di->empty()) continue;  // a trailing separator
    if (pi == p.end() || *pi != *di) return false;
  }
  return true;
}

}  // namespace

Status replaceableAsTritonRepository(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return Status::ok();
  if (!fs::is_directory(dir, ec)) return ioError(dir.string() + " exists and is not a directory");
  static const std::regex kVersion("[0-9]+");
  auto refuse = [&](const fs::path& what) {
    return ioError("refusing to replace " + dir.string() + ": it holds '" + what.lexically_relative(dir).string() +
                   "', which is not part of a Triton model repository onnx-placer writes");
  };
  for (const fs::directory_entry& model : fs::directory_iterator(dir, ec)) {
    if (!model.is_directory(ec) || model.is_symlink(ec)) return refuse(model.path());
    for (const fs::directory_entry& entry : fs::directory_iterator(model.path(), ec)) {
      const std::string name = entry.path().filename().string();
      if (name == "config.pbtxt" && entry.is_regular_file(ec) && !entry.is_symlink(ec)) continue;
      if (!entry.is_directory(ec) || entry.is_symlink(ec) || !std::regex_match(name, kVersion)) return refuse(entry.path());
      // The model file and its data files, some of them in subdirectories.
      for (const fs::directory_entry& file : fs::recursive_directory_iterator(entry.path(), ec)) {
        if (file.is_symlink(ec) || (!file.is_regular_file(ec) && !file.is_directory(ec))) return refuse(file.path());
      }
    }
  }
  if (ec) return ioError("cannot read " + dir.string() + ": " + ec.message());
  return Status::ok();
}

OutputTransaction::OutputTransaction(std::vector<fs::path> inputs, const std::atomic<bool>* stop)
    : inputs_(std::move(inputs)), stop_(stop) {}

OutputTransaction::~OutputTransaction() {
  if (!committed_) discardStaged();
}

bool OutputTransaction::stopped() const {
  return stop_ != nullptr && stop_->load(std::memory_order_relaxed);
}

Status refuseInputAsOutput(const fs::path& target, bool directory, const std::vector<fs::path>& inputs) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(target, ec))) return Status::ok();
  for (const fs::path& input : inputs) {
    if (fs::equivalent(target, input, ec)) {
      return ioError("refusing to write " + target.string() + ": it is an input file");
    }
    if (directory && isInside(input, target)) {
      return ioError("refusing to replace " + target.string() + ": it holds the input file " +
                     input.string());
    }
  }
  return Status::ok();
}

Status OutputTransaction::checkTarget(const fs::path& target, bool directory) const {
  if (Status s = refuseInputAsOutput(target, directory, inputs_); !s) return s;
  std::error_code ec;
  const bool exists = fs::exists(fs::symlink_status(target, ec));
  for (const Item& item : items_) {
    if (fs::weakly_canonical(item.target, ec) == fs::weakly_canonical(target, ec))
      return ioError(target.string() + " is named by two outputs");
  }
  if (exists && directory && !fs::is_directory(target, ec))
    return ioError("cannot replace " + target.string() + ": it exists and is not a directory");
  if (exists && !directory && fs::is_directory(target, ec))
    return ioError("cannot write " + target.string() + ": it is a directory");
  const fs::path parent = parentOf(target);
  if (!fs::is_directory(parent, ec))
    return ioError("cannot write " + target.string() + ": the directory " + parent.string() +
                   " does not exist");
  return Status::ok();
}

Status OutputTransaction::beginFile(const fs::path& path, std::string& name, int& fd) {
  if (stopped()) return interrupted("interrupted before writing " + path.string());
  if (Status s = checkTarget(path, /*directory=*/false); !s) return s;
  name = siblingPattern(path, "tmp");
  fd = ::mkstemp(name.data());
  if (fd < 0) {
    return ioError("cannot create a temporary file next to " + path.string() + ": " + std::strerror(errno));
  }
  items_.push_back({path, name, {}, false, false});
  return Status::ok();
}

Status OutputTransaction::stageFile(const fs::path& path, std::string_view bytes) {
  std::string name;
  int fd = -1;
  if (Status s = beginFile(path, name, fd); !s) return s;
  ::fchmod(fd, 0644);  // mkstemp creates 0600; outputs are ordinary files
  Status s = writeAll(fd, bytes, path);
  if (::close(fd) != 0 && s) s = ioError("cannot write " + path.string() + ": " + std::strerror(errno));
  return s;
}

void OutputTransaction::protectSources(const DataFile& data) {
  if (!data.link_to.empty()) protect(data.link_to);
  for (const DataFile::Piece& piece : data.pieces) protect(piece.file);
}

Status OutputTransaction::stageDataFile(const fs::path& path, const DataFile& data) {
  protectSources(data);
  // The name mkstemp reserved is freed for the link or the copy to take.
  std::string name;
  int fd = -1;
  if (Status s = beginFile(path, name, fd); !s) return s;
  ::close(fd);
  ::unlink(name.c_str());
  return writeDataFile(name, data, path, stop_);
}

Status OutputTransaction::stageDirectory(const fs::path& dir,
                                         const std::vector<std::pair<std::string, std::string_view>>& files,
                                         const std::vector<DataFile>& data, bool replace_any,
                                         Status (*replaceable)(const fs::path&)) {
  if (stopped()) return interrupted("interrupted before writing " + dir.string());
  for (const DataFile& file : data) protectSources(file);
  if (Status s = checkTarget(dir, /*directory=*/true); !s) return s;
  if (!replace_any && replaceable != nullptr) {
    if (Status s = replaceable(dir); !s) return s;
  }
  std::string name = siblingPattern(dir, "tmp");
  if (::mkdtemp(name.data()) == nullptr) {
    return ioError("cannot create a temporary directory next to " + dir.string() + ": " +
                   std::strerror(errno));
  }
  items_.push_back({dir, name, {}, true, false});
  ::chmod(name.c_str(), 0755);  // mkdtemp creates 0700
  // Where `file_name` goes in the temporary directory, its parent directories created.
  auto place = [&](const std::string& file_name, bool is_dir) -> Expected<fs::path> {
    if (stopped()) return interrupted("interrupted while writing " + dir.string());
    const fs::path relative = fs::path(file_name).lexically_normal();
    if (relative.is_absolute() || relative.empty() || *relative.begin() == "..") {
      return internalError("'" + file_name + "' is not a path inside " + dir.string());
    }
    const fs::path target = fs::path(name) / relative;
    std::error_code ec;
    fs::create_directories(is_dir ? target : target.parent_path(), ec);
    if (ec) return ioError("cannot create a directory in " + dir.string() + ": " + ec.message());
    return target;
  };
  for (const auto& [file_name, bytes] : files) {
    const bool is_dir = !file_name.empty() && file_name.back() == '/';
    auto target = place(file_name, is_dir);
    if (!target) return target.status();
    if (is_dir) continue;
    if (Status s = writeNewFile(*target, bytes, dir / file_name); !s) return s;
  }
  for (const DataFile& file : data) {
    auto target = place(file.name, false);
    if (!target) return target.status();
    if (Status s = writeDataFile(*target, file, dir / file.name, stop_); !s) return s;
  }
  return Status::ok();
}

Status OutputTransaction::commit() {
  auto fail = [&](Status status) {
    rollBack();
    discardStaged();
    return status;
  };
  for (Item& item : items_) {
    if (stopped()) return fail(interrupted("interrupted before " + item.target.string() + " was in place"));
    std::error_code ec;
    if (fs::exists(fs::symlink_status(item.target, ec))) {
      // Keep the old contents aside under a fresh name until every output is in place.
      std::string backup = siblingPattern(item.target, "old");
      const int fd = ::mkstemp(backup.data());
      if (fd < 0)
        return fail(ioError("cannot set " + item.target.string() + " aside: " + std::strerror(errno)));
      ::close(fd);
      if (std::rename(item.target.c_str(), backup.c_str()) != 0) {
        // A directory cannot be renamed over the placeholder file.
        ::unlink(backup.c_str());
        if (std::rename(item.target.c_str(), backup.c_str()) != 0)
          return fail(ioError("cannot set " + item.target.string() + " aside: " + std::strerror(errno)));
      }
      item.backup = backup;
    }
    if (std::rename(item.staged.c_str(), item.target.c_str()) != 0)
      return fail(ioError("cannot write " + item.target.string() + ": " + std::strerror(errno)));
    item.moved = true;
  }
  if (stopped()) return fail(interrupted("interrupted while the outputs were moved into place"));
  committed_ = true;
  for (const Item& item : items_) {
    if (!item.backup.empty()) removeQuietly(item.backup);
  }
  return Status::ok();
}

void OutputTransaction::rollBack() {
  for (auto it = items_.rbegin(); it != items_.rend(); ++it) {
    if (it->moved) {
      // Back to the staged name, so discardStaged removes it.
      if (std::rename(it->target.c_str(), it->staged.c_str()) != 0) removeQuietly(it->target);
      it->moved = false;
    }
    if (!it->backup.empty()) {
      std::rename(it->backup.c_str(), it->target.c_str());
      it->backup.clear();
    }
  }
}

void OutputTransaction::discardStaged() {
  for (const Item& item : items_) {
    if (!item.moved) removeQuietly(item.staged);
  }
  items_.clear();
}

Status writeFileAtomically(const fs::path& path, const std::string& text, const std::vector<fs::path>& inputs,
                           const std::atomic<bool>* stop) {
  OutputTransaction transaction(inputs, stop);
  if (Status s = transaction.stageFile(path, text); !s) return s;
  return transaction.commit();
}

}  // namespace placer
