// mapping_bench: the device mapping (issue 30) against the consecutive mapping, in the shape of
// Parmesan's Table 2 and Table 1 (../shared/papers.md §3).
//
// Stage graphs. A bundled model's operators, in forward topological order, are cut into S pieces of
// equal compute (a contiguous pipeline split); each piece is a stage, with its operators' time on the
// default accelerator, its weights, and the bytes of the tensors it sends to other stages
// (api::stageGraphOf). For the Table 2 rows ("SemanticFPN-like") the CNN's stage chain gets the skip
// connections of a feature pyramid: each stage s of the first half also sends its output to the
// mirrored stage S-1-s of the second half (the top-down pathway reading the backbone's levels), with
// the bytes of its output to the next stage.
//
// Machines (cost_model/topology_generators.h): 2-D and 3-D meshes and tori at 50 GB/s per link;
// random_blk_1 (blocks of 8 at 50..100 GB/s, 1..2 GB/s between blocks), random_blk_2 (blocks of 4
// at 50..100 GB/s, 0.5..1 GB/s between) and uniform_dist (every pair at 1..100 GB/s), each link
// with 1 us latency; a mesh or torus only where D = S x R forms one (8x8 and 16x16 in 2-D, 4x4x4
// and 8x8x8 in 3-D), as the paper's "-". The two-level cluster: 4 nodes x 4 GPUs, 150 GB/s inside a
// node, 12.5 GB/s (100 Gb/s InfiniBand) between nodes.
//
// For each machine and (S, R), the consecutive mapping (replica r of stage s on device s*R + r) and
// the optimal mapping's search under --time-limit S (default 10) are priced with the cost the
// traffic ratio picks (auto: all-reduce when the replicas' all-reduce moves more bytes than the
// stages send each other); the table prints the speed-up, whether the search proved its mapping
// optimal, and its time.
//
//   build/bench/mapping_bench [--time-limit S] [--quick] [--threads N]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "api/model.h"
#include "api/plan_mapping.h"
#include "core/budget.h"
#include "core/evaluate.h"
#include "cost_model/topology_generators.h"
#include "onnx_io/plan_builder.h"
#include "solvers/mapping/device_mapping.h"

namespace placer {
namespace {

// The model cut into `stages` pieces of equal accelerator compute in forward topological order.
Expected<StageGraph> equalComputeStages(const api::LoadedModel& model, int stages) {
  Problem problem = model.annotation.problem;
  problem.devices = DeviceSet{stages, model.devices.accelerators.memory, 0};
  auto order = forwardTopologicalOrder(problem.graph);
  if (!order) return invalidInput("the model's graph has a cycle");
  auto time = [&](Vertex v) { return std::isfinite(problem.graph[v].p_acc) ? problem.graph[v].p_acc : 0.0; };
  double total = 0;
  for (Vertex v : *order)
    total += time(v);
  std::vector<int> device_of(boost::num_vertices(problem.graph), 0);
  double so_far = 0;
  for (Vertex v : *order) {
    const double mid = so_far + time(v) / 2;
    device_of[v] = std::min(stages - 1, static_cast<int>(mid / total * stages));
    so_far += time(v);
  }
  SolveResult solve;
  solve.status = SolveStatus::Feasible;
  solve.placement.device_of = device_of;
  solve.placement.stage_of = device_of;
  const Evaluation eval = evaluateThroughput(problem, device_of);
  const PlacementPlan plan = makePlacementPlan(problem, solve, eval, "equal-compute");
  StageGraph g = api::stageGraphOf(problem, device_of, eval, plan);
  if (g.stages() != stages) return invalidInput("the model has fewer operators than stages");
  return g;
}

// The feature pyramid's laterals: stage s of the first half to stage S-1-s.
StageGraph withPyramidSkips(StageGraph g) {
  const int S = g.stages();
  std::vector<double> out(S, 0.0);
  for (const StageGraph::Edge& e : g.edges) {
    if (e.to == e.from + 1) out[e.from] += e.bytes;
  }
  for (int s = 0; s < S / 2 - 1; ++s)
    g.edges.push_back({s, S - 1 - s, out[s]});
  return g;
}

struct Machine {
  std::string name;
  TopologyRequest request;
};

// The machines of Table 2 that `devices` devices form.
std::vector<Machine> table2Machines(int devices) {
  std::vector<Machine> out;
  auto grid = [&](const char* name, const char* shape, std::vector<int> dims) {
    TopologyRequest r;
    r.shape = shape;
    r.dims = std::move(dims);
    r.bandwidth = 5e10;
    r.latency = 1e-6;
    out.push_back({name, r});
  };
  const int side2 = static_cast<int>(std::lround(std::sqrt(devices)));
  const int side3 = static_cast<int>(std::lround(std::cbrt(devices)));
  const bool square = side2 * side2 == devices, cube = side3 * side3 * side3 == devices;
  if (square) grid("2d mesh", "mesh", {side2, side2});
  if (square) grid("2d torus", "torus", {side2, side2});
  if (cube) grid("3d mesh", "mesh", {side3, side3, side3});
  if (cube) grid("3d torus", "torus", {side3, side3, side3});
  auto random = [&](const char* name, const char* shape, int block, double high, double low) {
    TopologyRequest r;
    r.shape = shape;
    r.devices = devices;
    r.block = block;
    r.bandwidth = high;
    r.min_bandwidth = low;
    r.latency = 1e-6;
    r.seed = 1;
    out.push_back({name, r});
  };
  random("random_blk_1", "random-block", 8, 1e11, 1e9);
  random("random_blk_2", "random-block", 4, 1e11, 5e8);
  random("uniform_dist", "uniform", 0, 1e11, 1e9);
  return out;
}

struct Row {
  double speedup = 0, seconds = 0;
  bool optimal = false;
  std::string cost;
};

int search_threads = 0;  // --threads: the mapping search's (0: every core)

Expected<Row> mapOnce(const StageGraph& graph, int replicas, const DeviceSpec& machine, double limit) {
  MappingRequest request;
  request.threads = search_threads;
  request.graph = graph;
  request.replicas = replicas;
  request.cost = MapCost::Auto;
  const Topology& topology = *machine.topology;
  auto consecutive = consecutiveMapping(request, topology);
  if (!consecutive) return consecutive.status();
  const auto start = std::chrono::steady_clock::now();
  auto best = optimalMapping(request, topology, Budget(limit, nullptr));
  if (!best) return best.status();
  Row row;
  row.seconds = placer::secondsSince(start);
  row.speedup = consecutive->max_stage_time / best->max_stage_time;
  row.optimal = best->optimal;
  row.cost = best->cost == MapCost::AllReduce ? "AR" : "P2P";
  return row;
}

std::string cell(const Expected<Row>& row) {
  if (!row) return "error";
  char text[64];
  std::snprintf(text, sizeof text, "%.2fx %s %s %.1fs", row->speedup, row->cost.c_str(),
                row->optimal ? "opt" : "lim", row->seconds);
  return text;
}

Expected<api::LoadedModel> load(const char* name) {
  api::PlaceOptions options;
  options.cpus = 0;
  if (Status s = api::validate(options, api::OptionNaming::Key); !s) return s;
  return api::loadModel(std::string(PLACER_BENCH_MODEL_DIR) + "/" + name, options, api::OptionNaming::Key);
}

int run(double limit, bool quick) {
  auto cnn = load("resnet50_light.onnx");
  auto bert = load("bert_base_l12_light.onnx");
  if (!cnn || !bert) {
    std::fprintf(stderr, "mapping_bench: %s\n", (!cnn ? cnn.status() : bert.status()).message().c_str());
    return 1;
  }
  auto base = devicePreset(kDefaultDevicePreset);
  if (!base) return 1;

  std::printf(
      "## Table 2 shape: SemanticFPN-like stage graphs of resnet50_light, speed-up over the consecutive "
      "mapping\n\n(each cell: speed-up, cost (AR all-reduce / P2P), opt = proven optimal or lim = time "
      "limit %.0f s, search time)\n\n",
      limit);
  const std::vector<std::pair<int, int>> shapes =
      quick ? std::vector<std::pair<int, int>>{{4, 16}, {8, 8}, {16, 4}}
            : std::vector<std::pair<int, int>>{{4, 16},  {8, 8},   {16, 4}, {4, 64}, {8, 32},
                                               {16, 16}, {4, 128}, {8, 64}, {16, 32}};
  std::printf("| machine |");
  for (auto [S, R] : shapes)
    std::printf(" (%d,%d) |", S, R);
  std::printf("\n|---|");
  for (std::size_t i = 0; i < shapes.size(); ++i)
    std::printf("---|");
  std::printf("\n");
  const std::vector<std::string> names{"2d mesh",      "2d torus",     "3d mesh",     "3d torus",
                                       "random_blk_1", "random_blk_2", "uniform_dist"};
  for (const std::string& name : names) {
    std::printf("| %s |", name.c_str());
    for (auto [S, R] : shapes) {
      std::string text = "-";
      for (const Machine& m : table2Machines(S * R)) {
        if (m.name != name) continue;
        auto machine = generateTopology(m.request, *base);
        auto graph = equalComputeStages(*cnn, S);
        if (!machine || !graph) {
          text = (!machine ? machine.status() : graph.status()).message();
          break;
        }
        text = cell(mapOnce(withPyramidSkips(*graph), R, *machine, limit));
      }
      std::printf(" %s |", text.c_str());
      std::fflush(stdout);
    }
    std::printf("\n");
  }

  std::printf(
      "\n## Table 1 shape: a two-level cluster of 4 nodes x 4 GPUs (150 GB/s in a node, 12.5 GB/s "
      "between), speed-up over the consecutive mapping\n\n| model | (16,1) | (8,2) | (4,4) | (2,8) |\n"
      "|---|---|---|---|---|\n");
  TopologyRequest cluster;
  cluster.shape = "cluster";
  cluster.nodes = 4;
  cluster.gpus = 4;
  cluster.bandwidth = 1.5e11;
  cluster.inter_bandwidth = 1.25e10;
  cluster.latency = 1e-6;
  auto machine = generateTopology(cluster, *base);
  if (!machine) return 1;
  for (auto [label, model] : {std::pair{"BERT-like (bert_base_l12_light)", &*bert},
                              std::pair{"ResNet-like (resnet50_light)", &*cnn}}) {
    std::printf("| %s |", label);
    for (auto [S, R] : std::vector<std::pair<int, int>>{{16, 1}, {8, 2}, {4, 4}, {2, 8}}) {
      auto graph = equalComputeStages(*model, S);
      std::printf(" %s |", graph ? cell(mapOnce(*graph, R, *machine, limit)).c_str()
                                 : graph.status().message().c_str());
      std::fflush(stdout);
    }
    std::printf("\n");
  }
  std::printf("\nMixed machine (2 A100-class + 2 V100-class): build/bench/kinds_bench.\n");
  return 0;
}

}  // namespace
}  // namespace placer

int main(int argc, char** argv) {
  double limit = 10;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--time-limit") == 0 && i + 1 < argc) {
      limit = std::atof(argv[++i]);
    } else if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      placer::search_threads = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: mapping_bench [--time-limit S] [--quick] [--threads N]\n");
      return 2;
    }
  }
  return placer::run(limit, quick);
}
