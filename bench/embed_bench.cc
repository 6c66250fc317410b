// embed_bench: placing through the C ABI and the Python module against the CLI's own run, on a
// bundled model and the 7B decoder fixture: wall time (median of --runs, default 3) and peak RSS of
// each as its own process, beside the targets (within 5% of the CLI's time; peak memory at
// most the CLI's plus one copy of the model bytes). Each client does the same work: load, cost, the
// exact DP, the certificate, the annotated model and every stage sub-model (the CLI writes them to
// files, the others take them as bytes).
//
// Usage: embed_bench [--runs N] [MODEL.onnx ...]
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/run_program.h"

namespace fs = std::filesystem;

namespace {

struct Measure {
  double seconds = 0;  // median wall time
  double rss_mb = 0;   // largest peak RSS over the runs
  bool ok = true;
  // What the program printed about its own call ("SECONDS MB" on stdout), when it did: the call's
  // time (median) and its peak RSS above the process's RSS before the call (largest).
  double call_seconds = -1, call_mb = -1;
};

// Runs `args` `runs` times; the peak RSS comes from the children's rusage (wait4).
Measure measure(const std::vector<std::string>& args, int runs, const fs::path& scratch) {
  Measure m;
  std::vector<double> times, call_times;
  for (int i = 0; i < runs; ++i) {
    fs::remove_all(scratch / "out");
    fs::create_directories(scratch / "out");
    std::vector<std::string> storage = args;
    std::vector<char*> argv;
    for (std::string& s : storage) argv.push_back(s.data());
    argv.push_back(nullptr);
    const auto start = std::chrono::steady_clock::now();
    pid_t pid = 0;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string out = (scratch / "stdout").string(), err = (scratch / "stderr").string();
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) m.ok = false;
    posix_spawn_file_actions_destroy(&actions);
    int status = 0;
    struct rusage usage {};
    if (m.ok && wait4(pid, &status, 0, &usage) < 0) m.ok = false;
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) m.ok = false;
    m.rss_mb = std::max(m.rss_mb, usage.ru_maxrss / 1024.0);
    if (FILE* f = std::fopen(out.c_str(), "r")) {
      double seconds = 0, mb = 0;
      if (std::fscanf(f, "%lf %lf", &seconds, &mb) == 2) {
        call_times.push_back(seconds);
        m.call_mb = std::max(m.call_mb, mb);
      }
      std::fclose(f);
    }
  }
  std::sort(times.begin(), times.end());
  m.seconds = times[times.size() / 2];
  if (!call_times.empty()) {
    std::sort(call_times.begin(), call_times.end());
    m.call_seconds = call_times[call_times.size() / 2];
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 3;
  std::vector<fs::path> models;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else {
      models.emplace_back(arg);
    }
  }
  if (models.empty()) {
    models = {fs::path(PLACER_BENCH_MODEL_DIR) / "bert_base_l12_light.onnx",
              fs::path(PLACER_BENCH_SCALE_DIR) / "llama7b_light.onnx"};
  }
  const fs::path scratch = fs::temp_directory_path() / ("embed_bench-" + std::to_string(getpid()));
  fs::create_directories(scratch);
  const std::string python_path = "PYTHONPATH=" PLACER_BENCH_PYTHON_DIR;
  // Prints the call's own time and its peak RSS above the RSS before it (the interpreter, the module
  // and the model's bytes already in memory): what placing costs a program that is already running.
  const char* script =
      "import resource, sys, time, onnx_placer\n"
      "data = open(sys.argv[1], 'rb').read()\n"
      "rss = lambda: int(open('/proc/self/statm').read().split()[1]) * resource.getpagesize() / 2**20\n"
      "before, start = rss(), time.perf_counter()\n"
      "r = onnx_placer.place(data, algorithm='dp')\n"
      "n = len(r.annotated_bytes) + sum(len(s) for s in r.stage_bytes)\n"
      "print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before)\n";
  std::printf("embed_bench: %d run(s) each, median wall time and peak RSS; the exact DP on the default devices\n\n",
              runs);
  std::printf("%-24s %9s | %-8s %8s %9s | %8s %8s %8s | %s\n", "model", "model MB", "client", "time s", "vs CLI",
              "RSS MB", "CLI+MB", "extra MB", "targets");
  bool all = true, all_call = true;
  for (const fs::path& model : models) {
    const double model_mb = static_cast<double>(fs::file_size(model)) / (1024.0 * 1024.0);
    const Measure cli = measure({PLACER_BENCH_CLI, "place", model.string(), "--algorithm", "dp", "-q", "-o",
                                 (scratch / "out" / "a.onnx").string(), "--stages-dir",
                                 (scratch / "out" / "stages").string(), "--report", (scratch / "out" / "r.json").string()},
                                runs, scratch);
    const Measure c = measure({PLACER_BENCH_C_CLIENT, model.string(), "{\"algorithm\": \"dp\"}"}, runs, scratch);
    const Measure python = measure({"env", python_path, "/usr/bin/python3", "-c", script, model.string()}, runs, scratch);
    const Measure interpreter =
        measure({"env", python_path, "/usr/bin/python3", "-c", "import onnx_placer"}, runs, scratch);
    for (const auto& [name, m] : {std::pair{"CLI", cli}, std::pair{"C ABI", c}, std::pair{"Python", python}}) {
      const double ratio = m.seconds / cli.seconds;
      const double extra = m.rss_mb - cli.rss_mb;
      const bool fast = ratio <= 1.05, lean = extra <= model_mb;
      if (std::string(name) != "CLI") all = all && m.ok && fast && lean;
      std::printf("%-24s %9.2f | %-8s %8.3f %8.1f%% | %8.1f %8.1f %+8.1f | %s\n", model.filename().string().c_str(),
                  model_mb, name, m.seconds, 100 * (ratio - 1), m.rss_mb, cli.rss_mb + model_mb, extra,
                  !m.ok ? "FAILED" : std::string(name) == "CLI" ? "-" : fast && lean ? "met" : !fast ? "slower" : "more memory");
    }
    std::printf("%-24s %9s | %-8s %8.3f %9s | %8.1f %8s %8s | the interpreter with the module imported\n", "", "",
                "python3", interpreter.seconds, "", interpreter.rss_mb, "", "");
    if (python.call_seconds >= 0) {
      // The call inside a running interpreter: its time against the CLI's whole run, the memory it adds
      // to the process against the CLI's whole peak.
      const double ratio = python.call_seconds / cli.seconds;
      const bool fast = ratio <= 1.05, lean = python.call_mb <= cli.rss_mb + model_mb;
      all_call = all_call && fast && lean;
      std::printf("%-24s %9s | %-8s %8.3f %8.1f%% | %8.1f %8.1f %8s | %s (place() in a running interpreter)\n", "",
                  "", "py call", python.call_seconds, 100 * (ratio - 1), python.call_mb, cli.rss_mb + model_mb, "",
                  fast && lean ? "met" : !fast ? "slower" : "more memory");
    }
  }
  fs::remove_all(scratch);
  std::printf("\n%s\n", all ? "all targets met, each client as its own process"
                             : "a target was missed, each client as its own process (see the rows)");
  std::printf("%s\n", all_call ? "the Python call in a running interpreter met both targets"
                                : "the Python call in a running interpreter missed a target");
  return 0;
}
