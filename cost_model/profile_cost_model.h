// Measured per-operator times: a profile table that stands in front of the roofline estimate, so a
// placement can be calibrated on measurements the user already has (Tarnawski et al. 2020, §3 takes
// p_acc and p_cpu as given; this is where given ones come from).
//
// loadProfile() reads any number of files and tells their format from the content:
//
//  1. Our own JSON (an object with "version"):
//       {"version": 1, "unit": "ms",                       // "s", "ms" or "us"; required
//        "comment": "free text",                           // optional, ignored
//        "nodes": {"/conv1/Conv": {"accelerator": 0.21, "cpu": 4.5},
//                  "/fc/Gemm": {"cpu": 0.3, "supported": false}},
//        "op_signatures": {"Conv(1x64x56x56;64x64x3x3;64)": {"accelerator": 0.1, "cpu": 2.0}}}
//     "nodes" and "op_signatures" are optional. An entry holds "accelerator" and/or "cpu" (finite
//     numbers >= 0, in `unit`, per sample) and optionally "supported" (a boolean): "supported":
//     false means the accelerator cannot run the operator (p_acc = +inf) and then "accelerator"
//     must not be given. An entry must say something (at least one of the three). Unknown or
//     duplicated fields are errors, so a typo is never ignored.
//  2. ONNX Runtime's profile (enable_profiling / onnxruntime_perf_test -p): a JSON array of Chrome
//     trace events. Only events with "cat": "Node" and a "name" ending in "_kernel_time" count; the
//     node is the name without that suffix, "dur" is microseconds, args.provider says where it ran.
//     A node's time is the median of its repeated runs (a first, cold run does not skew it);
//     "CPUExecutionProvider" times give cpu, any other provider's give accelerator. A kernel event without
//     args.provider (older ONNX Runtime releases record none) is an error rather than a guess; one with an
//     empty node name (an unnamed node) is skipped, as it cannot be matched.
//  3. ONNX Runtime's per-node memory statistics (session option
//     "session.collect_node_memory_stats_to_file"): CSV text whose first line is
//     "#name,input_sizes,initializers_sizes,total_dynamic_sizes,total_temp_allocations", then one
//     "name,a,b,c,d" row per node (non-negative integers, bytes). ONNX Runtime names a row
//     "<node name>_<hash of its tensor names>" (the op type for an unnamed node); a row may also
//     give the plain node name. They give memory, not times (estimate() never reads them):
//     weightMemory() makes initializers_sizes the node's accelerator memory m_v — the weights it
//     keeps resident, which is what the placement's memory budget counts (cost_model/README.md).
//     input_sizes (activations read, each tensor at its first reader), total_dynamic_sizes (outputs
//     allocated at run time) and total_temp_allocations (scratch) are transient: they live while a
//     node runs or until their readers have, so they are not a per-node sum. memoryStats() gives
//     all four.
//
// Rules. Files are merged in order, per node name (or signature) and per device: a later file's
// value replaces an earlier one's, so a CPU trace and a CUDA trace of the same model combine. For a
// node, each device's time comes from the node-name entry when it has one, else from the entry for
// the node's opSignature(). The profile answers each kind of device it has a time for; the next
// model in the stack (the roofline, say) answers the other, so a CPU trace gives a CPU-only device
// set its times, and with accelerators such a node keeps the roofline's accelerator time.
//
// Traces of optimised graphs. With graph optimisations on, ONNX Runtime fuses operators into one
// kernel and renames kernels: its CPU layout transformer names a fused Conv(+activation, +residual
// Add) `<output tensor>_nchwc`; its fusions name a kernel `<first node>/<Name>Fusion` (MatMul+Add
// becomes `/l0/MatMul/MatMulAddFusion`) or build new ones (`SkipLayerNormalization_token_52` for
// Add+LayerNormalization, `Gelu`, `BiasGelu`); and it inserts kernels of its own (`ReorderOutput`,
// `gemm_input_reshape`). resolvedFor(graph) matches such entries to the graph, in this order:
//   1. an entry named after an operator is that operator's (exact);
//   2. a renamed kernel: an entry named after a tensor once a known suffix (`_nchwc`) is taken off
//      ends at that tensor's producer; one with a `.../<Name>Fusion...` part starts at the operator
//      its longest '/'-prefix names. The operators fused into it are that operator, the unmatched
//      ones before it whose single output feeds only the next (a Conv before its Clip; Transposes
//      folded into a MatMul), and the unmatched element-wise ones after it that alone read its
//      output (an activation, a residual Add, a scale);
//   3. an entry that names nothing of the graph is placed by execution order (the trace's start
//      times): over the operators still without a time between the operators of the matched kernels
//      that ran just before and just after it;
//   4. anything left (an inserted kernel with nothing unmatched around it) is counted, with its
//      time, in the report, and not attributed.
// A kernel's time is split over its operators in proportion to their roofline times on that kind
// of device (equally when those are all 0). Operators left without a time keep the roofline's and
// are counted.
//
// Errors name the file and the place: "p.json:3:7: malformed JSON: ...", "p.json: unit: unknown
// unit \"min\" ...", "p.json: nodes[\"/conv1/Conv\"].cpu: negative time -1", "trace.json: [4].dur:
// negative time -3" (the array's fifth event), "mem.csv:3: expected 5 columns, found 4".
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cost_model/cost_model.h"
#include "onnx_io/onnx_model.h"
#include "core/status.h"

namespace placer {

// The key of an op_signatures entry: `OpType(in0;in1;...)`, each input's static shape with its
// dimensions joined by 'x' ("1x64x56x56"), an unknown dimension as '?', a shape not known at all as
// '?', a rank-0 tensor as "scalar" and an omitted optional input as the empty string. Operators of a
// domain other than the default one are written "domain.OpType" ("com.microsoft.FusedConv(...)").
// Element types are not part of it: a profile is taken in one precision.
// Example: the 3x3 convolution of ResNet-50's first block is "Conv(1x64x56x56;64x64x3x3;64)".
std::string opSignature(const OnnxGraph& graph, int node);

class ProfileCostModel : public CostModel {
 public:
  // Seconds per sample, as far as the profile gives them.
  struct Times {
    std::optional<double> accelerator;  // +inf: the accelerator cannot run it
    std::optional<double> cpu;
  };

  std::string_view name() const override { return "profile"; }
  // The node's profiled times, per kind of device (see the rules above).
  TimeEstimate estimate(const OnnxGraph& graph, int node, const DeviceSpec& devices) const override;
  // Measured kernel times: what ONNX Runtime spends around a kernel is in them, or in the kernel
  // timer's own cost (their sum matches the model's run time), so no op_overhead is added.
  bool includesOperatorOverhead() const override { return true; }

  // How many of the graph's nodes estimate() gives at least one time, for reporting.
  std::size_t matchedNodes(const OnnxGraph& graph) const;

  // What matching the entries to a graph found (rules above).
  struct Match {
    int exact = 0;              // operators an entry names
    int renamed = 0;            // operators whose kernel was found by the tensor it writes
    int fused = 0;              // operators folded into another operator's kernel (a share of its time)
    int by_order = 0;           // entries naming nothing of the graph, placed by execution order
    int ordered = 0;            // operators that took their time from those
    int unmatched_entries = 0;  // entries placed nowhere
    double unmatched_accelerator_seconds = 0;  // their time per sample, by kind of device
    double unmatched_cpu_seconds = 0;
    std::vector<std::string> unmatched_names;  // the first few, for messages
  };

  // This profile with the entries of renamed and fused kernels moved onto the graph's operators
  // (rules above; the roofline times of `devices` split a fused kernel's time). `match` says what
  // was found.
  ProfileCostModel resolvedFor(const OnnxGraph& graph, const DeviceSpec& devices, Match& match) const;

  // One row of ONNX Runtime's memory statistics, in bytes.
  struct MemoryStats {
    double input_sizes = 0;
    double initializers_sizes = 0;
    double total_dynamic_sizes = 0;
    double total_temp_allocations = 0;
    std::string source;  // the file that gave it
  };

  // The memory statistics row of that name (as written in the file), when a file gave one.
  std::optional<MemoryStats> memoryStats(const std::string& row_name) const;

  // Every memory statistics row as a weight-memory override for annotate(): its initializers_sizes,
  // keyed by the row name (annotate() matches "<node name>_<hash>" to the node).
  std::map<std::string, MemoryOverride> weightMemory() const;

 private:
  friend Expected<ProfileCostModel> loadProfile(const std::vector<std::filesystem::path>& files);

  std::map<std::string, Times> by_name_;
  std::map<std::string, Times> by_signature_;
  std::map<std::string, MemoryStats> memory_;
  // Trace kernels in execution order: (file, start time of the kernel's first run).
  std::map<std::string, std::pair<int, double>> order_;
};

// Reads the files in order and merges them (see above). No files gives a model that answers no
// node. An unreadable file is an IoError naming it; anything malformed is InvalidInput.
Expected<ProfileCostModel> loadProfile(const std::vector<std::filesystem::path>& files);

}  // namespace placer
