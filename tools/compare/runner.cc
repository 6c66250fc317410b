#include "tools/compare/runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace placer::compare {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// One repetition of one case, running.
struct Child {
  std::size_t case_index = 0;
  pid_t pid = -1;
  Clock::time_point started;
  fs::path dir;
};

std::vector<std::string> childArguments(const Case& c, const RunSettings& settings, const fs::path& output) {
  std::vector<std::string> args{settings.placer.string()};
  const std::vector<std::string>* extra = nullptr;
  if (c.algorithm == "expert") {
    args.insert(args.end(), {"evaluate", c.input.path.string(), "--split", c.input.expert.string()});
    args.insert(args.end(), {"-o", output.string(), "-q"});
    extra = &settings.evaluate_args;
  } else if (c.input.kind == InputKind::Workload) {
    args.insert(args.end(),
                {"partition", c.input.path.string(), "--algorithm", c.algorithm, "--threads", "1"});
    // --log: the passes' times, whose sum is the solve's time without the loading and writing.
    args.insert(args.end(), {"-o", output.string(), "-q", "--log"});
    extra = &settings.partition_args;
  } else {
    args.insert(args.end(), {"place", c.input.path.string(), "--algorithm", c.algorithm, "--threads", "1"});
    args.insert(args.end(), {"--report", output.string(), "-q"});
    extra = &settings.place_args;
  }
  args.insert(args.end(), extra->begin(), extra->end());
  return args;
}

// Forks and runs `args` with stdout and stderr into `dir`, in a process group of its own that dies
// with this process, under the address-space limit. Everything the child does before exec is
// async-signal-safe.
Expected<pid_t> startChild(const std::vector<std::string>& args, const fs::path& dir, double memory_mb) {
  std::vector<char*> argv;
  for (const std::string& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::string out = (dir / "stdout.txt").string(), err = (dir / "stderr.txt").string();
  const rlim_t bytes = static_cast<rlim_t>(memory_mb * 1024 * 1024);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return internalError(std::string("cannot start a case: fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent is gone already
    if (memory_mb > 0) {
      const rlimit limit{bytes, bytes};
      setrlimit(RLIMIT_AS, &limit);
    }
    const int in_fd = open("/dev/null", O_RDONLY);
    const int out_fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err_fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in_fd < 0 || out_fd < 0 || err_fd < 0) _exit(127);
    dup2(in_fd, 0);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also here, so that killing the group works before the child has run
  return pid;
}

std::string readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The last lines of a case's standard error, without the program's name: why it failed.
std::string stderrTail(const fs::path& dir) {
  std::istringstream in(readText(dir / "stderr.txt"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("onnx-placer: ", 0) == 0) line.erase(0, 13);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (auto cr = line.rfind('\r'); cr != std::string::npos) line.erase(0, cr + 1);  // a progress line
    if (!line.empty()) lines.push_back(line);
  }
  std::string tail;
  for (std::size_t i = lines.size() > 3 ? lines.size() - 3 : 0; i < lines.size(); ++i)
    tail += (tail.empty() ? "" : " / ") + lines[i];
  if (tail.size() > 600) tail = tail.substr(0, 600) + "...";
  return tail;
}

// The sum of the pass times that --log prints ("pass scc  12 -> 9 nodes, 20 -> 14 edges, 0.002 s").
std::optional<double> passSeconds(const fs::path& dir) {
  std::istringstream in(readText(dir / "stderr.txt"));
  std::optional<double> total;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("onnx-placer: pass ", 0) != 0) continue;
    const auto edges = line.find(" edges,");
    if (edges == std::string::npos) continue;
    const double seconds = std::strtod(line.c_str() + edges + 7, nullptr);
    total = total.value_or(0) + seconds;
  }
  return total;
}

std::optional<double> numberAt(const nlohmann::json& json, const char* key) {
  if (json.is_object() && json.contains(key) && json[key].is_number()) return json[key].get<double>();
  return std::nullopt;
}

// One finished repetition: its outcome, and its output when it succeeded.
CaseResult finishedRun(const Case& c, const Child& child, int wait_status, bool timed_out, double seconds,
                       const rusage& usage, const RunSettings& settings) {
  CaseResult r;
  r.times.push_back(seconds);
  r.peak_memory_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;
  const std::string tail = stderrTail(child.dir);
  const bool no_memory = tail.find("bad_alloc") != std::string::npos ||
                         tail.find("out of memory") != std::string::npos ||
                         tail.find("Cannot allocate memory") != std::string::npos;
  if (timed_out) {
    r.outcome = Outcome::Timeout;
    std::ostringstream m;
    m << "stopped after " << settings.case_time_limit << " s, the case's time limit";
    r.message = m.str();
    r.exit_code = -SIGKILL;
    return r;
  }
  if (WIFSIGNALED(wait_status)) {
    const int signal = WTERMSIG(wait_status);
    r.exit_code = -signal;
    // Out of memory when the run said so (an uncaught std::bad_alloc aborts with its name); any other
    // signal is a crash, whatever the limit.
    r.outcome = settings.case_memory_mb > 0 && no_memory ? Outcome::OutOfMemory : Outcome::Crashed;
    r.message = std::string("killed by ") +
                (sigabbrev_np(signal) ? "SIG" + std::string(sigabbrev_np(signal)) : "a signal");
    if (r.outcome == Outcome::OutOfMemory) {
      std::ostringstream m;
      m << "exceeded its memory limit of " << settings.case_memory_mb << " MB (" << r.message << ")";
      r.message = m.str();
    }
    if (!tail.empty()) r.message += ": " + tail;
    return r;
  }
  r.exit_code = WEXITSTATUS(wait_status);
  switch (r.exit_code) {
    case 0: {
      const std::string text = readText(child.dir / "output.json");
      const nlohmann::json output = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (output.is_discarded()) {
        r.outcome = Outcome::Error;
        r.message = "the run exited 0 without a readable output";
        return r;
      }
      readCaseOutput(output, r);
      if (!r.solve_seconds) r.solve_seconds = passSeconds(child.dir);
      if (!r.value) {
        r.outcome = Outcome::Error;
        r.message = "the run's output holds no value";
      }
      if (c.algorithm == "expert") r.solver = c.input.expert.filename().string();
      return r;
    }
    case 3:
      r.outcome = Outcome::Infeasible;
      break;
    case 4:
      r.outcome = no_memory ? Outcome::OutOfMemory : Outcome::Failed;
      break;
    case 130:
    case 143:
      r.outcome = Outcome::Interrupted;
      break;
    case 127:
      r.outcome = Outcome::Error;
      r.message = "cannot run " + settings.placer.string();
      return r;
    default:
      r.outcome = no_memory ? Outcome::OutOfMemory : Outcome::Error;
      break;
  }
  r.message = tail.empty() ? "exit status " + std::to_string(r.exit_code) : tail;
  return r;
}

// Folds one repetition into the case's result: the times of all, the value and details of the first
// success, the first failure's outcome.
void addRun(CaseResult& into, CaseResult run, bool first) {
  if (first) {
    std::vector<double> times = std::move(into.times);
    const std::string model = into.model, kind = into.kind, algorithm = into.algorithm;
    into = std::move(run);
    into.model = model;
    into.kind = kind;
    into.algorithm = algorithm;
    return;
  }
  into.times.insert(into.times.end(), run.times.begin(), run.times.end());
  into.peak_memory_mb = std::max(into.peak_memory_mb, run.peak_memory_mb);
  if (into.outcome == Outcome::Ok && run.outcome != Outcome::Ok) {
    into.outcome = run.outcome;
    into.message = run.message + " (repetition " + std::to_string(into.times.size()) + ")";
    into.exit_code = run.exit_code;
  }
}

Expected<fs::path> makeScratch() {
  std::string pattern = (fs::temp_directory_path() / "onnx-placer-compare-XXXXXX").string();
  if (!mkdtemp(pattern.data()))
    return ioError(std::string("cannot create a temporary directory: ") + std::strerror(errno));
  return fs::path(pattern);
}

}  // namespace

void readCaseOutput(const nlohmann::json& output, CaseResult& r) {
  r.outcome = Outcome::Ok;
  // place's report; partition's and evaluate's outputs (the GPipe objective, latency, max-load).
  for (const char* key :
       {"latency_seconds", "max_load_seconds", "gpipeObjective", "totalLatency", "maxLoad"}) {
    if (auto v = numberAt(output, key)) {
      r.value = v;
      break;
    }
  }
  r.ratio = numberAt(output, "ratio");
  r.lower_bound = numberAt(output, "lowerBound");
  for (const char* key : {"memoryViolation", "memory_violation_bytes", "memoryViolationBytes"}) {
    if (auto v = numberAt(output, key)) r.memory_violation = v;
  }
  if (output.contains("solver") && output["solver"].is_object()) {
    const nlohmann::json& solver = output["solver"];
    const std::string algorithm = solver.value("algorithm", "");
    const std::string chosen = solver.value("chosen", "");
    r.solver = chosen.empty() || chosen == algorithm ? algorithm : algorithm + " -> " + chosen;
    r.status = solver.value("status", "");
    r.message = solver.value("how", "");
    r.solve_seconds = numberAt(solver, "solver_seconds");
    for (const char* key : {"memoryViolation", "memory_violation_bytes", "memoryViolationBytes"}) {
      if (auto v = numberAt(solver, key)) r.memory_violation = v;
    }
  }
  if (r.status.empty() && output.contains("status") && output["status"].is_string())
    r.status = output["status"].get<std::string>();
  if (output.contains("valid") && output["valid"].is_boolean())
    r.status = output["valid"] ? "valid" : "invalid";
}

Expected<std::vector<CaseResult>> runCases(const std::vector<Case>& cases, const RunSettings& settings) {
  std::vector<CaseResult> results(cases.size());
  std::vector<int> runs_done(cases.size(), 0);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    results[i].model = cases[i].input.name;
    results[i].kind = cases[i].input.kind == InputKind::Model ? "model" : "workload";
    results[i].algorithm = cases[i].algorithm;
    results[i].outcome = Outcome::Interrupted;
    results[i].message = "not run: compare was interrupted";
  }
  auto scratch = makeScratch();
  if (!scratch) return scratch.status();
  const int repeat = std::max(1, settings.repeat);
  std::vector<std::pair<std::size_t, int>> queue;  // (case, repetition), repetitions of a case apart
  for (int rep = 0; rep < repeat; ++rep) {
    for (std::size_t i = 0; i < cases.size(); ++i)
      queue.emplace_back(i, rep);
  }
  std::vector<Child> running;
  std::size_t next = 0;
  int finished_cases = 0;
  Status failure;
  auto stopped = [&] { return settings.stop && settings.stop->load(); };
  while ((next < queue.size() || !running.empty()) && failure) {
    while (!stopped() && next < queue.size() &&
           static_cast<int>(running.size()) < std::max(1, settings.jobs)) {
      const auto [index, rep] = queue[next++];
      Child child;
      child.case_index = index;
      child.dir = *scratch / ("case" + std::to_string(index) + "-" + std::to_string(rep));
      std::error_code ec;
      fs::create_directory(child.dir, ec);
      if (ec) {
        failure = ioError(child.dir.string() + ": cannot be created: " + ec.message());
        break;
      }
      auto pid = startChild(childArguments(cases[index], settings, child.dir / "output.json"), child.dir,
                            settings.case_memory_mb);
      if (!pid) {
        failure = pid.status();
        break;
      }
      child.pid = *pid;
      child.started = Clock::now();
      running.push_back(std::move(child));
    }
    if (stopped()) {
      for (const Child& child : running) {
        kill(-child.pid, SIGKILL);
        waitpid(child.pid, nullptr, 0);
      }
      running.clear();
      break;
    }
    bool any = false;
    for (std::size_t k = 0; k < running.size();) {
      Child& child = running[k];
      const double seconds = std::chrono::duration<double>(Clock::now() - child.started).count();
      const bool timed_out = seconds > settings.case_time_limit;
      if (timed_out) kill(-child.pid, SIGKILL);
      // Whether it ended, leaving it a zombie (WNOWAIT): its pid, the group's id, is not reused
      // until it is reaped, so the group can be killed safely first.
      siginfo_t info{};
      info.si_pid = 0;
      waitid(P_PID, static_cast<id_t>(child.pid), &info, WEXITED | WNOWAIT | (timed_out ? 0 : WNOHANG));
      if (info.si_pid == 0) {
        ++k;
        continue;
      }
      kill(-child.pid, SIGKILL);  // anything the case left running in its group
      int status = 0;
      rusage usage{};
      wait4(child.pid, &status, 0, &usage);
      any = true;
      const std::size_t i = child.case_index;
      CaseResult run = finishedRun(cases[i], child, status, timed_out, seconds, usage, settings);
      addRun(results[i], std::move(run), runs_done[i] == 0);
      if (++runs_done[i] == repeat) {
        ++finished_cases;
        if (settings.progress) settings.progress(finished_cases, static_cast<int>(cases.size()), results[i]);
      }
      std::error_code ec;
      fs::remove_all(child.dir, ec);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
    }
    if (!any) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (const Child& child : running) {  // after a failure to start a case
    kill(-child.pid, SIGKILL);
    waitpid(child.pid, nullptr, 0);
  }
  std::error_code ec;
  fs::remove_all(*scratch, ec);
  if (!failure) return failure;
  return results;
}

}  // namespace placer::compare
