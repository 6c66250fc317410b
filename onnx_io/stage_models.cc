// Stage sub-models (stage_models.h): re-reads the model, decides what each pipeline stage holds and
// how the stages connect, then writes one ModelProto per stage and the manifest.
//
// Invariants kept: every operator is in exactly one stage; a weight and the constant producers behind
// it are in every stage that reads it and nowhere else (an unused weight is dropped); a stage reads
// only original graph inputs, its own tensors, weights, and tensors that earlier stages declare as
// outputs; each stage's nodes are in topological order (the original order where that already is one).
// The model-level fields (IR version, opsets, producer, metadata, local functions) are copied
// unchanged; training_info is not, as it refers to the whole graph.
#include "onnx_io/stage_models.h"
#include "onnx_io/model_proto.h"
#include "onnx_io/symbolic_dims.h"

#include <onnx/onnx_pb.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <queue>
#include <set>
#include <system_error>

namespace placer {
namespace {

using Json = nlohmann::ordered_json;

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

Status StageSplitter::checkPlan(const std::string& model_name) {
  if (plan_.stages.empty()) return invalidInput("the placement plan has no stages");
  if (plan_.stage_of_node.size() != graph_.nodes.size()) {
    return invalidInput("the placement plan places " + std::to_string(plan_.stage_of_node.size()) +
                        " operators, but " + model_name + " has " + std::to_string(graph_.nodes.size()));
  }
  for (std::size_t k = 0; k < plan_.stages.size(); ++k) {
    const int device = plan_.stages[k].device;
    if (device < 0 || device >= static_cast<int>(plan_.devices.size())) {
      return invalidInput("stage " + std::to_string(k) + " of the placement plan names device " +
                          std::to_string(device) + ", which does not exist");
    }
  }
  const int n_stages = static_cast<int>(plan_.stages.size());
  operator_of_.assign(proto_.node_size(), -1);
  for (std::size_t n = 0; n < graph_.nodes.size(); ++n) {
    const OnnxNode& node = graph_.nodes[n];
    const int stage = plan_.stage_of_node[n];
    if (stage < 0 || stage >= n_stages) {
      return invalidInput("the placement plan puts node '" + node.name + "' in stage " +
                          std::to_string(stage) + ", but there are " + std::to_string(n_stages) + " stages");
    }
    if (node.onnx_index < 0 || node.onnx_index >= proto_.node_size() ||
        proto_.node(node.onnx_index).op_type() != node.op_type) {
      return invalidInput(model_name + " does not match the loaded graph at node '" + node.name + "'");
    }
    operator_of_[node.onnx_index] = static_cast<int>(n);
  }
  for (int i = 0; i < proto_.initializer_size(); ++i) {
    initializer_[proto_.initializer(i).name()] = i;
  }
  for (int i = 0; i < proto_.node_size(); ++i) {
    for (const auto& name : proto_.node(i).output()) {
      if (!name.empty()) producer_.emplace(name, i);
    }
  }
  for (const auto& info : proto_.value_info()) {
    value_info_.emplace(info.name(), &info);
  }
  for (const auto& info : proto_.output()) {
    outputs_.emplace(info.name(), &info);
  }
  for (const auto& info : proto_.input()) {
    inputs_.emplace(info.name(), &info);
  }
  for (const auto* list : {&proto_.input(), &proto_.output()}) {
    for (const auto& info : *list) {
      if (!graph_.tensor_index.count(info.name())) {
        return invalidInput(model_name + " does not match the loaded graph: no tensor '" + info.name() + "'");
      }
    }
  }
  return Status::ok();
}

// Adds a weight to stage s: an initializer; a folded value (its computation where it varies with
// the input dimensions); or, for a constant producer's output, the producer and the weights it reads.
Status StageSplitter::addWeight(int s, const std::string& name, int depth) {
  StageContents& stage = stages_[s];
  if (auto value = graph_.folded_values.find(name); value != graph_.folded_values.end()) {
    if (symbolic_.dynamic_values.count(name)) {
      auto computed = addComputation(s, name, depth, false);
      if (!computed) return computed.status();
      if (*computed) return Status::ok();
    }
    // A value constant for every input shape (or one whose computation no stage order allows) goes
    // in as an initializer, not the node (which may read a tensor of another stage).
    if (onnx::TensorProto check; !check.ParseFromString(value->second)) {
      return internalError("the folded value of tensor '" + name + "' does not parse");
    }
    stage.folded.insert(name);
    return Status::ok();
  }
  if (initializer_.count(name)) {
    stage.initializers.insert(name);
    return Status::ok();
  }
  auto producer = producer_.find(name);
  if (producer == producer_.end() || operator_of_[producer->second] >= 0 || depth > proto_.node_size()) {
    return internalError("weight tensor '" + name + "' has neither an initializer nor a constant producer");
  }
  if (!stage.nodes.insert(producer->second).second) return Status::ok();
  for (const auto& input : proto_.node(producer->second).input()) {
    if (input.empty()) continue;
    if (Status status = addWeight(s, input, depth + 1); !status) return status;
  }
  return Status::ok();
}

// Stage s reads tensor t, which stage `from` (earlier) produces.
void StageSplitter::receive(int s, int t, int from) {
  if (stages_[s].from_stage.emplace(t, from).second) {
    stages_[s].boundary_inputs.push_back(t);
    stages_[from].later_read.insert(t);
  }
}

// Makes the folded value `name`, which varies with the input dimensions, a computation for stage s:
// its node goes into s when s has every activation the node reads (its own, a graph input, or one
// it receives anyway), the value's own computation recursively. Otherwise the node runs in the
// latest stage producing such an activation and s receives the (small) value from there; with
// `here`, s receives the activations instead. False when neither can be: an activation comes from a
// later stage than s, so s keeps the value of the placed dimensions (a note says so).
Expected<bool> StageSplitter::addComputation(int s, const std::string& name, int depth, bool here) {
  StageContents& stage = stages_[s];
  const int t = graph_.tensor_index.at(name);
  auto producer = producer_.find(name);
  if (producer == producer_.end() || depth > proto_.node_size()) {
    return internalError("folded tensor '" + name + "' has no producer");
  }
  const int node = producer->second;
  if (stage.nodes.count(node) || stage.from_stage.count(t)) return true;
  int home = s;
  std::string later;  // an activation a later stage produces
  for (const auto& input : proto_.node(node).input()) {
    if (input.empty()) continue;
    const TensorInfo& tensor = graph_.tensors[graph_.tensor_index.at(input)];
    if (tensor.is_weight || tensor.is_graph_input || tensor.producer < 0) continue;
    const int from = plan_.stage_of_node[tensor.producer];
    if (from == s || stage.from_stage.count(graph_.tensor_index.at(input))) continue;
    if (from > s) later = input;
    if (!here) home = home == s ? from : std::max(home, from);
  }
  if (!later.empty()) {
    notes_.push_back("stage " + std::to_string(s) + " holds tensor '" + name +
                     "' as computed at the placed dimensions: it is computed from tensor '" + later +
                     "', which a later stage produces");
    return false;
  }
  if (home != s) {
    auto computed = addComputation(home, name, depth + 1, true);
    if (!computed || !*computed) return computed;
    receive(s, t, home);
    return true;
  }
  stage.nodes.insert(node);
  for (const auto& input : proto_.node(node).input()) {
    if (input.empty()) continue;
    const int u = graph_.tensor_index.at(input);
    const TensorInfo& tensor = graph_.tensors[u];
    if (tensor.is_weight) {
      if (Status status = addWeight(s, input, depth + 1); !status) return status;
    } else if (tensor.is_graph_input) {
      stage.graph_inputs.insert(u);
    } else if (tensor.producer >= 0 && plan_.stage_of_node[tensor.producer] < s) {
      receive(s, u, plan_.stage_of_node[tensor.producer]);
    }
  }
  return true;
}

Status StageSplitter::assign() {
  stages_.assign(plan_.stages.size(), StageContents{});
  // Weights are added once every stage knows which activations it receives, so that a computation
  // of the input dimensions goes where its activations already are.
  std::vector<std::pair<int, std::string>> weights;
  for (std::size_t n = 0; n < graph_.nodes.size(); ++n) {
    const OnnxNode& node = graph_.nodes[n];
    const int s = plan_.stage_of_node[n];
    StageContents& stage = stages_[s];
    stage.nodes.insert(node.onnx_index);
    for (int t : node.inputs) {
      if (t < 0) continue;
      const TensorInfo& tensor = graph_.tensors[t];
      if (tensor.is_weight) {
        weights.emplace_back(s, tensor.name);
      } else if (tensor.producer >= 0) {
        const int from = plan_.stage_of_node[tensor.producer];
        if (from > s) {
          return invalidInput("stage " + std::to_string(s) + " (node '" + node.name + "') reads tensor '" +
                              tensor.name + "', which node '" + graph_.nodes[tensor.producer].name +
                              "' in the later stage " + std::to_string(from) +
                              " produces: stages must be in pipeline order");
        }
        if (from < s) receive(s, t, from);
      } else if (tensor.is_graph_input) {
        stage.graph_inputs.insert(t);
      } else {
        return internalError("tensor '" + tensor.name + "' read by node '" + node.name + "' has no source");
      }
    }
  }
  for (const auto& [s, name] : weights) {
    if (Status status = addWeight(s, name, 0); !status) return status;
  }
  // Graph outputs that no operator produces (a weight, or an input passed through) come from the last
  // stage, so the pipeline's final stage still declares them.
  StageContents& last = stages_.back();
  for (int t : originalOutputs()) {
    const TensorInfo& tensor = graph_.tensors[t];
    if (tensor.producer >= 0) {
      stages_[plan_.stage_of_node[tensor.producer]].graph_outputs.insert(t);
      continue;
    }
    last.graph_outputs.insert(t);
    if (tensor.is_weight) {
      if (Status status = addWeight(static_cast<int>(stages_.size()) - 1, tensor.name, 0); !status) return status;
    } else {
      last.graph_inputs.insert(t);
    }
  }
  // A graph input nobody reads still belongs to the pipeline's interface: the first stage takes it.
  for (int t : originalInputs()) {
    bool read = false;
    for (const StageContents& stage : stages_) {
      read = read || stage.graph_inputs.count(t);
    }
    if (!read) stages_.front().graph_inputs.insert(t);
  }
  for (int s = 0; s < static_cast<int>(stages_.size()); ++s) {
    orderInterface(s);
  }
  return Status::ok();
}

std::vector<int> StageSplitter::originalInputs() const {
  std::vector<int> out;
  for (const auto& info : proto_.input()) {
    const int t = graph_.tensor_index.at(info.name());
    if (graph_.tensors[t].is_graph_input) out.push_back(t);
  }
  return out;
}

std::vector<int> StageSplitter::originalOutputs() const {
  std::vector<int> out;
  for (const auto& info : proto_.output()) {
    out.push_back(graph_.tensor_index.at(info.name()));
  }
  return out;
}

// Inputs: original graph inputs in the model's order, then boundary tensors in first-read order.
// Outputs: original graph outputs in the model's order, then boundary tensors in production order.
void StageSplitter::orderInterface(int s) {
  StageContents& stage = stages_[s];
  for (int t : originalInputs()) {
    if (stage.graph_inputs.count(t)) stage.inputs.push_back(t);
  }
  stage.inputs.insert(stage.inputs.end(), stage.boundary_inputs.begin(), stage.boundary_inputs.end());
  for (int t : originalOutputs()) {
    if (stage.graph_outputs.count(t)) stage.outputs.push_back(t);
  }
  std::set<int> listed(stage.outputs.begin(), stage.outputs.end());
  for (std::size_t n = 0; n < graph_.nodes.size(); ++n) {
    if (plan_.stage_of_node[n] != s) continue;
    for (int t : graph_.nodes[n].outputs) {
      if (t >= 0 && stage.later_read.count(t) && listed.insert(t).second) stage.outputs.push_back(t);
    }
  }
  // Then the computed values of the input dimensions that later stages receive, in tensor order.
  for (int t : stage.later_read) {
    if (listed.insert(t).second) stage.outputs.push_back(t);
  }
}

// Names a node reads, including what its subgraphs read from the enclosing graph.
std::vector<std::string> StageSplitter::reads(int onnx_index) const {
  std::vector<std::string> out;
  if (const int op = operator_of_[onnx_index]; op >= 0) {
    for (int t : graph_.nodes[op].inputs) {
      if (t >= 0) out.push_back(graph_.tensors[t].name);
    }
  } else {
    for (const auto& name : proto_.node(onnx_index).input()) {
      if (!name.empty()) out.push_back(name);
    }
  }
  return out;
}

// Kahn's algorithm, always taking the ready node first in the model's order: for a model already in
// topological order (as ONNX requires) this keeps the original order.
std::vector<int> StageSplitter::topologicalOrder(const StageContents& stage) const {
  std::map<std::string, int> producer_in_stage;
  for (int i : stage.nodes) {
    for (const auto& name : proto_.node(i).output()) {
      if (!name.empty()) producer_in_stage.emplace(name, i);
    }
  }
  std::map<int, int> indegree;
  std::map<int, std::vector<int>> successors;
  for (int i : stage.nodes) {
    std::set<int> predecessors;
    for (const auto& name : reads(i)) {
      auto p = producer_in_stage.find(name);
      if (p != producer_in_stage.end() && p->second != i) predecessors.insert(p->second);
    }
    indegree[i] = static_cast<int>(predecessors.size());
    for (int p : predecessors) {
      successors[p].push_back(i);
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (const auto& [i, degree] : indegree) {
    if (degree == 0) ready.push(i);
  }
  std::vector<int> order;
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int next : successors[i]) {
      if (--indegree[next] == 0) ready.push(next);
    }
  }
  // The loader rejects cyclic graphs, so nothing should be left; if something is, it still goes in (in
  // the model's order) so no node is lost, and the ONNX checker will name the cycle.
  if (order.size() < stage.nodes.size()) {
    const std::set<int> placed(order.begin(), order.end());
    for (int i : stage.nodes) {
      if (!placed.count(i)) order.push_back(i);
    }
  }
  return order;
}

// A tensor crossing stages, typed from the loader's static shapes; without one, the model's own
// declaration if it has one, else the element type alone.
Expected<onnx::ValueInfoProto> StageSplitter::boundaryValueInfo(const TensorInfo& tensor) const {
  onnx::ValueInfoProto info;
  if (tensor.element_type == 0 || !tensor.shape) {
    for (const auto* declarations : {&value_info_, &outputs_}) {
      auto declared = declarations->find(tensor.name);
      if (declared != declarations->end() && declared->second->type().has_tensor_type() &&
          declared->second->type().tensor_type().elem_type() != 0 && tensor.element_type == 0) {
        return *declared->second;
      }
    }
  }
  if (tensor.element_type == 0) {
    // A stage input without a type is refused by the checker and by every runtime.
    return unsupported("tensor '" + tensor.name +
                       "' crosses a stage boundary, but neither shape inference nor the model says what element "
                       "type it has, so no stage can declare it; give it a value_info entry in the model");
  }
  info.set_name(tensor.name);
  auto* type = info.mutable_type()->mutable_tensor_type();
  type->set_elem_type(tensor.element_type);
  if (tensor.shape) {
    writeShape(tensor, *type->mutable_shape());
  } else if (auto declared = value_info_.find(tensor.name);
             declared != value_info_.end() && declared->second->type().tensor_type().has_shape() &&
             declared->second->type().tensor_type().elem_type() == tensor.element_type) {
    *type->mutable_shape() = declared->second->type().tensor_type().shape();
  }
  return info;
}

// A graph output as the model declares it; where the declaration says less than the loader found
// (no element type, no shape) or contradicts it (another rank, another fixed dimension), the
// loader's type and shape, symbolic where they vary.
onnx::ValueInfoProto StageSplitter::graphOutputInfo(const TensorInfo& tensor) const {
  onnx::ValueInfoProto info = *outputs_.at(tensor.name);
  const bool typed = info.type().has_tensor_type() && info.type().tensor_type().elem_type() != 0;
  bool agrees = typed && info.type().tensor_type().has_shape();
  if (agrees && tensor.shape) {
    const auto& dims = info.type().tensor_type().shape().dim();
    agrees = dims.size() == static_cast<int>(tensor.shape->size());
    for (int d = 0; agrees && d < dims.size(); ++d) {
      agrees = !dims[d].has_dim_value() || dims[d].dim_value() == (*tensor.shape)[d] ||
               (symbolic_.shapes.count(tensor.name) && !symbolic_.shapes.at(tensor.name)[d].param.empty());
    }
  }
  if (tensor.element_type == 0 || agrees) return info;
  auto* type = info.mutable_type()->mutable_tensor_type();
  type->set_elem_type(tensor.element_type);
  if (tensor.shape) {
    type->clear_shape();
    writeShape(tensor, *type->mutable_shape());
  }
  return info;
}

void StageSplitter::writeShape(const TensorInfo& tensor, onnx::TensorShapeProto& shape) const {
  auto symbolic = symbolic_.shapes.find(tensor.name);
  for (std::size_t axis = 0; axis < tensor.shape->size(); ++axis) {
    if (symbolic != symbolic_.shapes.end() && !symbolic->second[axis].param.empty()) {
      shape.add_dim()->set_dim_param(symbolic->second[axis].param);
    } else {
      shape.add_dim()->set_dim_value((*tensor.shape)[axis]);
    }
  }
}

Expected<onnx::GraphProto> StageSplitter::buildGraph(int s, std::int64_t ir_version) const {
  const StageContents& stage = stages_[s];
  onnx::GraphProto g;
  g.set_name((proto_.name().empty() ? std::string("graph") : proto_.name()) + "_stage" + std::to_string(s));
  if (!proto_.doc_string().empty()) g.set_doc_string(proto_.doc_string());

  std::set<std::string> produced;
  for (int i : topologicalOrder(stage)) {
    *g.add_node() = proto_.node(i);
    for (const auto& name : proto_.node(i).output()) {
      produced.insert(name);
    }
  }
  for (const auto& init : proto_.initializer()) {
    if (stage.initializers.count(init.name())) *g.add_initializer() = init;
  }
  for (const std::string& name : stage.folded)
    g.add_initializer()->ParseFromString(graph_.folded_values.at(name));  // addWeight() parsed it

  std::set<std::string> interface;
  for (int t : stage.inputs) {
    const TensorInfo& tensor = graph_.tensors[t];
    interface.insert(tensor.name);
    if (stage.graph_inputs.count(t)) {
      *g.add_input() = *inputs_.at(tensor.name);
    } else {
      auto info = boundaryValueInfo(tensor);
      if (!info) return info.status().withContext("stage " + std::to_string(s));
      *g.add_input() = std::move(*info);
    }
  }
  if (ir_version < kInitializersNeedInputs) {
    for (const auto& init : g.initializer()) {
      if (auto declared = inputs_.find(init.name()); declared != inputs_.end()) {
        *g.add_input() = *declared->second;
        continue;
      }
      auto* input = g.add_input();
      input->set_name(init.name());
      auto* type = input->mutable_type()->mutable_tensor_type();
      type->set_elem_type(init.data_type());
      auto* shape = type->mutable_shape();
      for (auto d : init.dims()) {
        shape->add_dim()->set_dim_value(d);
      }
    }
  }
  for (int t : stage.outputs) {
    const TensorInfo& tensor = graph_.tensors[t];
    interface.insert(tensor.name);
    if (stage.graph_outputs.count(t)) {
      *g.add_output() = graphOutputInfo(tensor);
    } else {
      auto info = boundaryValueInfo(tensor);
      if (!info) return info.status().withContext("stage " + std::to_string(s));
      *g.add_output() = std::move(*info);
    }
  }
  for (const auto& info : proto_.value_info()) {
    if (produced.count(info.name()) && !interface.count(info.name())) *g.add_value_info() = info;
  }
  return g;
}

Json tensorJson(const TensorInfo& tensor, const SymbolicShapes& symbolic) {
  Json out;
  out["name"] = tensor.name;
  out["shape"] = tensor.shape ? Json(*tensor.shape) : Json(nullptr);
  if (auto dims = symbolic.shapes.find(tensor.name); dims != symbolic.shapes.end()) {
    // The shape the stage declares: "shape" is that of the placed dimensions.
    Json declared = Json::array();
    for (const SymbolicDim& dim : dims->second) {
      declared.push_back(dim.param.empty() ? Json(dim.value) : Json(dim.param));
    }
    out["dims"] = std::move(declared);
  }
  out["element_type"] = tensor.element_type;
  const auto bytes = tensor.bytes();
  out["bytes"] = bytes ? Json(static_cast<std::int64_t>(std::llround(*bytes))) : Json(nullptr);
  return out;
}

Json manifestJson(const ModelSource& input, const OnnxGraph& graph, const PlacementPlan& plan,
                  const StageSplitter& splitter, const SymbolicShapes& symbolic, const std::vector<std::string>& notes,
                  const std::filesystem::path& external_data_dir) {
  Json manifest;
  manifest["version"] = 1;
  manifest["model"] = input.fromMemory() ? input.name : input.path.filename().string();
  manifest["objective"] = plan.objective;
  manifest["max_load_seconds"] = plan.value;
  manifest["layer_assignment_settings"] = plan.layerAssignmentSettings();
  if (!external_data_dir.empty()) {
    // The directory the stage files' external-data locations are relative to.
    manifest["external_data_dir"] = external_data_dir.string();
  }
  Json stages = Json::array();
  for (std::size_t k = 0; k < plan.stages.size(); ++k) {
    const StageContents& contents = splitter.stages()[k];
    const PlannedStage& planned = plan.stages[k];
    Json stage;
    stage["index"] = k;
    stage["file"] = "stage" + std::to_string(k) + ".onnx";
    stage["label"] = planned.label;
    stage["device"] = plan.devices[planned.device].name;
    stage["estimated_seconds"] = planned.seconds;
    stage["memory_bytes"] = planned.memory;
    Json inputs = Json::array(), outputs = Json::array();
    for (int t : contents.inputs) {
      Json entry = tensorJson(graph.tensors[t], symbolic);
      auto from = contents.from_stage.find(t);
      entry["from_stage"] = from != contents.from_stage.end() ? Json(from->second) : Json(nullptr);
      inputs.push_back(std::move(entry));
    }
    for (int t : contents.outputs) {
      Json entry = tensorJson(graph.tensors[t], symbolic);
      entry["graph_output"] = contents.graph_outputs.count(t) > 0;
      outputs.push_back(std::move(entry));
    }
    stage["inputs"] = std::move(inputs);
    stage["outputs"] = std::move(outputs);
    stages.push_back(std::move(stage));
  }
  manifest["stages"] = std::move(stages);
  Json graph_inputs = Json::array(), graph_outputs = Json::array();
  for (int t : splitter.originalInputs()) {
    graph_inputs.push_back(graph.tensors[t].name);
  }
  for (int t : splitter.originalOutputs()) {
    graph_outputs.push_back(graph.tensors[t].name);
  }
  manifest["graph_inputs"] = std::move(graph_inputs);
  manifest["graph_outputs"] = std::move(graph_outputs);
  // The input dimensions the stages were checked at, beside the placed ones, and what stays fixed.
  manifest["dims_varied"] = symbolic.varied;
  manifest["notes"] = notes;
  return manifest;
}

}  // namespace

Expected<StageSet> buildStageModels(const ModelSource& input, const OnnxGraph& graph,
                                    const PlacementPlan& plan, const std::filesystem::path& output_dir) {
  auto parsed = readModelProto(input);
  if (!parsed) return parsed.status();
  onnx::ModelProto& base = *parsed;
  // Keep the model-level fields in `base` and the graph apart, so each stage copies only the former.
  onnx::GraphProto original;
  original.Swap(base.mutable_graph());
  base.clear_graph();
  base.clear_training_info();
  // Locations resolve from the stages' directory when it holds the data files; else they keep
  // resolving from the model's, which the manifest names.
  std::filesystem::path data_dir = input.dataDirectory();
  if (!output_dir.empty() && relocateExternalData(original, input, output_dir)) {
    data_dir = modelDirectory(output_dir / "stage.onnx");
  }

  const SymbolicShapes symbolic = analyzeSymbolicDims(input, graph);
  StageSplitter splitter(graph, plan, original, symbolic);
  if (Status status = splitter.checkPlan(input.displayName()); !status) return status;
  if (Status status = splitter.assign(); !status) return status.withContext(input.displayName());

  StageSet out;
  out.notes = symbolic.notes;
  out.notes.insert(out.notes.end(), splitter.notes().begin(), splitter.notes().end());
  bool external_data = false;
  for (int k = 0; k < static_cast<int>(plan.stages.size()); ++k) {
    onnx::ModelProto stage = base;
    auto built = splitter.buildGraph(k, base.ir_version());
    if (!built) return built.status().withContext(input.displayName());
    *stage.mutable_graph() = std::move(*built);
    for (const auto& init : stage.graph().initializer()) {
      external_data = external_data || init.data_location() == onnx::TensorProto::EXTERNAL;
    }
    if (stage.ByteSizeLong() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
      return unsupported("stage " + std::to_string(k) + " of " + input.displayName() +
                         " exceeds protobuf's 2 GB limit; store the model's weights as external data");
    }
    StageModel model{"stage" + std::to_string(k) + ".onnx", {}};
    if (!stage.SerializeToString(&model.bytes)) {
      return internalError("cannot serialize stage " + std::to_string(k) + " of " + input.displayName());
    }
    out.models.push_back(std::move(model));
  }
  try {
    out.manifest_json =
        manifestJson(input, graph, plan, splitter, symbolic, out.notes,
                     external_data ? data_dir : std::filesystem::path())
            .dump(2) +
        "\n";
  } catch (const nlohmann::json::exception& e) {  // a tensor name that is not UTF-8
    return invalidInput(input.displayName() + ": cannot write pipeline.json: a tensor name is not valid UTF-8 (" +
                        e.what() + ")");
  }
  return out;
}

}  // namespace placer
