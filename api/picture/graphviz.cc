#include "api/picture/graphviz.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <vector>

extern char** environ;

namespace placer::picture {
namespace {

// A pipe's two ends, closed on exec (the child gets its ends through dup2) and on destruction.
struct GraphvizPipe {
  int fd[2] = {-1, -1};
  bool open() { return ::pipe2(fd, O_CLOEXEC) == 0; }
  void close(int end) {
    if (fd[end] >= 0) ::close(fd[end]);
    fd[end] = -1;
  }
  ~GraphvizPipe() {
    close(0);
    close(1);
  }
};

// Writing to a pipe whose reader has exited raises SIGPIPE, which would end the whole program: while
// dot runs, this thread blocks it (the write then fails with EPIPE), and a SIGPIPE it caused is taken
// off the pending set before the mask is restored.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeBlock() {
    sigset_t pending;
    sigpending(&pending);
    if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
      const timespec zero{0, 0};
      sigtimedwait(&pipe_, nullptr, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

 private:
  sigset_t pipe_, old_;
  bool was_pending_ = false;
};

Status spawnDot(const std::filesystem::path& dot, GraphvizPipe& in, GraphvizPipe& out, GraphvizPipe& err,
                pid_t& pid) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::string program = dot.string(), format = "-Tsvg";
  std::vector<char*> argv{program.data(), format.data(), nullptr};
  const int rc = posix_spawn(&pid, program.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) return internalError("cannot run " + program + ": " + std::strerror(rc));
  in.close(0);
  out.close(1);
  err.close(1);
  return Status::ok();
}

int waitForDot(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

}  // namespace

std::optional<std::filesystem::path> findGraphvizDot() {
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  const std::string dirs = path;
  for (std::size_t start = 0; start <= dirs.size();) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::filesystem::path candidate =
        std::filesystem::path(end > start ? dirs.substr(start, end - start) : ".") / "dot";
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = end + 1;
  }
  return std::nullopt;
}

Expected<std::string> renderDotSvg(std::string_view dot_text, double timeout_seconds,
                                   const std::atomic<bool>* stop) {
  const auto dot = findGraphvizDot();
  if (!dot) return unsupported("graphviz's dot is not on PATH (Debian: apt-get install graphviz)");
  GraphvizPipe in, out, err;
  if (!in.open() || !out.open() || !err.open())
    return internalError(std::string("pipe: ") + std::strerror(errno));
  SigpipeBlock block;
  pid_t pid = -1;
  if (Status s = spawnDot(*dot, in, out, err, pid); !s) return s;
  ::fcntl(in.fd[1], F_SETFL, O_NONBLOCK);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  std::string svg, errors;
  std::size_t written = 0;
  bool timed_out = false, stopped = false;
  if (dot_text.empty()) in.close(1);
  while (out.fd[0] >= 0 || err.fd[0] >= 0) {
    if (stop && stop->load()) stopped = true;
    if (std::chrono::steady_clock::now() > deadline) timed_out = true;
    if (stopped || timed_out) break;
    pollfd fds[3] = {{in.fd[1], POLLOUT, 0}, {out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}};
    if (::poll(fds, 3, 100) < 0 && errno != EINTR) break;
    if (in.fd[1] >= 0 && (fds[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t n = ::write(in.fd[1], dot_text.data() + written, dot_text.size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == dot_text.size()) in.close(1);
    }
    char buffer[65536];
    for (auto [pipe, text, revents] :
         {std::tuple{&out, &svg, fds[1].revents}, {&err, &errors, fds[2].revents}}) {
      if (pipe->fd[0] < 0 || !(revents & (POLLIN | POLLERR | POLLHUP))) continue;
      const ssize_t n = ::read(pipe->fd[0], buffer, sizeof buffer);
      if (n > 0) text->append(buffer, static_cast<std::size_t>(n));
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) pipe->close(0);
    }
  }
  if (stopped || timed_out) ::kill(pid, SIGKILL);
  const int status = waitForDot(pid);
  if (stopped) return interrupted("interrupted while graphviz's dot ran");
  if (timed_out)
    return timeLimit("graphviz's dot ran longer than " +
                     std::to_string(static_cast<long long>(timeout_seconds)) + " s");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || svg.empty()) {
    const std::string how = WIFEXITED(status)
                                ? "exit status " + std::to_string(WEXITSTATUS(status))
                                : "signal " + std::to_string(WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return internalError(dot->string() + " -Tsvg failed (" + how + ")" +
                         (errors.empty() ? "" : ": " + errors));
  }
  return svg;
}

}  // namespace placer::picture
