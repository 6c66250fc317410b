// kinds_bench: what telling accelerator kinds apart is worth (issue 30, part 2). On the mixed preset
// (mixed-2xa100-2xv100: two A100-class and two V100-class accelerators, one CPU core) every bundled
// model is placed with the kinds priced apart (the exact DP, a count per kind), and as a planner that
// treats every device as the slower kind would place it (the same machine with four V100s); that
// split then runs on the mixed machine with its stages on the best devices for them (every
// assignment of its stages to the four devices tried, the memory of each device's kind respected).
// The all-A100 machine's optimum is printed as the floor no mixed split beats.
//
// Usage: kinds_bench [MODEL.onnx ...]   (default: every model in tests/data/models)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "api/model.h"
#include "api/place.h"
#include "core/evaluate.h"
#include "cost_model/device_spec.h"
#include "bench/bundled_models.h"

namespace {

using namespace placer;  // NOLINT: a benchmark's main file

// The mixed preset with every device of `kind`.
std::string machineOfOneKind(const std::string& kind) {
  auto spec = devicePreset("mixed-2xa100-2xv100");
  nlohmann::ordered_json json = deviceSpecToJson(*spec);
  for (auto& device : json["devices"])
    device["kind"] = kind;
  return json.dump();
}

struct Solved {
  double value = 0;
  double seconds = 0;
  std::vector<int> device_of;
  Problem problem;
};

bool solve(const std::filesystem::path& path, const std::string& devices_json, Solved& out) {
  api::PlaceOptions options;
  options.devices_json = devices_json;
  options.devices = devices_json.empty() ? "mixed-2xa100-2xv100" : "";
  options.time_limit = 60;
  if (Status s = api::validate(options, api::OptionNaming::Key); !s) return false;
  auto model = api::readModel(path, options, api::OptionNaming::Key);
  if (!model) {
    std::fprintf(stderr, "%s\n", model.status().message().c_str());
    return false;
  }
  if (Status s = api::costModel(*model, options); !s) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return false;
  }
  const auto start = std::chrono::steady_clock::now();
  auto placed = api::solveModel(*model, options, {});
  if (!placed) {
    std::fprintf(stderr, "%s\n", placed.status().message().c_str());
    return false;
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.value = placed->solve.value;
  out.device_of = placed->solve.placement.device_of;
  out.problem = placed->problem;
  return true;
}

// `device_of`'s split on `mixed`'s devices, its accelerators permuted onto them every way: the best
// valid max-load (+inf if no assignment fits the kinds' memory).
double onMixedMachine(const Problem& mixed, const std::vector<int>& device_of) {
  std::vector<int> perm(mixed.devices.accelerators);
  std::iota(perm.begin(), perm.end(), 0);
  double best = kInfinity;
  do {
    std::vector<int> moved = device_of;
    for (int& d : moved) {
      if (mixed.devices.isAccelerator(d)) d = perm[d];
    }
    if (!splitViolations(mixed, moved).empty()) continue;
    best = std::min(best, evaluateThroughput(mixed, moved).max_load);
  } while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::filesystem::path> models =
      placer::bench::modelsFromArguments(argc, argv, PLACER_BENCH_MODEL_DIR);
  const std::string slow = machineOfOneKind("v100"), fast = machineOfOneKind("a100");
  std::printf(
      "| model | mixed optimum (ms) | solve s | as 4 x V100 (ms) | that split on the mixed machine (ms) | "
      "gain | 4 x A100 floor (ms) |\n|---|---|---|---|---|---|---|\n");
  bool ok = true;
  for (const auto& path : models) {
    Solved mixed, as_slow, all_fast;
    if (!solve(path, "", mixed) || !solve(path, slow, as_slow) || !solve(path, fast, all_fast)) {
      std::printf("| %s | FAILED |\n", path.filename().string().c_str());
      ok = false;
      continue;
    }
    const double slow_on_mixed = onMixedMachine(mixed.problem, as_slow.device_of);
    ok = ok && mixed.value <= slow_on_mixed * (1 + 1e-9) && all_fast.value <= mixed.value * (1 + 1e-9);
    std::printf("| %s | %.4f | %.2f | %.4f | %.4f | %.2fx | %.4f |\n", path.filename().string().c_str(),
                mixed.value * 1e3, mixed.seconds, as_slow.value * 1e3, slow_on_mixed * 1e3,
                slow_on_mixed / mixed.value, all_fast.value * 1e3);
  }
  std::printf(
      "\n%s: the mixed optimum is never above the slower-kind split run on the mixed machine, nor below "
      "the all-A100 floor\n",
      ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
