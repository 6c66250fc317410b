// place_bench: the whole `place` job on ONNX models, phase by phase — load (parse, shape inference
// with shape-arithmetic folding), costs (roofline annotation), solve (pass pipeline and exact DP),
// write (annotated model and per-stage sub-models, in memory) — on the default device preset. The
// target: under 5 s in total for the largest bundled model (BERT-12-size, several thousand ONNX
// nodes including weight nodes) on a 2-core machine. Exits 1 if that target fails.
//
// Usage: place_bench [MODEL.onnx ...]   (default: every model in tests/data/models)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "api/model.h"
#include "api/place.h"
#include "bench/bundled_models.h"
#include "core/budget.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Row {
  std::string model;
  std::size_t onnx_nodes = 0, operators = 0;
  double load = 0, costs = 0, solve = 0, write = 0;
  double total() const { return load + costs + solve + write; }
};

bool measure(const std::filesystem::path& path, Row& row) {
  using namespace placer;  // NOLINT: a benchmark's main file
  row.model = path.filename().string();
  // place's defaults, with the exact DP as the solver (what this bench has always timed).
  api::PlaceOptions options;
  options.algorithm = "dp";
  options.algorithm_given = true;
  if (Status s = api::validate(options, api::OptionNaming::Key); !s) return false;
  auto start = Clock::now();
  auto model = api::readModel(path, options, api::OptionNaming::Key);
  row.load = placer::secondsSince(start);
  if (!model) {
    std::fprintf(stderr, "%s\n", model.status().message().c_str());
    return false;
  }
  row.operators = model->graph.nodes.size();
  row.onnx_nodes = model->graph.nodes.size();
  for (const OnnxNode& node : model->graph.nodes)
    row.onnx_nodes += node.folded.size();
  start = Clock::now();
  if (Status s = api::costModel(*model, options); !s) return false;
  row.costs = placer::secondsSince(start);
  start = Clock::now();
  auto placed = api::solveModel(*model, options, {});
  if (!placed) {
    std::fprintf(stderr, "%s\n", placed.status().message().c_str());
    return false;
  }
  row.solve = placer::secondsSince(start);
  start = Clock::now();
  auto annotated = api::annotatedModel(*model, *placed, AnnotateMode::Ort);
  auto stages = api::stageModels(*model, *placed);
  row.write = placer::secondsSince(start);
  return annotated.hasValue() && stages.hasValue();
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::filesystem::path> models =
      placer::bench::modelsFromArguments(argc, argv, PLACER_BENCH_MODEL_DIR);
  std::printf("%-28s %10s %9s | %8s %8s %8s %8s | %8s\n", "model", "onnx nodes", "operators", "load s",
              "costs s", "solve s", "write s", "total s");
  bool ok = true;
  Row largest;
  for (const auto& path : models) {
    Row row;
    if (!measure(path, row)) {
      std::printf("%-28s FAILED\n", path.filename().string().c_str());
      ok = false;
      continue;
    }
    std::printf("%-28s %10zu %9zu | %8.3f %8.3f %8.3f %8.3f | %8.3f\n", row.model.c_str(), row.onnx_nodes,
                row.operators, row.load, row.costs, row.solve, row.write, row.total());
    if (row.onnx_nodes > largest.onnx_nodes) largest = row;
  }
  const bool fast = largest.total() < 5.0;
  std::printf("\n%s time: %s (%zu ONNX nodes) takes %.3f s end to end (target < 5 s)\n",
              fast ? "PASS" : "FAIL", largest.model.c_str(), largest.onnx_nodes, largest.total());
  return ok && fast ? 0 : 1;
}
