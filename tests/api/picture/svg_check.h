// Checks the picture tests share: an SVG (or any XML) file parses as XML (python3's minidom), renders
// with rsvg-convert to a non-empty PNG, and DOT text is accepted by graphviz's dot. The tools are
// installed by .ci/install-deps: a missing one fails the test, it does not skip it.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

extern char** environ;

namespace placer::testing {

// Runs `argv` (looked up on PATH) with its standard output and error into `log`; its exit status, or
// -1 when it could not run or was killed.
inline int runTool(const std::vector<std::string>& argv, const std::filesystem::path& log) {
  std::vector<std::string> storage = argv;
  std::vector<char*> args;
  for (std::string& s : storage)
    args.push_back(s.data());
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

inline std::string readText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Success when `path` is well-formed XML; the parser's message otherwise.
inline ::testing::AssertionResult wellFormedXml(const std::filesystem::path& path) {
  const std::filesystem::path log = path.string() + ".xml-check.log";
  const int rc = runTool(
      {"python3", "-c", "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])", path.string()},
      log);
  if (rc == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << path << " is not well-formed XML (exit " << rc << "): " << readText(log);
}

// Success when rsvg-convert renders `svg` into a non-empty PNG.
inline ::testing::AssertionResult rendersAsPng(const std::filesystem::path& svg) {
  const std::filesystem::path png = svg.string() + ".png", log = svg.string() + ".rsvg.log";
  const int rc = runTool({"rsvg-convert", "-o", png.string(), svg.string()}, log);
  std::error_code ec;
  const auto size = std::filesystem::file_size(png, ec);
  if (rc == 0 && !ec && size > 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "rsvg-convert " << svg << ": exit " << rc << ", PNG of "
                                       << (ec ? 0 : size) << " bytes: " << readText(log);
}

// Success when graphviz's dot lays out the DOT file `dot` as SVG (exit 0).
inline ::testing::AssertionResult dotAccepts(const std::filesystem::path& dot) {
  const std::filesystem::path svg = dot.string() + ".svg", log = dot.string() + ".dot.log";
  const int rc = runTool({"dot", "-Tsvg", "-o", svg.string(), dot.string()}, log);
  if (rc == 0 && std::filesystem::exists(svg)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "dot -Tsvg " << dot << ": exit " << rc << ": " << readText(log);
}

inline void writeText(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

// A fresh directory under the system's temporary directory for one test.
inline std::filesystem::path pictureTestDir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("onnx-placer-picture-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace placer::testing
