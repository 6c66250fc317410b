// The splitter behind stage_models.cc: what each pipeline stage of a placed model holds and how the
// stages connect (stage_splitter.cc), and each stage's graph built from that (stage_models.cc).
// Internal to onnx_io.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "onnx_io/onnx_model.h"
#include "onnx_io/placement_plan.h"
#include "onnx_io/symbolic_dims.h"

namespace placer::stage_split {

// Below this IR version every initializer must also be declared as a graph input.
constexpr std::int64_t kInitializersNeedInputs = 4;

// What one stage holds and how it connects, in terms of the original model.
struct StageContents {
  std::set<int> nodes;                 // onnx indices: its operators and the constant producers they need
  std::set<std::string> initializers;  // names of the initializers it reads
  std::set<std::string> folded;        // folded values it reads (OnnxGraph::folded_values)
  std::set<int> graph_inputs;          // original graph inputs it reads (tensor indices)
  std::vector<int> boundary_inputs;    // tensors from earlier stages, in first-read order
  std::map<int, int> from_stage;       // boundary input -> the stage that produces it
  std::set<int> graph_outputs;         // original graph outputs it produces
  std::set<int> later_read;            // tensors it produces that a later stage reads
  std::vector<int> inputs, outputs;    // the final interface, in order
};

class StageSplitter {
 public:
  StageSplitter(const OnnxGraph& graph, const PlacementPlan& plan, const onnx::GraphProto& proto,
                const SymbolicShapes& symbolic)
      : graph_(graph), plan_(plan), proto_(proto), symbolic_(symbolic) {}

  Status checkPlan(const std::string& model_name);
  Status assign();
  const std::vector<StageContents>& stages() const { return stages_; }
  Expected<onnx::GraphProto> buildGraph(int stage, std::int64_t ir_version) const;
  std::vector<int> originalInputs() const;
  std::vector<int> originalOutputs() const;
  // What could not be kept symbolic: a value a stage holds at the placed dimensions (one line each).
  const std::vector<std::string>& notes() const { return notes_; }
  // The tensor's shape in the stages: its symbolic dimensions where it has some.
  void writeShape(const TensorInfo& tensor, onnx::TensorShapeProto& shape) const;

 private:
  Status addWeight(int s, const std::string& name, int depth);
  Expected<bool> addComputation(int s, const std::string& name, int depth, bool here);
  void receive(int s, int t, int from);
  std::vector<std::string> reads(int onnx_index) const;
  std::vector<int> topologicalOrder(const StageContents& stage) const;
  Expected<onnx::ValueInfoProto> boundaryValueInfo(const TensorInfo& tensor) const;
  onnx::ValueInfoProto graphOutputInfo(const TensorInfo& tensor) const;
  void orderInterface(int stage);

  const OnnxGraph& graph_;
  const PlacementPlan& plan_;
  const onnx::GraphProto& proto_;
  const SymbolicShapes& symbolic_;
  std::vector<std::string> notes_;
  std::map<std::string, int> initializer_;  // name -> index in proto_.initializer()
  std::map<std::string, int> producer_;     // name -> onnx index of the node writing it
  std::vector<int> operator_of_;            // onnx index -> OnnxGraph node, or -1 for a constant producer
  // The model's own declarations: value_info, graph outputs, graph inputs.
  std::map<std::string, const onnx::ValueInfoProto*> value_info_, outputs_, inputs_;
  std::vector<StageContents> stages_;
};

}  // namespace placer::stage_split
