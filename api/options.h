// The options of a run, as every client of the facade gives them (the CLI from its flags, the C ABI
// and the Python module from a JSON object, the benches directly), and their validation.
//
// One struct says everything `place` (and `partition`, `export-workload`, `inspect`) takes: where the
// devices come from and the overrides applied to them, how the model is loaded and costed, which
// solver runs with which limits, and how the placement is written. validate() checks the options
// against each other and against the solver registry (an algorithm that does not minimise the
// objective, --gpipe with a solver that cannot) before any file is read, and fills the defaults that
// depend on other options (the time limit of auto). Messages name the option the way the caller's
// user wrote it: a flag for the CLI ("--time-limit"), a key for the C ABI and Python ("time_limit").
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/problem.h"
#include "core/shared_weights.h"
#include "core/status.h"
#include "onnx_io/annotated_model.h"
#include "onnx_io/decoder_phase.h"
#include "passes/pass.h"
#include "passes/pass_manager.h"
#include "solvers/mapping/device_mapping.h"
#include "solvers/mip.h"

namespace placer::api {

class Plugins;

// How messages name an option: "--time-limit" (the CLI) or "time_limit" (JSON keys, Python).
enum class OptionNaming { Flag, Key };
std::string optionName(std::string_view flag, OptionNaming naming);

struct PlaceOptions {
  // Devices: a preset name or a specification file (empty: the default preset), or a specification
  // given as JSON text (devices_json, which wins), then the count and memory overrides.
  std::string devices;
  std::string devices_json;
  std::optional<int> accelerators, cpus;
  std::optional<double> memory;
  std::optional<Overlap> overlap;  // workloads only (a model's costs are per operator)
  // The machine as a topology: a preset or file of the device specification's topology form, in
  // place of `devices` (which may name one too). On a topology the placement's accelerator stages
  // are mapped onto its physical devices (api/plan_mapping.h): by `map`, priced by `map_cost`,
  // within `map_time_limit` seconds (unset: 10).
  std::string topology;
  MapMethod map = MapMethod::Optimal;
  // Replicas per accelerator stage (api/replicas.h): 1 (default) none, R > 1 that many, 0 the
  // search over R ("auto").
  int replicas = 1;
  MapCost map_cost = MapCost::Auto;
  std::optional<double> map_time_limit;
  // A workload on a topology (`partition --topology`): the seconds of one unit of its times, which
  // the mapping needs to add compute to transfers over the links. Unset: refused there.
  std::optional<double> time_unit;
  // Replicas of a training workload (core/replicas.h): the samples of one step, and the bandwidth
  // between replicas in bytes per second (unset: the narrowest route between two of the topology's
  // devices).
  std::optional<double> samples_per_step, allreduce_bandwidth;

  // Model: symbolic dimensions, shared weights, cost sources (plugin first, then profiles, then the
  // roofline model).
  std::map<std::string, std::int64_t> dims;
  std::optional<DecoderPhase> phase;  // a KV-cache decoder's phase (onnx_io/decoder.h); unset: prompt
  SharedWeightMode shared_weights = SharedWeightMode::Auto;
  std::vector<std::filesystem::path> cost_profiles;
  std::optional<std::filesystem::path> cost_plugin;
  bool isolate_shape_inference = true;

  // Solve: the objective, the algorithm (a solver of the registry), its limits.
  Goal goal = Goal::Throughput;
  std::string algorithm = "auto";
  bool algorithm_given = false;     // set explicitly: overrides the partition pass of `pipeline`
  std::optional<double> time_limit;  // seconds; unset: 8 for auto, none otherwise
  bool gpipe = false;                // training throughput as max FW + max BW (solvers that support it)
  std::string pipeline;              // a pass pipeline; empty: the algorithm's default
  bool verify_each = false;
  // Pass plugins (onnx_placer/plugin.h): their passes may appear in `pipeline`, their cost models
  // come first in the cost stack. validate() loads them into `plugins`.
  std::vector<std::filesystem::path> pass_plugins;
  std::shared_ptr<const Plugins> plugins;
  SolverSettings solver;             // max_ideals, mip_gap, mip_backend, orders, seed, threads, ...

  // Outputs.
  AnnotateMode annotate = AnnotateMode::Ort;  // how -o records the placement
};

// Loads the pass plugins, checks the options against each other and the registries, and fills the
// defaults that depend on other options (solver.time_limit). Unsupported with a message naming the
// option on a conflict; a plugin that cannot be loaded is IoError or InvalidInput naming its file.
Status validate(PlaceOptions& options, OptionNaming naming);

// The built-in passes and the options' plugins' passes (validate() has loaded them).
Expected<PassRegistry> passRegistry(const PlaceOptions& options);

// The pipeline the options run: theirs with the algorithm as the partition pass's argument when it
// was given, or the algorithm's default pipeline.
std::string pipelineOf(const PlaceOptions& options);

}  // namespace placer::api
