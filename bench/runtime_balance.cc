// runtime_balance: does the balance `place` predicts hold when its stage sub-models run in ONNX
// Runtime? For every model and k CPU cores: profile the model in ONNX Runtime (CPU, one thread,
// optimisation level 'all'), place it on a CPU device specification of this machine with that
// profile, write the stages, and time the stages and the whole model in ONNX Runtime, round by round
// (bench/ort_stage_times.mjs). The same for the equal-operator-count split (the model's operators in
// their topological order, cut into k runs of equal length) as a baseline. Prints, per split, the
// predicted and measured stage times, the measured imbalance (slowest / mean), the pipeline
// efficiency (whole model / (k x slowest stage)), the split overhead (sum of stages / whole model)
// and the largest prediction error, against the targets of the runtime-balance issue:
//   - measured imbalance <= 1.10 at k = 2 and <= 1.15 at k = 4, for every model whose own predicted
//     optimum is within 5% of perfect balance (predicted slowest / mean <= 1.05);
//   - the placement's slowest stage never slower than the equal-count split's;
//   - predicted stage times within 15% of the measured ones.
//
// Usage: runtime_balance [--rounds N] [--k 2,4] [--devices FILE] [--roofline] [--keep DIR] [MODEL.onnx ...]
// (default: every model in tests/data/models; needs node and tests/ort/node_modules).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "bench/run_program.h"
#include "api/model.h"
#include "api/place.h"
#include "core/evaluate.h"
#include "cost_model/device_spec.h"
#include "bench/bundled_models.h"

namespace {

namespace fs = std::filesystem;
using namespace placer;  // NOLINT: a benchmark's main file

struct Options {
  int rounds = 20;
  std::vector<int> ks{2, 4};
  fs::path devices = PLACER_BENCH_DEVICES;
  bool roofline = false;
  fs::path keep;
  std::vector<fs::path> models;
};

// A scratch directory removed with everything in it.
class Scratch {
 public:
  Scratch() {
    std::string pattern = (fs::temp_directory_path() / "runtime-balance-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) {
      std::perror("mkdtemp");
      std::exit(1);
    }
    path_ = pattern;
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Runs node with `args`; standard output goes to `out`. Returns the exit status (-1 if it could not run).
int runNode(const std::vector<std::string>& args, const fs::path& out) {
  std::vector<std::string> argv{"node", PLACER_BENCH_ORT_SCRIPT};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string why;
  const int status = placer::bench::runProgram(argv, out.string(), "", &why);
  if (!why.empty()) std::fprintf(stderr, "runtime_balance: cannot run node: %s\n", why.c_str());
  return status;
}

struct Split {
  std::string name;               // "dp" or "equal"
  std::vector<double> predicted;  // seconds per stage, pipeline order
  std::vector<double> measured;   // seconds per stage
  fs::path dir;
};

struct Row {
  std::string model;
  int k = 0;
  std::string error;
  double whole = 0;  // measured seconds of the whole model
  std::vector<Split> splits;
};

double maxOf(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}
double meanOf(const std::vector<double>& v) {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}
double imbalance(const std::vector<double>& v) {
  return meanOf(v) > 0 ? maxOf(v) / meanOf(v) : 0;
}
double sumOf(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}
double worstError(const Split& s) {
  double worst = 0;
  for (std::size_t i = 0; i < s.predicted.size() && i < s.measured.size(); ++i)
    worst = std::max(worst, std::abs(s.predicted[i] - s.measured[i]) / s.measured[i]);
  return worst;
}

// Writes the stages of `placed` into dir and returns the predicted stage times.
Expected<std::vector<double>> writeStages(const api::LoadedModel& model, const api::Placed& placed,
                                          const fs::path& dir) {
  api::OutputFiles files;
  files.stages_dir = dir;
  if (Status s = api::writeOutputs(model, placed, AnnotateMode::Ort, files, nullptr); !s) return s;
  std::vector<double> predicted;
  for (const PlannedStage& stage : placed.plan.stages)
    predicted.push_back(stage.seconds);
  return predicted;
}

// The model's operators in their (topological) order, cut into k runs of equal length.
SolveResult equalCountSplit(const Problem& problem, int k) {
  const std::size_t n = boost::num_vertices(problem.graph);
  SolveResult result;
  result.status = SolveStatus::Feasible;
  for (std::size_t v = 0; v < n; ++v) {
    const int chunk = static_cast<int>(v * static_cast<std::size_t>(k) / n);
    result.placement.device_of.push_back(problem.devices.accelerators + chunk);
    result.placement.stage_of.push_back(chunk);
  }
  result.value = result.placement.value = evaluateThroughput(problem, result.placement.device_of).max_load;
  return result;
}

Row measure(const fs::path& model, int k, const fs::path& trace,
            const Options& options, const fs::path& scratch) {
  Row row;
  row.model = model.filename().string();
  row.k = k;
  auto fail = [&](const std::string& why) {
    row.error = why;
    return row;
  };
  // The devices of the specification file with k CPU cores and no accelerators, costed from the
  // profile (the roofline model answers for what it does not time), solved by the exact DP.
  api::PlaceOptions run;
  run.devices = options.devices;
  run.accelerators = 0;
  run.cpus = k;
  if (!trace.empty()) run.cost_profiles.push_back(trace);
  run.algorithm = "dp";
  run.algorithm_given = true;
  if (Status s = api::validate(run, api::OptionNaming::Key); !s) return fail(s.message());
  auto loaded = api::loadModel(model, run, api::OptionNaming::Key);
  if (!loaded) return fail(loaded.status().message());
  if (!options.keep.empty() || !trace.empty()) {
    for (const std::string& note : loaded->annotation.notes)
      std::fprintf(stderr, "  %s, k = %d: %s\n", row.model.c_str(), k, note.c_str());
  }
  auto placed = api::solveModel(*loaded, run, {});
  if (!placed) return fail(placed.status().message());
  const fs::path base_dir = options.keep.empty() ? scratch : options.keep;
  const std::string stem = model.stem().string() + "-k" + std::to_string(k);
  Split dp{"dp", {}, {}, base_dir / (stem + "-dp")};
  Split equal{"equal", {}, {}, base_dir / (stem + "-equal")};
  for (Split* split : {&dp, &equal}) {
    std::error_code ec;
    fs::remove_all(split->dir, ec);
    run.algorithm = split->name;
    auto written = split == &dp ? Expected<api::Placed>(*placed)
                                : api::placedFrom(*loaded, run, equalCountSplit(placed->problem, k));
    if (!written) return fail(split->name + ": " + written.status().message());
    auto predicted = writeStages(*loaded, *written, split->dir);
    if (!predicted) return fail(split->name + ": " + predicted.status().message());
    split->predicted = *predicted;
  }
  const fs::path times = scratch / (stem + "-times.json");
  if (runNode({"time", std::to_string(options.rounds), model.string(), dp.dir.string(), equal.dir.string()},
              times) != 0)
    return fail("timing in ONNX Runtime failed");
  std::ifstream in(times);
  const nlohmann::json result = nlohmann::json::parse(in, nullptr, false);
  if (!result.is_object()) return fail("ort_stage_times.mjs printed no result");
  row.whole = result["whole_ms"].get<double>() * 1e-3;
  for (std::size_t s = 0; s < 2; ++s) {
    Split& split = s == 0 ? dp : equal;
    for (const auto& ms : result["splits"][s])
      split.measured.push_back(ms.get<double>() * 1e-3);
    if (split.measured.size() != split.predicted.size()) return fail("stage count mismatch");
  }
  row.splits = {dp, equal};
  return row;
}

std::string times(const std::vector<double>& seconds) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(seconds.empty() || maxOf(seconds) < 1e-2 ? 3 : 1);
  for (std::size_t i = 0; i < seconds.size(); ++i)
    out << (i ? " " : "") << seconds[i] * 1e3;
  return out.str();
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "runtime_balance: %s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--rounds") {
      o.rounds = std::max(1, std::atoi(value().c_str()));
    } else if (arg == "--k") {
      o.ks.clear();
      std::stringstream list(value());
      for (std::string item; std::getline(list, item, ',');)
        if (std::atoi(item.c_str()) > 0) o.ks.push_back(std::atoi(item.c_str()));
    } else if (arg == "--devices") {
      o.devices = value();
    } else if (arg == "--roofline") {
      o.roofline = true;
    } else if (arg == "--keep") {
      o.keep = value();
    } else if (arg.starts_with("--")) {
      std::fprintf(stderr,
                   "usage: runtime_balance [--rounds N] [--k 2,4] [--devices FILE] [--roofline] [--keep DIR] "
                   "[MODEL.onnx ...]\n");
      std::exit(2);
    } else {
      o.models.emplace_back(arg);
    }
  }
  if (o.models.empty()) o.models = placer::bench::bundledModels(PLACER_BENCH_MODEL_DIR);
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  auto spec = readDeviceSpec(options.devices);
  if (!spec) {
    std::fprintf(stderr, "runtime_balance: %s\n", spec.status().message().c_str());
    return 1;
  }
  if (!options.keep.empty()) fs::create_directories(options.keep);
  Scratch scratch;
  std::vector<Row> rows;
  for (const fs::path& model : options.models) {
    fs::path trace;
    if (!options.roofline) {
      trace = scratch.path() / (model.stem().string() + "-trace.json");
      if (runNode({"profile", model.string(), trace.string(), std::to_string(std::max(10, options.rounds))},
                  scratch.path() / "profile.out") != 0) {
        rows.push_back(Row{model.filename().string(), 0, "profiling in ONNX Runtime failed", 0, {}});
        continue;
      }
    }
    for (int k : options.ks) {
      std::fprintf(stderr, "runtime_balance: %s, k = %d\n", model.filename().string().c_str(), k);
      rows.push_back(measure(model, k, trace, options, scratch.path()));
    }
  }

  std::printf(
      "runtime balance in ONNX Runtime 1.30 (CPU, one intra-op thread per session, %d rounds, fastest "
      "round), costs from %s on %s\n\n",
      options.rounds, options.roofline ? "the roofline model" : "an ONNX Runtime profile of each model",
      spec->name.c_str());
  std::printf("%-26s %2s %-5s | %-30s | %-30s | %6s %6s %6s %6s %6s | %s\n", "model", "k", "split",
              "predicted ms", "measured ms", "imb", "pred", "eff", "split", "err", "targets");
  int applicable = 0, balanced = 0, not_worse = 0, rows_dp = 0, accurate = 0;
  for (const Row& row : rows) {
    if (!row.error.empty()) {
      std::printf("%-26s %2d ERROR: %s\n", row.model.c_str(), row.k, row.error.c_str());
      continue;
    }
    const Split& dp = row.splits[0];
    const Split& equal = row.splits[1];
    for (const Split& s : row.splits) {
      const double measured_imbalance = imbalance(s.measured);
      const double predicted_imbalance = imbalance(s.predicted);
      const double efficiency = row.whole / (row.k * maxOf(s.measured));
      const double overhead = sumOf(s.measured) / row.whole;
      std::string verdict = "-";
      if (&s == &dp) {
        ++rows_dp;
        verdict.clear();
        if (predicted_imbalance <= 1.05) {
          ++applicable;
          const bool ok = measured_imbalance <= (row.k <= 2 ? 1.10 : 1.15);
          balanced += ok;
          verdict += ok ? "balanced " : "IMBALANCED ";
        } else {
          verdict += "(not balanceable) ";
        }
        const bool better = maxOf(dp.measured) <= maxOf(equal.measured) * 1.02;
        not_worse += better;
        verdict += better ? "<=equal " : "WORSE-THAN-EQUAL ";
        const bool close = worstError(s) <= 0.15;
        accurate += close;
        verdict += close ? "err<=15%" : "ERR>15%";
      }
      std::printf("%-26s %2d %-5s | %-30s | %-30s | %6.3f %6.3f %6.3f %6.3f %5.1f%% | %s\n",
                  row.model.c_str(), row.k, s.name.c_str(), times(s.predicted).c_str(),
                  times(s.measured).c_str(), measured_imbalance, predicted_imbalance, efficiency, overhead,
                  100 * worstError(s), verdict.c_str());
    }
  }
  std::printf(
      "\nimb: measured slowest/mean stage; pred: predicted slowest/mean; eff: whole model / (k x slowest "
      "stage); split: sum of stages / whole model; err: largest |predicted - measured| / measured\n");
  std::printf(
      "targets: balanced (imb <= 1.10 at k = 2, <= 1.15 at k = 4, where pred <= 1.05): %d of %d; slowest "
      "stage no slower than the equal-count split's (2%% noise allowance): %d of %d; every stage "
      "predicted within 15%%: %d of %d\n",
      balanced, applicable, not_worse, rows_dp, accurate, rows_dp);
  return 0;
}
