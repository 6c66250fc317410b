// CliTest: a GoogleTest fixture that runs the real onnx-placer binary in a fresh temporary directory
// and captures its exit code, standard output and standard error.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_util.h"

extern char** environ;

namespace placer::testing {

namespace fs = std::filesystem;

struct RunResult {
  int exit_code = -1;  // the exit status, or -1000 - signal number if the CLI was killed by a signal
  std::string out;
  std::string err;
};

inline std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline void spit(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

// A fresh directory per test: `work` holds the test's input and output files (so that the test can
// check nothing else is left there); the captured streams live next to it.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() / ("onnx-placer-cli-test-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(counter++) + "-" + info->name());
    fs::remove_all(root_);
    work_ = root_ / "work";
    fs::create_directories(work_);
  }

  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  // A CLI run in progress (start), to be waited for (finish).
  struct Running {
    pid_t pid = -1;
    std::string out_path, err_path;
  };

  // Starts the CLI with the given arguments (without the program name); stdin is /dev/null.
  Running start(const std::vector<std::string>& args) {
    const int id = runs_++;
    Running running;
    running.out_path = (root_ / ("stdout-" + std::to_string(id))).string();
    running.err_path = (root_ / ("stderr-" + std::to_string(id))).string();
    std::vector<std::string> storage{cliPath()};
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& s : storage)
      argv.push_back(s.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, running.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&actions, 2, running.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    const int spawned = posix_spawn(&running.pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
      ADD_FAILURE() << "cannot run " << cliPath() << ": " << std::strerror(spawned);
      running.pid = -1;
    }
    return running;
  }

  // Waits for a run to end and collects its exit code and streams.
  RunResult finish(const Running& running) {
    RunResult result;
    if (running.pid < 0) return result;
    int status = 0;
    while (::waitpid(running.pid, &status, 0) < 0) {
      if (errno != EINTR) {
        ADD_FAILURE() << "waitpid failed: " << std::strerror(errno);
        return result;
      }
    }
    if (WIFEXITED(status))
      result.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
      result.exit_code = -1000 - WTERMSIG(status);
    result.out = slurp(running.out_path);
    result.err = slurp(running.err_path);
    return result;
  }

  // Runs the CLI with the given arguments (without the program name); stdin is /dev/null.
  RunResult run(const std::vector<std::string>& args) { return finish(start(args)); }

  // Writes `text` to work/name and returns its path.
  std::string write(const std::string& name, const std::string& text) {
    const fs::path path = work_ / name;
    spit(path, text);
    return path.string();
  }

  // The names of the files in work/.
  std::set<std::string> workFiles() const {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(work_))
      names.insert(entry.path().filename().string());
    return names;
  }

  fs::path root_, work_;
  int runs_ = 0;
};

}  // namespace placer::testing
