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

#include "cost_model/cost_model.h"
#include "onnx_io/annotated_model.h"
#include "onnx_io/plan_builder.h"
#include "onnx_io/stage_models.h"
#include "passes/pass_manager.h"

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Row {
  std::string model;
  std::size_t onnx_nodes = 0, operators = 0;
  double load = 0, costs = 0, solve = 0, write = 0;
  double total() const { return load + costs + solve + write; }
};

bool measure(const std::filesystem::path& path, Row& row) {
  using namespace placer;  // NOLINT: a benchmark's main file
  row.model = path.filename().string();
  auto start = Clock::now();
  auto graph = loadOnnx(path);
  row.load = since(start);
  if (!graph) {
    std::fprintf(stderr, "%s\n", graph.status().message().c_str());
    return false;
  }
  row.operators = graph->nodes.size();
  row.onnx_nodes = graph->nodes.size();
  for (const OnnxNode& node : graph->nodes)
    row.onnx_nodes += node.folded.size();
  start = Clock::now();
  RooflineCostModel roofline;
  auto annotation = annotate(*graph, *devicePreset(kDefaultDevicePreset), {&roofline});
  row.costs = since(start);
  if (!annotation) return false;
  start = Clock::now();
  auto outcome = runPipeline(annotation->problem, defaultPipeline("dp"));
  if (!outcome) {
    std::fprintf(stderr, "%s\n", outcome.status().message().c_str());
    return false;
  }
  const Evaluation eval = evaluateThroughput(outcome->problem, outcome->solve.placement.device_of);
  const PlacementPlan plan = makePlacementPlan(outcome->problem, outcome->solve, eval, "dp");
  row.solve = since(start);
  start = Clock::now();
  auto annotated = annotatedModelBytes(path, *graph, plan, AnnotateMode::Ort);
  auto stages = buildStageModels(path, *graph, plan);
  row.write = since(start);
  return annotated.hasValue() && stages.hasValue();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> models;
  for (int i = 1; i < argc; ++i)
    models.emplace_back(argv[i]);
  if (models.empty()) {
    for (const auto& entry : std::filesystem::directory_iterator(PLACER_BENCH_MODEL_DIR)) {
      if (entry.path().extension() == ".onnx") models.push_back(entry.path());
    }
    std::sort(models.begin(), models.end());
  }
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
