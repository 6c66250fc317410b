// The options of a placement, as onnx-placer's public C++ API takes them: the same choices as the
// `place` command's flags, under the names of the C ABI's and the Python module's keys.
//
// A default-constructed Options is `place`'s defaults: the bundled default device set, throughput,
// the `auto` algorithm within 60 s, shared weights replicated, the roofline cost model, and the
// annotated model in ONNX Runtime's layer-annotation form. fromJson() reads the JSON object the C ABI
// takes ({"devices": "pcie3-4x16gb", "accelerators": 2, "dims": {"seq": 128}, ...}); an unknown key
// or a value of the wrong type is an error naming it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_placer/status.h"

namespace onnx_placer {

// A long solve's progress ("ideals", "dp", "slicegraph" ...): done of total (0: unknown) and a detail.
struct Progress {
  std::string phase;
  std::int64_t done = 0;
  std::int64_t total = 0;
  std::string detail;
};

struct ONNX_PLACER_EXPORT Options {
  // Devices: a bundled preset's name or a specification file (empty: the default preset), or a
  // specification as JSON text (wins over `devices`); then the overrides.
  std::string devices;
  std::string devices_json;
  std::optional<int> accelerators, cpus;
  std::optional<double> memory;  // bytes per accelerator
  // The machine as a topology (a preset or a file of the topology form; instead of `devices`): the
  // stages are mapped onto its physical devices, by "optimal" (the default) or "consecutive"
  // mapping, priced by "auto" (default), "p2p" or "allreduce".
  std::string topology;
  std::string map = "optimal";
  std::string map_cost = "auto";
  // Replicas per accelerator stage (data parallel, inference): "1" (default), a count, or "auto" (the
  // search over the stage count; as a JSON key also an integer).
  std::string replicas = "1";

  // The model: values of symbolic input dimensions, the phase of a decoder with a KV cache
  // ("prompt" or "token"; empty: prompt), shared weights ("replicate", "colocate", "auto"),
  // measured operator times and a cost plugin, and a name for messages and the report when the
  // model is given as bytes.
  std::map<std::string, std::int64_t> dims;
  std::string phase;
  std::string shared_weights = "auto";
  std::vector<std::string> cost_profiles;
  std::string cost_plugin;
  std::string model_name;

  // The solve: "throughput" or "latency"; the algorithm ("auto", "dp", "dpl", "slicegraph", "ip",
  // "ip-noncontig", "greedy", "cluster-dp"); the time limit in seconds (unset: 8 for auto, none otherwise).
  std::string objective = "throughput";
  std::string algorithm = "auto";
  std::optional<double> time_limit;
  std::optional<std::int64_t> max_ideals;
  std::optional<double> mip_gap;
  std::string mip_solver;  // "glpk" (default) or "cbc"
  std::optional<int> subgraphs_per_accelerator;
  std::string orders;  // SliceGraph's orders; empty: the default mix
  std::optional<std::uint64_t> seed;
  std::optional<int> threads;  // unset: every core
  // auto stops once certified within this ratio (>= 1; unset: 1, proven optimal among contiguous
  // splits); the clusters cluster-dp and the cluster pass leave (unset: their default), and the
  // weight of communication in a merge's score (unset: 0.001).
  std::optional<double> target_ratio;
  std::optional<int> cluster_target;
  std::optional<double> alpha;
  std::string pipeline;        // a pass pipeline; empty: the algorithm's default
  // Pass plugins (onnx_placer/plugin.h) to load: their passes can be named in `pipeline`, their cost
  // models are asked first.
  std::vector<std::string> pass_plugins;

  // How the annotated model records the placement: "metadata", "ort" (default) or "onnx-ir11".
  std::string annotate = "ort";

  // Set by the caller (another thread, a signal handler) to stop the run: it then fails with
  // Code::Interrupted. Must outlive the call.
  const std::atomic<bool>* stop = nullptr;
  // Called from the solving thread now and then during a long solve.
  std::function<void(const Progress&)> progress;

  // The options of a JSON object (its keys are the fields above, "devices" may also be an object:
  // a specification); text that is empty or "{}" gives the defaults.
  static Expected<Options> fromJson(std::string_view json);
};

}  // namespace onnx_placer
