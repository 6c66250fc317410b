// Stage sub-models (stage_models.h): re-reads the model, lets the splitter decide what each pipeline
// stage holds (stage_splitter.cc), then writes one ModelProto per stage and the manifest.
//
// Each stage's nodes are in topological order (the original order where that already is one). The
// model-level fields (IR version, opsets, producer, metadata, local functions) are copied unchanged;
// training_info is not, as it refers to the whole graph.
#include "onnx_io/stage_models.h"
#include "onnx_io/report.h"
#include "onnx_io/external_data.h"
#include "onnx_io/model_proto.h"
#include "onnx_io/stage_splitter.h"
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
namespace stage_split {

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

}  // namespace stage_split

namespace {

using Json = nlohmann::ordered_json;
using stage_split::StageContents;
using stage_split::StageSplitter;

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
                  const StageSplitter& splitter, const SymbolicShapes& symbolic, const StageSet& built,
                  const std::optional<StageDataLayout>& layout, bool external_data) {
  Json manifest;
  manifest["version"] = 1;
  manifest["model"] = input.fromMemory() ? input.name : input.path.filename().string();
  manifest["objective"] = plan.objective;
  manifest["max_load_seconds"] = plan.value;
  manifest["layer_assignment_settings"] = plan.layerAssignmentSettings();
  if (external_data && layout) {
    // Each stage's data files are beside it: links to the model's ("reference") or its own ("copy").
    manifest["stage_data"] = toString(layout->mode);
  } else if (external_data) {
    // The directory the stage files' external-data locations are relative to.
    manifest["external_data_dir"] = input.dataDirectory().string();
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
    if (!plan.devices[planned.device].topology_name.empty())
      stage["device_name"] = plan.devices[planned.device].topology_name;
    if (!plan.devices[planned.device].kind.empty()) stage["device_kind"] = plan.devices[planned.device].kind;
    addReplicaFields(stage, plan.devices[planned.device]);
    stage["estimated_seconds"] = planned.seconds;
    stage["memory_bytes"] = planned.memory;
    stage["compute_seconds"] = planned.compute;
    if (!built.models[k].data.empty()) {
      Json data_files = Json::array();
      for (const DataFile& file : built.models[k].data) data_files.push_back(file.name);
      stage["data_files"] = std::move(data_files);
    }
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
  manifest["notes"] = built.notes;
  return manifest;
}

}  // namespace

Expected<StageSet> buildStageModels(const ModelSource& input, const OnnxGraph& graph, const PlacementPlan& plan,
                                    const std::optional<StageDataLayout>& layout) {
  auto parsed = readModelProto(input);
  if (!parsed) return parsed.status();
  onnx::ModelProto& base = *parsed;
  // Keep the model-level fields in `base` and the graph apart, so each stage copies only the former.
  onnx::GraphProto original;
  original.Swap(base.mutable_graph());
  base.clear_graph();
  base.clear_training_info();

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
    StageModel model{"stage" + std::to_string(k) + ".onnx", {}, {}};
    if (hasExternalData(stage.graph())) {
      external_data = true;
      if (layout) {
        const std::string copy_name = layout->own_directories ? "model.onnx.data" : model.file_name + ".data";
        auto data = externalDataFiles(*stage.mutable_graph(), input, layout->mode, copy_name);
        if (!data) return data.status();
        model.data = std::move(*data);
      }
    }
    if (stage.ByteSizeLong() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
      return unsupported("stage " + std::to_string(k) + " of " + input.displayName() +
                         " exceeds protobuf's 2 GB limit; store the model's weights as external data");
    }
    if (!stage.SerializeToString(&model.bytes)) {
      return internalError("cannot serialize stage " + std::to_string(k) + " of " + input.displayName());
    }
    out.models.push_back(std::move(model));
  }
  try {
    out.manifest_json = manifestJson(input, graph, plan, splitter, symbolic, out, layout, external_data).dump(2) + "\n";
  } catch (const nlohmann::json::exception& e) {  // a tensor name that is not UTF-8
    return invalidInput(input.displayName() + ": cannot write pipeline.json: a tensor name is not valid UTF-8 (" +
                        e.what() + ")");
  }
  return out;
}

}  // namespace placer
