// Running another program from a benchmark (the CLI, node): posix_spawnp with the program's standard
// output and standard error sent to files, then waiting for it. Shared by the benchmarks that drive
// programs rather than the library.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;

namespace placer::bench {

// Runs `args` (args[0] a path, or a name looked up on PATH) with standard output to `out` and standard
// error to `err` (each truncated or created; empty: the benchmark's own), and waits for it. Returns
// its exit status, or -1 when it could not start (`why` says why) or was killed by a signal.
inline int runProgram(const std::vector<std::string>& args, const std::string& out, const std::string& err,
                      std::string* why = nullptr) {
  std::vector<std::string> storage = args;
  std::vector<char*> argv;
  for (std::string& s : storage)
    argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!out.empty())
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (!err.empty())
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    if (why != nullptr) *why = std::strerror(spawned);
    return -1;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace placer::bench
