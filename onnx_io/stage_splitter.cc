// What each pipeline stage holds and how the stages connect (stage_splitter.h): operators by the
// plan, the weights and constant producers each stage reads, the computations of the input
// dimensions each needs (symbolic_dims.h), and the tensors that cross stages.
//
// Invariants kept: every operator is in exactly one stage; a weight and the constant producers behind
// it are in every stage that reads it and nowhere else (an unused weight is dropped); a stage reads
// only original graph inputs, its own tensors, weights, and tensors that earlier stages declare as
// outputs.
#include "onnx_io/stage_splitter.h"

#include <algorithm>

namespace placer::stage_split {

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

}  // namespace placer::stage_split
