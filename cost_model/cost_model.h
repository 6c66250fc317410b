// Cost models: how long an operator takes per sample on an accelerator and on one CPU core, and the
// conversion of a loaded model into the placement problem (Tarnawski et al. 2020, §3).
//
// A CostModel answers per node and per kind of device; models stack (a profile table in front of the
// roofline estimate, say): for each kind the device set has, the first model that gives a time for
// it counts, so a CPU trace gives a CPU-only device set its times, and with accelerators a node with
// only a profiled CPU time keeps the roofline's accelerator time. annotate() then builds the Problem: one
// node per operator with p_acc, p_cpu and the bytes of the weights it holds; one net per tensor,
// paid once per device boundary, costing the link's transfer time for the tensor's bytes; and a
// SharedWeight for every weight several operators read, held once by each device that runs one of
// them (core/shared_weights.h decides between replicating and colocating).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cost_model/device_spec.h"
#include "cost_model/roofline.h"
#include "onnx_io/onnx_model.h"
#include "core/problem.h"
#include "core/shared_weights.h"

namespace placer {

// A model's answer for one node: the times it knows, per kind of device (nullopt: the next model in
// the stack answers for that kind).
struct TimeEstimate {
  std::optional<double> accelerator;  // seconds per sample; +inf when the accelerator cannot run it
  std::optional<double> cpu;          // seconds per sample on one CPU core
  bool empty() const { return !accelerator && !cpu; }
};

class CostModel {
 public:
  virtual ~CostModel() = default;
  virtual std::string_view name() const = 0;
  virtual TimeEstimate estimate(const OnnxGraph& graph, int node, const DeviceSpec& devices) const = 0;
  // Whether the times were measured in a runtime and so already carry its per-operator dispatch:
  // the device specification's op_overhead is added only to times that do not.
  virtual bool includesOperatorOverhead() const { return false; }
};

// The shapes, element types and sizes and attributes of one operator, for the roofline formulas.
OpShapeInfo shapeInfo(const OnnxGraph& graph, int node);
// shapeInfo() as the roofline model costs it: for the op of a QDQ group, with the 8-bit element types
// its integer kernel reads and writes (cost_model/qdq.h).
OpShapeInfo costedShapeInfo(const OnnxGraph& graph, int node);

// Roofline estimate (cost_model/README.md): max(FLOPs / peak FLOP/s of the operator's compute type,
// bytes moved / memory bandwidth) on each kind of device, QDQ groups costed as ONNX Runtime's integer
// kernels (their DQ and Q nodes at 0). Answers every node.
class RooflineCostModel : public CostModel {
 public:
  std::string_view name() const override { return "roofline"; }
  TimeEstimate estimate(const OnnxGraph& graph, int node, const DeviceSpec& devices) const override;
};

// A measured accelerator memory for one node (ONNX Runtime's initializers_sizes, from
// ProfileCostModel::weightMemory()).
struct MemoryOverride {
  double bytes = 0;
  std::string source;  // the file that gave it, for messages
};

struct AnnotateOptions {
  // Weights several operators read: replicated onto each device that runs a reader (each copy
  // counted in that device's memory, once), or their readers colocated. Auto is replicate: a model
  // loaded from ONNX is an inference graph.
  SharedWeightMode shared_weights = SharedWeightMode::Auto;
  // With colocate, only weights of at least this many bytes bind their readers together; smaller
  // shared constants (shapes, masks) are still copied into each stage.
  double colocate_weight_bytes = 1 << 20;

  // Memory of named nodes, replacing the weight bytes found in the model. A shared weight the node
  // reads is held apart (once per device), so it is taken off the figure: the node's own memory is
  // the figure minus the shared weights it reads, at least 0. A key is a node name,
  // or ONNX Runtime's "<node name>_<decimal hash>"; when several keys name one node the largest
  // figure counts. Keys that name no node are reported in Annotation::warnings and ignored, as
  // profile times for unknown names are. An override of 0 for a node that reads weights is ignored
  // with a warning: ONNX Runtime 1.30 writes 0 in initializers_sizes for every node (it counts
  // constant inputs under input_sizes), and taking it would place as if there were no weights.
  std::map<std::string, MemoryOverride> memory_overrides;

  // On a mixed machine: per further kind (entry k-1 for the solvers' kind k), a model of that kind's
  // own accelerator times (a profile recorded on such a device), or null. Where it gives a finite
  // time, that is the kind's; elsewhere the kind's time comes as without it (annotate(), below).
  std::vector<const CostModel*> kind_models;
};

struct Annotation {
  Problem problem;                    // vertex i is graph.nodes[i]; members = {i}
  std::vector<std::string> warnings;  // tensors without a static size, memory overrides not applied
  std::vector<std::string> notes;     // what the cost sources matched, for the user (not a problem)
  // Per node, the index in `models` of the model whose time it took on an accelerator and on a CPU
  // core; -1 where the device set has no device of that kind.
  std::vector<int> accelerator_source, cpu_source;
  std::vector<std::string> source_names;  // CostModel::name() of each model asked, in order
};

// `models` are asked in order; for each kind of device the set has, the first model that gives a
// time counts. Fails if no model answers a kind for a node. With several models, `notes` says how
// many operators took each model's times and how many mix two sources.
Expected<Annotation> annotate(const OnnxGraph& graph, const DeviceSpec& devices,
                              const std::vector<const CostModel*>& models,
                              const AnnotateOptions& options = {});

}  // namespace placer
