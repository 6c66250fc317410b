// bound_bench: how tight the certificates are (issue 11), like the SliceGraph paper's Tables 2-3.
//
// Per workload and k accelerators: the upper bound (the best split `auto` finds within the time
// limit: the exact DP's optimum when it finishes, SliceGraph's otherwise), each lower-bound method's
// value and time (simple, pooled-dp, bottleneck, guess and, with --exact, the contiguous integer
// program; each under the per-bound time limit), and the certified ratio upper / best lower (1 wherever the DP proved
// the optimum). Then the geometric mean of the certified ratio per k, over the 16 Table 1 workloads
// with --cpus 0 and with their own CPUs, and over synthetic graphs of core/synthetic.h. Targets
// (contiguous max-load): geometric mean <= 1.05 for k <= 8 and <= 1.10 for k = 16, 32.
//
// Usage: bound_bench [--time-limit S] [--k 2,4,8,16,32] [--synthetic N] [--nodes N] [--exact]
//                    [--only table1|synthetic] [--mip-solver glpk|cbc]
//   --time-limit S  seconds for the upper bound and for each bound method (default 60)
//   --synthetic N   synthetic graphs (default 100: Erdos-Renyi, Barabasi-Albert, Watts-Strogatz in turn)
//   --nodes N       nodes per synthetic graph (default 200)
//   --exact         also the contiguous integer program (the exact MIP) as a bound
//   --mip-solver B  the solver of the bound methods' linear and integer programs (default glpk)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench/table1.h"
#include "core/synthetic.h"
#include "onnx_io/workload_json.h"
#include "passes/lower_bounds.h"
#include "passes/pass_manager.h"

namespace {

using namespace placer;

struct Options {
  double time_limit = 60;
  std::vector<int> ks = {2, 4, 8, 16, 32};
  int synthetic = 100;
  int nodes = 200;
  bool exact = false;
  std::string only;
  mip::Backend backend = mip::kDefaultBackend;
};

struct Row {
  double upper = 0;
  bool dp_optimal = false;
  std::map<std::string, std::pair<double, double>> bounds;  // method -> (value, seconds)
  double ratio = 1;
  std::string failure;  // why there is no placement (infeasible, or none within the limit)
};

std::vector<std::string> methods(const Options& o) {
  std::vector<std::string> out = {"simple", "pooled-dp", "bottleneck", "guess"};
  if (o.exact) out.push_back("exact");
  return out;
}

Row measure(const Problem& problem, const Options& o) {
  Row row;
  PassOptions ctx;
  ctx.solver.time_limit = o.time_limit;
  ctx.solver.mip_backend = o.backend;
  // No certificate: the bounds are measured one by one below.
  auto upper = runPipeline(problem, defaultPipeline("auto", Goal::Throughput, /*certify=*/false), ctx);
  if (!upper) {
    row.upper = NAN;
    row.failure = upper.status().message();
    return row;
  }
  row.upper = upper->solve.value;
  row.dp_optimal = upper->solve.status == SolveStatus::Optimal;
  double lower = 0;
  for (const std::string& method : methods(o)) {
    SolverSettings settings;
    settings.time_limit = o.time_limit;
    settings.mip_backend = o.backend;
    auto report = proveLowerBound(problem, BoundSpace::Contiguous, {method}, settings);
    const double value = report ? report->lower : 0;
    row.bounds[method] = {value, report && !report->methods.empty() ? report->methods.front().seconds : 0};
    lower = std::max(lower, value);
  }
  if (row.dp_optimal) lower = row.upper;
  row.ratio = lower > 0 ? row.upper / lower : INFINITY;
  return row;
}

void printHeader(const Options& o) {
  std::printf("%-44s %3s %4s %12s %4s", "instance", "k", "cpus", "upper", "how");
  for (const std::string& method : methods(o)) {
    if (method == "simple") {
      std::printf(" | %10s %7s", "simple", "ratio");
    } else {
      std::printf(" | %10s %7s %7s", method.c_str(), "ratio", "time");
    }
  }
  std::printf(" | %9s\n", "certified");
}

// A row without a placement says why, so that the means' counts add up to the rows printed.
void printRow(const std::string& name, int k, int cpus, const Row& r, const Options& o) {
  if (std::isnan(r.upper)) {
    std::printf("%-44s %3d %4d no placement (left out of the means): %s\n", name.c_str(), k, cpus,
                r.failure.c_str());
    std::fflush(stdout);
    return;
  }
  auto ratio = [&](double lower) { return lower > 0 ? r.upper / lower : INFINITY; };
  std::printf("%-44s %3d %4d %12.6g %4s", name.c_str(), k, cpus, r.upper, r.dp_optimal ? "dp" : "sg");
  for (const std::string& method : methods(o)) {
    const auto& [value, seconds] = r.bounds.at(method);
    std::printf(" | %10.6g %7.4f", value, ratio(value));
    if (method != "simple") std::printf(" %6.1fs", seconds);
  }
  std::printf(" | %9.4f\n", r.ratio);
  std::fflush(stdout);
}

struct Means {
  std::map<int, std::vector<double>> ratios;  // per k
  void add(int k, double r) { ratios[k].push_back(r); }
  void print(const char* what) const {
    for (const auto& [k, values] : ratios) {
      double log_sum = 0;
      for (double v : values)
        log_sum += std::log(v);
      const double mean = std::exp(log_sum / static_cast<double>(values.size()));
      const double target = k <= 8 ? 1.05 : 1.10;
      std::printf("%-34s k = %2d: geometric mean certified ratio %.4f over %zu (target <= %.2f) %s\n", what, k, mean,
                  values.size(), target, mean <= target ? "PASS" : "FAIL");
    }
  }
};

void table1(const Options& o) {
  Means no_cpus, own_cpus;
  printHeader(o);
  for (const char* file : bench::kTable1) {
    auto base = readWorkload(std::string(PLACER_BENCH_WORKLOAD_DIR) + "/throughput-inputs/" + file);
    if (!base) {
      std::printf("%s: %s\n", file, base.status().message().c_str());
      continue;
    }
    for (int k : o.ks) {
      for (bool cpus : {false, true}) {
        Problem p = *base;
        p.devices.accelerators = k;
        if (!cpus) p.devices.cpus = 0;
        if (cpus && p.devices.cpus == 0) continue;
        const Row r = measure(p, o);
        printRow(file, k, p.devices.cpus, r, o);
        if (!std::isnan(r.upper)) (cpus ? own_cpus : no_cpus).add(k, r.ratio);
      }
    }
  }
  no_cpus.print("Table 1, --cpus 0");
  own_cpus.print("Table 1, own CPUs");
}

void synthetic(const Options& o) {
  Means means;
  printHeader(o);
  const RandomGraphModel models[] = {RandomGraphModel::ErdosRenyi, RandomGraphModel::BarabasiAlbert,
                                     RandomGraphModel::WattsStrogatz};
  for (int i = 0; i < o.synthetic; ++i) {
    for (int k : o.ks) {
      SyntheticOptions so;
      so.model = models[i % 3];
      so.nodes = o.nodes;
      so.seed = static_cast<std::uint64_t>(i + 1);
      so.devices = {k, 1e18, 0};
      auto p = makeSyntheticProblem(so);
      if (!p) {
        std::fprintf(stderr, "bound_bench: synthetic graph %d: %s\n", i + 1, p.status().message().c_str());
        std::exit(1);
      }
      const Row r = measure(*p, o);
      const char* names[] = {"er", "ba", "ws"};
      printRow(std::string("synthetic ") + names[i % 3] + " seed " + std::to_string(i + 1), k, 0, r, o);
      if (!std::isnan(r.upper)) means.add(k, r.ratio);
    }
  }
  means.print("synthetic");
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bound_bench: %s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--time-limit") {
      o.time_limit = std::atof(value().c_str());
    } else if (arg == "--k") {
      o.ks.clear();
      std::stringstream list(value());
      for (std::string item; std::getline(list, item, ',');)
        o.ks.push_back(std::atoi(item.c_str()));
    } else if (arg == "--synthetic") {
      o.synthetic = std::atoi(value().c_str());
    } else if (arg == "--nodes") {
      o.nodes = std::atoi(value().c_str());
    } else if (arg == "--exact") {
      o.exact = true;
    } else if (arg == "--only") {
      o.only = value();
    } else if (arg == "--mip-solver") {
      const std::string name = value();
      auto backend = mip::parseBackend(name);
      if (!backend || !mip::backendAvailable(*backend)) {
        std::fprintf(stderr, "bound_bench: --mip-solver must be glpk or cbc (cbc when built in), got '%s'\n",
                     name.c_str());
        return 2;
      }
      o.backend = *backend;
    } else {
      std::fprintf(stderr,
                   "usage: bound_bench [--time-limit S] [--k 2,4,8,16,32] [--synthetic N] [--nodes N] [--exact] "
                   "[--only table1|synthetic] [--mip-solver glpk|cbc]\n");
      return 2;
    }
  }
  if (o.only.empty() || o.only == "table1") table1(o);
  if (o.only.empty() || o.only == "synthetic") synthetic(o);
  return 0;
}
