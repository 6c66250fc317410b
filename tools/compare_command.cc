#include "tools/compare_command.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <thread>

#include "api/picture/comparison_chart.h"
#include "onnx_io/output_files.h"
#include "onnx_placer/version.h"
#include "solvers/registry.h"
#include "tools/compare/baseline.h"
#include "tools/compare/cases.h"
#include "tools/compare/reports.h"
#include "tools/compare/runner.h"
#include "tools/interrupt.h"

namespace placer::cli {

namespace fs = std::filesystem;
using compare::CaseResult;
using compare::Report;

constexpr const char* kCompareHelpText = R"(Usage: onnx-placer compare INPUT... --out-dir DIR [options]
       onnx-placer compare --merge SHARD_DIR... --out-dir DIR [--baseline OLD.json ...]

Runs every algorithm on every input, each run an isolated process of its own (`place` for a model,
`partition` for a workload, `evaluate` for a human expert's split) with its own time and memory
limit: a run that crashes, hangs or runs out of memory is that case's outcome, and the rest go on.
Writes into DIR:
  report.md    the run, the comparison with --baseline, and a table per case: value, its ratio to
               the model's best, runtime, memory violation, gain over each baseline (one-accelerator,
               local-search, pipedream, scotch, expert) and the certified ratio
  report.json  everything above, the input of --baseline and --merge
  report.xml   JUnit XML (Jenkins, GitLab): a <testsuite> per model, a <testcase> per algorithm
               (classname = the model); infeasible is <skipped>, a failed solve and a regression a
               <failure>, a refused, crashed, out-of-memory or timed-out run an <error>; the values
               are the suite's properties ("ALGORITHM.value", ...) and each case's <system-out>
  chart.svg    per model, each algorithm's value over the best (Fig. 8 of Tarnawski et al. 2020)
The four are written together or not at all; DIR is created when missing.

INPUT is a model (.onnx), a workload (.json), a directory (searched recursively for both) or a list
file (.txt or .list: one path per line, relative to the list, # starts a comment). Inputs are named
by their path inside the directory given (or as written, for a file or a list entry): cases are
matched by that name and the algorithm. A workload with a split in a human-experts/ folder beside
it (NAME_expert.json, as in the NeurIPS 2020 workloads) also gets an "expert" case.

Options:
  --algorithms A,B,...    the algorithms to run (default: every one the registry has for the
                          objective), for throughput:
                          @THROUGHPUT@;
                          for latency: @LATENCY@
  --no-expert             no "expert" cases
  --time-limit S          the solver's time limit of each run (default 10)
  --case-timeout S        wall seconds before a run is killed (default: 2 x the time limit + 30)
  --case-memory MB        address-space limit of each run (default 8192; 0: none; none by
                          default in builds with AddressSanitizer, whose shadow memory needs
                          terabytes of address space)
  --jobs N                runs at once (default: the cores), each run single-threaded
  --repeat N              runs of each case (default 1): the time is the median, and --baseline
                          tests times for significance (two-sided Mann-Whitney U, p < 0.05)
  --baseline OLD.json     compare with an earlier report.json; each case is marked + (worse),
                          - (better), ! (newly failing, or a model that is gone), * (fixed) or
                          x (not comparable); a + or ! makes the exit status 5. Options in which the
                          two runs differ are listed; they are compared all the same
  --value-factor F        a value is worse above the baseline's x F (default 1: any worsening)
  --time-factor F         a time is slower above the baseline's x F (default 1.5), and faster
                          below its / F; with one run a side, the factor alone decides
  --shard I/N             run only every N-th case from the I-th (1 <= I <= N): N machines each
                          run one shard, and --merge combines their DIRs into the whole report
  --merge                 the positional arguments are shard output directories: combine their
                          report.json files (no run)
  --placer PATH           the onnx-placer executable that runs the cases (default: this one;
                          another build compares two versions)
  --objective throughput|latency, --gpipe, --accelerators K, --cpus L, --memory BYTES,
  --overlap none|max|duplex, --shared-weights M, --devices SPEC, --dim NAME=VALUE, --seed N
                          passed to every run (--devices and --dim to models only, --overlap and
                          --gpipe to workloads only); workloads otherwise use their own devices
  -q, --quiet             no progress on standard error

Progress: one line per finished case (rewritten in place on a terminal): case i of n, the ETA.
Exit status: 0 the reports are written (cases that failed are in them); 1 bad input or an output
that cannot be written; 2 bad command line; 5 a regression against --baseline; 130/143 interrupted
(nothing written).
)";

const char* compareHelp() {
  static const std::string text = [] {
    std::string help = kCompareHelpText;
    auto put = [&help](const std::string& key, bool latency) {
      std::string names;
      std::size_t line = 0;  // characters on the help's current line, from the column of the text
      for (const SolverInfo& s : builtinSolvers().all()) {
        if (!(latency ? s.latency : s.throughput)) continue;
        if (!names.empty()) {
          names += ",";
          if (line + s.name.size() > 66) {
            names += "\n" + std::string(26, ' ');
            line = 0;
          } else {
            names += " ";
          }
        }
        names += s.name;
        line += s.name.size() + 2;
      }
      if (const auto at = help.find(key); at != std::string::npos) help.replace(at, key.size(), names);
    };
    put("@THROUGHPUT@", false);
    put("@LATENCY@", true);
    return help;
  }();
  return text.c_str();
}

std::vector<OptionSpec> compareOptions() {
  return {{"out-dir", true},        {"algorithms", true},   {"no-expert", false},  {"time-limit", true},
          {"case-timeout", true},   {"case-memory", true},  {"jobs", true},        {"repeat", true},
          {"baseline", true},       {"value-factor", true}, {"time-factor", true}, {"shard", true},
          {"merge", false},         {"placer", true},       {"objective", true},   {"gpipe", false},
          {"accelerators", true},   {"cpus", true},         {"memory", true},      {"overlap", true},
          {"shared-weights", true}, {"devices", true},      {"dim", true, true},   {"seed", true},
          {"quiet", false},         {"help", false}};
}

namespace {

constexpr int kRegression = 5;

struct CompareSettings {
  fs::path out_dir;
  std::vector<std::string> algorithms;
  compare::RunSettings run;
  compare::BaselineSettings baseline;
  std::optional<fs::path> baseline_file;
  std::optional<std::pair<int, int>> shard;
  bool experts = true;
  std::string objective = "throughput";
  nlohmann::json options = nlohmann::json::object();  // passed to every run, for the report
};

// The registry's algorithms for the objective, in registration order.
std::vector<std::string> defaultAlgorithms(Goal goal, bool gpipe) {
  std::vector<std::string> out;
  for (const SolverInfo& s : builtinSolvers().all()) {
    const bool fits = goal == Goal::Latency ? s.latency : (s.throughput && (!gpipe || s.gpipe));
    if (fits) out.push_back(s.name);
  }
  return out;
}

std::optional<std::string> positiveNumber(const Args& args, const char* name, double& out, bool allow_zero) {
  auto it = args.values.find(name);
  if (it == args.values.end()) return std::nullopt;
  auto v = parseNumber(it->second);
  if (!v || !(allow_zero ? *v >= 0 : *v > 0))
    return "--" + std::string(name) + " must be a " + (allow_zero ? "non-negative" : "positive") +
           " number (got '" + it->second + "')";
  out = *v;
  return std::nullopt;
}

std::optional<std::string> positiveInteger(const Args& args, const char* name, int& out) {
  auto it = args.values.find(name);
  if (it == args.values.end()) return std::nullopt;
  auto v = parseInteger(it->second);
  if (!v || *v < 1 || *v > 100000)
    return "--" + std::string(name) + " must be a positive integer (got '" + it->second + "')";
  out = static_cast<int>(*v);
  return std::nullopt;
}

// The options passed through to the runs, each to the commands that take it.
std::optional<std::string> passThrough(const Args& args, CompareSettings& s) {
  auto add = [&](const std::string& name, const std::string& value, bool place, bool partition,
                 bool evaluate) {
    for (auto [to, yes] : {std::pair{&s.run.place_args, place}, std::pair{&s.run.partition_args, partition},
                           std::pair{&s.run.evaluate_args, evaluate}}) {
      if (!yes) continue;
      to->push_back("--" + name);
      if (!value.empty()) to->push_back(value);
    }
    s.options[name] = value.empty() ? nlohmann::json(true) : nlohmann::json(value);
  };
  add("time-limit", args.values.count("time-limit") ? args.values.at("time-limit") : "10", true, true, false);
  for (const char* name : {"accelerators", "cpus", "memory", "shared-weights"}) {
    if (args.values.count(name)) add(name, args.values.at(name), true, true, true);
  }
  if (args.values.count("seed")) add("seed", args.values.at("seed"), true, true, false);
  if (args.values.count("objective")) add("objective", s.objective, true, true, true);
  if (args.values.count("overlap")) add("overlap", args.values.at("overlap"), false, true, true);
  if (args.values.count("devices")) add("devices", args.values.at("devices"), true, false, false);
  if (args.flags.count("gpipe")) add("gpipe", "", false, true, false);
  if (auto it = args.repeated.find("dim"); it != args.repeated.end()) {
    for (const std::string& d : it->second) {
      s.run.place_args.insert(s.run.place_args.end(), {"--dim", d});
    }
    std::string joined;
    for (const std::string& d : it->second)
      joined += (joined.empty() ? "" : " ") + d;
    s.options["dim"] = joined;
  }
  return std::nullopt;
}

std::optional<std::string> parseCompare(const Args& args, CompareSettings& s) {
  if (!args.values.count("out-dir")) return "compare needs --out-dir DIR";
  s.out_dir = args.values.at("out-dir");
  if (args.values.count("objective")) {
    s.objective = args.values.at("objective");
    if (s.objective != "throughput" && s.objective != "latency")
      return "--objective must be throughput or latency (got '" + s.objective + "')";
  }
  const bool gpipe = args.flags.count("gpipe") > 0;
  if (gpipe && s.objective == "latency")
    return "--gpipe is a throughput objective; it does not go with --objective latency";
  double time_limit = 10;
  if (auto e = positiveNumber(args, "time-limit", time_limit, false)) return e;
  s.run.case_time_limit = 2 * time_limit + 30;
  s.run.case_memory_mb = compare::kAddressSanitizer ? 0 : 8192;
  s.run.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (auto [name, field] : {std::pair{"case-timeout", &s.run.case_time_limit},
                             std::pair{"value-factor", &s.baseline.value_factor},
                             std::pair{"time-factor", &s.baseline.time_factor}}) {
    if (auto e = positiveNumber(args, name, *field, false)) return e;
  }
  if (auto e = positiveNumber(args, "case-memory", s.run.case_memory_mb, true)) return e;
  if (s.baseline.value_factor < 1 || s.baseline.time_factor < 1)
    return "--value-factor and --time-factor must be at least 1";
  if (auto e = positiveInteger(args, "jobs", s.run.jobs)) return e;
  if (auto e = positiveInteger(args, "repeat", s.run.repeat)) return e;
  if (args.values.count("baseline")) s.baseline_file = fs::path(args.values.at("baseline"));
  if (args.values.count("shard")) {
    auto shard = compare::parseShard(args.values.at("shard"));
    if (!shard) return shard.status().message();
    s.shard = *shard;
  }
  s.experts = !args.flags.count("no-expert");
  const Goal goal = s.objective == "latency" ? Goal::Latency : Goal::Throughput;
  if (args.values.count("algorithms")) {
    std::stringstream list(args.values.at("algorithms"));
    for (std::string name; std::getline(list, name, ',');) {
      if (name.empty()) continue;
      if (name == "expert")
        return "expert is not an algorithm to list: expert cases come with the workloads' splits";
      const SolverInfo* solver = builtinSolvers().find(name);
      if (!solver) return "unknown algorithm '" + name + "' (known: " + builtinSolvers().names() + ")";
      if (!(goal == Goal::Latency ? solver->latency : solver->throughput)) {
        return name + " does not minimise the " + s.objective +
               " (for it: " + builtinSolvers().names([goal](const SolverInfo& i) {
                 return goal == Goal::Latency ? i.latency : i.throughput;
               }) +
               ")";
      }
      if (std::find(s.algorithms.begin(), s.algorithms.end(), name) == s.algorithms.end())
        s.algorithms.push_back(name);
    }
    if (s.algorithms.empty()) return "--algorithms names no algorithm";
  } else {
    s.algorithms = defaultAlgorithms(goal, gpipe);
  }
  s.run.placer =
      args.values.count("placer") ? fs::path(args.values.at("placer")) : fs::read_symlink("/proc/self/exe");
  if (access(s.run.placer.c_str(), X_OK) != 0)
    return "--placer " + s.run.placer.string() + " is not an executable";
  return passThrough(args, s);
}

std::string duration(double seconds) {
  char text[64];
  if (seconds < 60) {
    std::snprintf(text, sizeof text, "%.0f s", seconds);
  } else {
    std::snprintf(text, sizeof text, "%d min %02d s", static_cast<int>(seconds) / 60,
                  static_cast<int>(seconds) % 60);
  }
  return text;
}

// "case 12 of 40 (30%), ETA 1 min 20 s: model / algorithm: ok 33.2" on standard error.
std::function<void(int, int, const CaseResult&)> progressLine(std::chrono::steady_clock::time_point start) {
  const bool terminal = isatty(STDERR_FILENO) != 0;
  return [start, terminal](int done, int total, const CaseResult& c) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::ostringstream line;
    line << "compare: case " << done << " of " << total << " (" << 100 * done / std::max(total, 1) << "%)";
    if (done < total) line << ", ETA " << duration(elapsed / done * (total - done));
    line << ": " << c.model << " / " << c.algorithm << ": " << compare::toString(c.outcome);
    if (c.value) line << " " << c.value.value();
    const std::string text = printable(line.str());
    if (terminal) {
      std::fprintf(stderr, "\r\033[Konnx-placer: %s%s", text.c_str(), done == total ? "\n" : "");
    } else {
      std::fprintf(stderr, "onnx-placer: %s\n", text.c_str());
    }
    std::fflush(stderr);
  };
}

Expected<Report> readReport(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ioError(path.string() + ": cannot be read");
  const nlohmann::json json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return invalidInput(path.string() + ": not JSON");
  return compare::reportFromJson(json, path.string());
}

picture::ComparisonChart chartOf(const Report& report) {
  picture::ComparisonChart chart;
  chart.title = "onnx-placer compare: each algorithm's " +
                std::string(report.objective == "latency" ? "latency" : "max-load") +
                " over the model's best";
  chart.unit = "";
  std::string last_model;
  for (const CaseResult& c : report.cases) {
    // A long path keeps its end, the part that tells models apart.
    const std::string label = c.model.size() > 40 ? "..." + c.model.substr(c.model.size() - 37) : c.model;
    if (chart.groups.empty() || last_model != c.model) chart.groups.push_back({label, {}});
    last_model = c.model;
    chart.groups.back().values.push_back({c.algorithm, c.outcome == compare::Outcome::Ok && c.value
                                                           ? *c.value
                                                           : std::numeric_limits<double>::infinity()});
  }
  return chart;
}

// Writes the four reports into `dir` together; a directory this run created is removed again when
// writing fails.
Status writeReports(const fs::path& dir, const Report& report, const compare::Comparison* comparison,
                    const std::vector<fs::path>& inputs) {
  std::error_code ec;
  const bool created = !fs::exists(dir, ec) && fs::create_directories(dir, ec);
  if (ec) return ioError(dir.string() + ": cannot be created: " + ec.message());
  if (!fs::is_directory(dir, ec)) return ioError(dir.string() + ": not a directory");
  const std::string json = toJson(report).dump(2) + "\n";
  const std::string md = compare::markdownReport(report, comparison);
  const std::string xml = compare::junitReport(report, comparison);
  const std::string svg = picture::comparisonChartSvg(chartOf(report));
  OutputTransaction outputs(inputs, &interruptFlag());
  Status s;
  for (auto [name, text] : {std::pair{"report.json", &json}, std::pair{"report.md", &md},
                            std::pair{"report.xml", &xml}, std::pair{"chart.svg", &svg}}) {
    if (s) s = outputs.stageFile(dir / name, *text);
  }
  if (s) s = outputs.commit();
  if (!s && created) fs::remove(dir, ec);
  return s;
}

// The rank of each case for sorting: the model's name, then the algorithm in the run's order (expert
// last), as the cases of one run are ordered.
void sortCases(Report& report) {
  auto rank = [&](const std::string& algorithm) {
    auto it = std::find(report.algorithms.begin(), report.algorithms.end(), algorithm);
    return it == report.algorithms.end() ? report.algorithms.size() + (algorithm == "expert" ? 0 : 1)
                                         : static_cast<std::size_t>(it - report.algorithms.begin());
  };
  std::stable_sort(report.cases.begin(), report.cases.end(), [&](const CaseResult& a, const CaseResult& b) {
    if (a.model != b.model) return a.model < b.model;
    return rank(a.algorithm) < rank(b.algorithm);
  });
}

Expected<Report> mergeShards(const std::vector<std::string>& dirs) {
  if (dirs.empty()) return invalidInput("--merge needs the shard output directories");
  Report merged;
  std::map<std::pair<std::string, std::string>, std::string> seen;
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    const fs::path file = fs::path(dirs[i]) / "report.json";
    auto shard = readReport(file);
    if (!shard) return shard.status();
    if (i == 0) {
      merged = *shard;
      merged.cases.clear();
      merged.shard.clear();
      merged.wall_seconds = 0;
    } else if (shard->objective != merged.objective || shard->options != merged.options ||
               shard->algorithms != merged.algorithms) {
      return invalidInput(file.string() + ": ran with other options, objective or algorithms than " +
                          dirs[0] + "/report.json: these are not shards of one run");
    }
    merged.wall_seconds = std::max(merged.wall_seconds, shard->wall_seconds);
    for (CaseResult& c : shard->cases) {
      auto [it, inserted] = seen.emplace(std::pair{c.model, c.algorithm}, dirs[i]);
      if (!inserted)
        return invalidInput(c.model + " / " + c.algorithm + " is in two shards: " + it->second + " and " +
                            dirs[i]);
      merged.cases.push_back(std::move(c));
    }
  }
  sortCases(merged);
  return merged;
}

}  // namespace

int runCompare(const Args& args) {
  CompareSettings s;
  if (auto error = parseCompare(args, s)) return usageError(*error, "compare");
  const bool merge = args.flags.count("merge") > 0;
  if (merge && s.shard) return usageError("--merge combines shards; it does not take --shard", "compare");
  if (args.positional.empty())
    return usageError("compare needs its inputs (models, workloads, directories or lists)", "compare");
  const auto start = std::chrono::steady_clock::now();
  // The baseline is read before any case runs: a missing or damaged one fails at once, not after
  // the whole zoo has run.
  std::optional<Report> baseline;
  if (s.baseline_file) {
    auto read = readReport(*s.baseline_file);
    if (!read) return fail(read.status());
    baseline = std::move(*read);
  }
  std::vector<fs::path> inputs;
  Report report;
  if (merge) {
    auto merged = mergeShards(args.positional);
    if (!merged) return fail(merged.status());
    report = std::move(*merged);
    for (const std::string& d : args.positional)
      inputs.push_back(fs::path(d) / "report.json");
  } else {
    auto found = compare::findInputs(args.positional);
    if (!found) return fail(found.status());
    std::vector<compare::Case> cases = compare::makeCases(*found, s.algorithms, s.experts);
    if (s.shard) cases = compare::shardCases(cases, s.shard->first, s.shard->second);
    for (const compare::Input& in : *found) {
      inputs.push_back(in.path);
      if (!in.expert.empty()) inputs.push_back(in.expert);
    }
    installInterruptHandlers();
    s.run.stop = &interruptFlag();
    if (!args.flags.count("quiet")) s.run.progress = progressLine(start);
    auto results = compare::runCases(cases, s.run);
    if (!results) return fail(results.status());
    if (interruptFlag().load()) return fail(interrupted("interrupted: no report written"));
    report.tool_version = ONNX_PLACER_VERSION;
    report.objective = args.flags.count("gpipe") ? "gpipe" : s.objective;
    report.options = s.options;
    report.algorithms = s.algorithms;
    report.jobs = s.run.jobs;
    report.repeat = s.run.repeat;
    report.case_time_limit = s.run.case_time_limit;
    report.case_memory_mb = s.run.case_memory_mb;
    if (s.shard) report.shard = std::to_string(s.shard->first) + "/" + std::to_string(s.shard->second);
    report.cases = std::move(*results);
    report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  std::optional<compare::Comparison> comparison;
  if (baseline) {
    comparison = compare::compareWithBaseline(*baseline, report, s.baseline);
    inputs.push_back(*s.baseline_file);
  }
  if (Status w = writeReports(s.out_dir, report, comparison ? &*comparison : nullptr, inputs); !w)
    return fail(w);
  if (!args.flags.count("quiet")) {
    int failing = 0;
    for (const CaseResult& c : report.cases)
      failing += compare::isFailure(c.outcome) ? 1 : 0;
    say("", "compare: " + std::to_string(report.cases.size()) + " cases, " + std::to_string(failing) +
                " failing; reports in " + s.out_dir.string());
    if (comparison) {
      for (const compare::Change& c : comparison->changes)
        say("", std::string("compare: ") + c.mark + " " + c.model + " / " + c.algorithm + ": " + c.what);
    }
  }
  return comparison && comparison->regressed ? kRegression : kOk;
}

}  // namespace placer::cli
