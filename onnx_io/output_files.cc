#include "onnx_io/output_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

Status replaceableAsStageDirectory(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return Status::ok();
  if (!fs::is_directory(dir, ec)) return ioError(dir.string() + " exists and is not a directory");
  static const std::regex kStageFile(R"(stage[0-9]+\.onnx|pipeline\.json|genai_config\.json)");
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file(ec) || entry.is_symlink(ec) || !std::regex_match(name, kStageFile)) {
      return ioError("refusing to replace " + dir.string() + ": it holds '" + name +
                     "', which is not part of a stage directory");
    }
  }
  if (ec) return ioError("cannot read " + dir.string() + ": " + ec.message());
  return Status::ok();
}

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
      for (const fs::directory_entry& file : fs::directory_iterator(entry.path(), ec)) {
        if (!file.is_regular_file(ec) || file.is_symlink(ec)) return refuse(file.path());
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

Status OutputTransaction::checkTarget(const fs::path& target, bool directory) const {
  std::error_code ec;
  const bool exists = fs::exists(fs::symlink_status(target, ec));
  for (const fs::path& input : inputs_) {
    if (exists && fs::equivalent(target, input, ec)) {
      return ioError("refusing to write " + target.string() + ": it is an input file");
    }
    if (directory && exists && isInside(input, target)) {
      return ioError("refusing to replace " + target.string() + ": it holds the input file " +
                     input.string());
    }
  }
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

Status OutputTransaction::stageFile(const fs::path& path, std::string_view bytes) {
  if (stopped()) return interrupted("interrupted before writing " + path.string());
  if (Status s = checkTarget(path, /*directory=*/false); !s) return s;
  std::string name = siblingPattern(path, "tmp");
  const int fd = ::mkstemp(name.data());
  if (fd < 0) {
    return ioError("cannot create a temporary file next to " + path.string() + ": " + std::strerror(errno));
  }
  items_.push_back({path, name, {}, false, false});
  ::fchmod(fd, 0644);  // mkstemp creates 0600; outputs are ordinary files
  Status s = writeAll(fd, bytes, path);
  if (::close(fd) != 0 && s) s = ioError("cannot write " + path.string() + ": " + std::strerror(errno));
  return s;
}

Status OutputTransaction::stageDirectory(const fs::path& dir,
                                         const std::vector<std::pair<std::string, std::string_view>>& files,
                                         bool replace_any, Status (*replaceable)(const fs::path&)) {
  if (stopped()) return interrupted("interrupted before writing " + dir.string());
  if (Status s = checkTarget(dir, /*directory=*/true); !s) return s;
  if (!replace_any) {
    if (Status s = (replaceable ? replaceable : replaceableAsStageDirectory)(dir); !s) return s;
  }
  std::string name = siblingPattern(dir, "tmp");
  if (::mkdtemp(name.data()) == nullptr) {
    return ioError("cannot create a temporary directory next to " + dir.string() + ": " +
                   std::strerror(errno));
  }
  items_.push_back({dir, name, {}, true, false});
  ::chmod(name.c_str(), 0755);  // mkdtemp creates 0700
  for (const auto& [file_name, bytes] : files) {
    if (stopped()) return interrupted("interrupted while writing " + dir.string());
    const fs::path relative = fs::path(file_name).lexically_normal();
    if (relative.is_absolute() || relative.empty() || *relative.begin() == "..") {
      return internalError("'" + file_name + "' is not a path inside " + dir.string());
    }
    const fs::path target = fs::path(name) / relative;
    std::error_code ec;
    const bool is_dir = !file_name.empty() && file_name.back() == '/';
    fs::create_directories(is_dir ? target : target.parent_path(), ec);
    if (ec) return ioError("cannot create a directory in " + dir.string() + ": " + ec.message());
    if (is_dir) continue;
    if (Status s = writeNewFile(target, bytes, dir / relative); !s) return s;
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
