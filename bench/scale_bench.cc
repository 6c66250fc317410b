// scale_bench: how `auto` and SliceGraph scale (issue 9's targets), in three tables.
//  1. Table 1 workloads with --cpus 0: SliceGraph's default order mix against the exact DP's optimum
//     (the DP run here, no time limit): ratio per workload, geometric mean and worst (target: mean
//     within 2%, none above 5%).
//  2. Synthetic graphs (core/synthetic.h, Erdos-Renyi, degree 4, 4 accelerators): 10,000 random orders
//     + BRKGA 100 x 100 on 2,000 nodes (target < 30 s), one 20,000-node graph sliced end to end (DPL's
//     order; target < 60 s), and the default mix against a 10x longer run (target within 1%).
//  3. auto on every workload above and every ONNX model given on the command line is not repeated
//     here: place_bench and the CLI measure models.
// Usage: scale_bench [--quick]   (--quick: smaller synthetic runs, for a smoke test)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/synthetic.h"
#include "onnx_io/workload_json.h"
#include "passes/pass_manager.h"
#include "solvers/slicegraph/solve.h"
#include "solvers/throughput_dp.h"

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

placer::Problem reduced(placer::Problem p) {
  placer::PassRegistry registry;
  placer::registerBuiltinPasses(registry);
  placer::PassManager manager;
  placer::PassContext ctx;
  if (!manager.parsePipeline(registry, "subdivide,colocate,orphans,scc,fold-leaves").isOk() ||
      !manager.run(p, ctx).isOk()) {
    std::fprintf(stderr, "reduction failed\n");
  }
  return p;
}

placer::SolveResult sliceGraph(const placer::Problem& p, const std::string& phases, std::uint64_t seed = 1) {
  placer::OrderSearchOptions options;
  options.phases = *placer::parseOrderPhases(phases);
  options.seed = seed;
  return placer::solveSliceGraph(p, options);
}

void table1() {
  const char* files[] = {"LayerGraphs/bert24_inference.json",     "LayerGraphs/bert24_training.json",
                         "LayerGraphs/gnmt_inference.json",       "LayerGraphs/gnmt_training.json",
                         "LayerGraphs/resnet50_inference.json",   "LayerGraphs/resnet50_training.json",
                         "LayerGraphs/inceptionv3_inference.json", "LayerGraphs/inceptionv3_training.json",
                         "OperatorGraphs/bert_l-3_inference.json", "OperatorGraphs/bert_l-6_inference.json",
                         "OperatorGraphs/bert_l-12_inference.json", "OperatorGraphs/resnet50_inference.json",
                         "OperatorGraphs/bert_l-3_training.json",  "OperatorGraphs/bert_l-6_training.json",
                         "OperatorGraphs/bert_L-12_training.json", "OperatorGraphs/resnet50_training.json"};
  std::printf("Table 1 workloads, --cpus 0: SliceGraph (default mix) against the exact DP\n");
  std::printf("%-40s %8s %12s %12s %8s %8s %8s\n", "workload", "units", "DP optimum", "slicegraph", "ratio",
              "DP s", "SG s");
  double log_sum = 0, worst = 0;
  int count = 0;
  for (const char* file : files) {
    auto workload = placer::readWorkload(std::string(PLACER_BENCH_WORKLOAD_DIR) + "/" + file);
    if (!workload) {
      std::fprintf(stderr, "%s\n", workload.status().message().c_str());
      continue;
    }
    workload->devices.cpus = 0;
    const placer::Problem p = reduced(std::move(*workload));
    auto start = Clock::now();
    const placer::SolveResult exact = placer::solveThroughputDp(p, {});
    const double dp_seconds = since(start);
    start = Clock::now();
    const placer::SolveResult sg = sliceGraph(p, std::string(placer::kDefaultOrderPhases));
    const double sg_seconds = since(start);
    const double ratio = sg.value / exact.value;
    log_sum += std::log(ratio);
    worst = std::max(worst, ratio);
    ++count;
    std::printf("%-40s %8zu %12.4f %12.4f %8.4f %8.2f %8.2f\n", file, boost::num_vertices(p.graph), exact.value,
                sg.value, ratio, dp_seconds, sg_seconds);
  }
  std::printf("geometric mean ratio %.4f (target <= 1.02), worst %.4f (target <= 1.05)\n\n",
              std::exp(log_sum / std::max(1, count)), worst);
}

void synthetic(bool quick) {
  placer::SyntheticOptions options;
  options.nodes = quick ? 300 : 2000;
  options.seed = 1;
  const placer::Problem p = *placer::makeSyntheticProblem(options);
  std::printf("Synthetic Erdos-Renyi graph, %d nodes, degree 4, 4 accelerators\n", options.nodes);
  const std::string big = quick ? "random:1000,brkga:100:10" : "random:10000,brkga:100:100";
  auto start = Clock::now();
  placer::SolveResult r = sliceGraph(p, big);
  std::printf("  %-34s %12.4f %10lld orders %8.2f s (target < 30 s)\n", big.c_str(), r.value,
              static_cast<long long>(r.stats.orders), since(start));
  const std::string mix(placer::kDefaultOrderPhases);
  const std::string longer = "mla-weighted,mla,random:10000,brkga:100:1000";
  double values[2];
  int k = 0;
  for (const std::string& phases : {mix, longer}) {
    if (quick && k == 1) break;
    start = Clock::now();
    r = sliceGraph(p, phases, 2);
    values[k++] = r.value;
    std::printf("  %-34s %12.4f %10lld orders %8.2f s\n", phases.c_str(), r.value,
                static_cast<long long>(r.stats.orders), since(start));
  }
  if (k == 2) std::printf("  default mix / 10x longer run: %.4f (target <= 1.01)\n", values[0] / values[1]);

  options.nodes = quick ? 2000 : 20000;
  start = Clock::now();
  const placer::Problem huge = *placer::makeSyntheticProblem(options);
  const double generate = since(start);
  start = Clock::now();
  r = sliceGraph(huge, "random:1");
  std::printf("  %d nodes: generated in %.2f s; DPL's order and one random order sliced end to end in %.2f s "
              "(target < 60 s), max-load %.4f\n\n",
              options.nodes, generate, since(start), r.value);
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  table1();
  synthetic(quick);
  return 0;
}
