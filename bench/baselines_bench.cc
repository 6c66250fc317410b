// The baselines of Tarnawski et al. 2020, §6 (issue 32) on the 16 throughput workloads of Table 1,
// beside the paper's columns: the DP's optimum (ours reproduces it exactly: throughput_bench), the
// expert splits, local search, PipeDream and Scotch as published, and ours: pipedream, local search
// (10 restarts per run, over several seeds: min / median / max), Scotch (its max-load and by how
// much it exceeds memory; a split over memory is no valid placement) and one-accelerator.
//
// Usage: baselines_bench [--seeds N] [--restarts N] [--time-limit S] [--only SUBSTRING]...
// (--time-limit: per local-search run; default none.)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "bench/table1.h"
#include "core/budget.h"
#include "onnx_io/workload_json.h"
#include "passes/pass_manager.h"

namespace {

using namespace placer;

struct Case {
  const char* name;
  const char* file;
  double dp;  // Table 1's columns; 0: not published ("-")
  double expert, local_search, pipedream, scotch;
};

constexpr Case kCases[] = {
    {"layer BERT-24 inference", "LayerGraphs/bert24_inference.json", 17.79, 20.08, 17.80, 17.79, 18.03},
    {"layer BERT-24 training", "LayerGraphs/bert24_training.json", 41.75, 49.40, 39.93, 41.75, 42.01},
    {"layer ResNet50 inference", "LayerGraphs/resnet50_inference.json", 33.77, 43.92, 35.63, 39.38, 34.50},
    {"layer ResNet50 training", "LayerGraphs/resnet50_training.json", 78.63, 112.11, 81.32, 83.67, 80.10},
    {"layer GNMT inference", "LayerGraphs/gnmt_inference.json", 32.91, 46.21, 31.75, 33.03, 34.92},
    {"layer GNMT training", "LayerGraphs/gnmt_training.json", 107.00, 137.15, 91.52, 107.35, 107.00},
    {"layer InceptionV3 inference", "LayerGraphs/inceptionv3_inference.json", 51.55, 102.48, 54.03, 60.42,
     54.01},
    {"layer InceptionV3 training", "LayerGraphs/inceptionv3_training.json", 122.76, 213.65, 122.80, 128.32,
     128.32},
    {"op BERT-3 inference", "OperatorGraphs/bert_l-3_inference.json", 27.92, 0, 24.32, 0, 35.94},
    {"op BERT-6 inference", "OperatorGraphs/bert_l-6_inference.json", 29.58, 0, 42.52, 0, 49.80},
    {"op BERT-12 inference", "OperatorGraphs/bert_l-12_inference.json", 147.48, 0, 257.38, 0, 230.12},
    {"op ResNet50 inference", "OperatorGraphs/resnet50_inference.json", 124.35, 0, 250.08, 0, 197.84},
    {"op BERT-3 training", "OperatorGraphs/bert_l-3_training.json", 65.30, 0, 66.17, 0, 416.97},
    {"op BERT-6 training", "OperatorGraphs/bert_l-6_training.json", 72.86, 0, 94.86, 0, 130.20},
    {"op BERT-12 training", "OperatorGraphs/bert_L-12_training.json", 438.00, 0, 737.99, 0, 800.79},
    {"op ResNet50 training", "OperatorGraphs/resnet50_training.json", 255.19, 0, 530.95, 0, 379.21},
};

struct Options {
  int seeds = 5;
  int restarts = 10;
  double time_limit = std::numeric_limits<double>::infinity();
  std::vector<std::string> only;
};

std::string published(double value) {
  if (value <= 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

struct Run {
  std::string text;  // the value, or why there is none
  double value = 0;
  double violation = 0;
  double seconds = 0;
  bool ok = false;
};

Run run(const Problem& problem, const std::string& algorithm, const Options& o, std::uint64_t seed) {
  PassOptions options;
  options.solver.seed = seed;
  options.solver.restarts = o.restarts;
  if (algorithm == "local-search") options.solver.time_limit = o.time_limit;
  const auto started = std::chrono::steady_clock::now();
  auto outcome =
      runPipeline(problem, defaultPipeline(algorithm, Goal::Throughput, /*certify=*/false), options);
  Run r;
  r.seconds = placer::secondsSince(started);
  if (!outcome) {
    r.text = outcome.status().code() == StatusCode::Infeasible ? "infeasible" : "error";
    return r;
  }
  r.ok = true;
  r.value = outcome->solve.value;
  r.violation = outcome->solve.memory_violation.value_or(0);
  char text[64];
  std::snprintf(text, sizeof text, "%.2f", r.value);
  r.text = text;
  return r;
}

// "min / median / max (time per run)" over the seeds.
std::string spread(const Problem& problem, const Options& o) {
  std::vector<double> values;
  double seconds = 0;
  for (int s = 1; s <= o.seeds; ++s) {
    const Run r = run(problem, "local-search", o, static_cast<std::uint64_t>(s));
    seconds += r.seconds;
    if (r.ok) values.push_back(r.value);
  }
  if (values.empty()) return "infeasible";
  std::sort(values.begin(), values.end());
  char text[96];
  std::snprintf(text, sizeof text, "%.2f / %.2f / %.2f (%.1f s)", values.front(), values[values.size() / 2],
                values.back(), seconds / o.seeds);
  return text;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--seeds" && has_value) {
      o.seeds = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--restarts" && has_value) {
      o.restarts = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--time-limit" && has_value) {
      o.time_limit = std::atof(argv[++i]);
    } else if (arg == "--only" && has_value) {
      o.only.emplace_back(argv[++i]);
    } else {
      std::fprintf(
          stderr,
          "usage: baselines_bench [--seeds N] [--restarts N] [--time-limit S] [--only SUBSTRING]...\n");
      std::exit(2);
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::printf("## Table 1's baselines: the paper's and ours (max-load, lower is better)\n\n");
  std::printf("Local search: %d restarts per run, seeds 1..%d, min / median / max (mean time per run).\n\n",
              o.restarts, o.seeds);
  std::printf(
      "| workload | DP (ours = paper) | expert (paper) | local search (paper) | local search (ours) | "
      "PipeDream (paper) | pipedream (ours) | Scotch (paper) | scotch (ours) | scotch over memory (bytes) | "
      "one-accelerator (ours) |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Case& c : kCases) {
    if (!bench::selected(o.only, c.name)) continue;
    auto loaded = readWorkload(std::string(PLACER_BENCH_WORKLOAD_DIR) + "/" + c.file);
    if (!loaded) {
      std::fprintf(stderr, "baselines_bench: %s\n", loaded.status().message().c_str());
      return 1;
    }
    const Problem& problem = *loaded;
    const Run pipedream = run(problem, "pipedream", o, 1);
    const Run scotch = run(problem, "scotch", o, 1);
    const Run one = run(problem, "one-accelerator", o, 1);
    const std::string local = spread(problem, o);
    std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.4g | %s |\n", c.name,
                published(c.dp).c_str(), published(c.expert).c_str(), published(c.local_search).c_str(),
                local.c_str(), published(c.pipedream).c_str(), pipedream.text.c_str(),
                published(c.scotch).c_str(), scotch.text.c_str(), scotch.violation, one.text.c_str());
    std::fflush(stdout);
  }
  return 0;
}
