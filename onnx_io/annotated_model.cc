// Writes a placement plan into a copy of the input ONNX model (annotated_model.h describes the
// modes). The model is parsed again from its file rather than rebuilt from OnnxGraph, so every field
// the placer does not understand — doc strings, value_info, functions, external-data references,
// fields of newer IR versions — goes back out as it came in.
//
// How the IR 10/11 fields are written: libonnx-dev 1.12's generated classes predate
// NodeProto.metadata_props (field 9), NodeProto.device_configurations (field 10) and
// ModelProto.configuration (field 26), so to them those fields are unknown fields, which protobuf
// keeps in each message's UnknownFieldSet on parse and writes back on serialization. We add ours
// there, as length-delimited fields whose payloads are the serialized sub-messages. An in-tree copy
// of the newer onnx.proto was the alternative, but its generated ModelProto could not live in
// package `onnx` beside libonnx's (the descriptor pool rejects the duplicate), so it would be a
// second parallel class hierarchy just for three fields; the unknown-field route keeps one parse,
// one class hierarchy and the checker's types. Payloads are built with protobuf itself: a
// StringStringEntryProto (which 1.12 has) for field 9, and UnknownFieldSets for the two messages it
// lacks (NodeDeviceConfigurationProto {configuration_id = 1, pipeline_stage = 3} and
// DeviceConfigurationProto {name = 1, num_devices = 2, device = 3}).
//
// Re-annotating replaces what an earlier run wrote: the two model metadata keys, every node's
// "layer_ann" entries (keys should be distinct), and device configurations named "onnx_placer". Each
// mode removes the annotations of the richer modes it does not write, so a model never carries two
// plans that disagree. Other entries of those fields are kept in their order.
#include "onnx_io/annotated_model.h"
#include "onnx_io/external_data.h"
#include "onnx_io/model_proto.h"
#include "onnx_io/placement_strings.h"

#include <google/protobuf/unknown_field_set.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace placer {

namespace {

using google::protobuf::UnknownField;
using google::protobuf::UnknownFieldSet;

constexpr const char* kPlanKey = "onnx_placer.plan";
constexpr const char* kSettingsKey = "onnx_placer.layer_assignment_settings";
// Olive's SplitModel reads this key (placement_strings.h).
constexpr const char* kSplitKey = "split_assignments";
constexpr const char* kLayerAnnotationKey = "layer_ann";
constexpr const char* kConfigurationName = "onnx_placer";
constexpr int kPlanVersion = 1;

// Field numbers of IR 10/11 that libonnx 1.12 does not know (onnx.proto, ONNX 1.16+).
constexpr int kNodeMetadataPropsField = 9;          // NodeProto.metadata_props
constexpr int kNodeDeviceConfigurationsField = 10;  // NodeProto.device_configurations
constexpr int kModelConfigurationField = 26;        // ModelProto.configuration
constexpr int kNodeConfigurationIdField = 1;        // NodeDeviceConfigurationProto.configuration_id
constexpr int kNodePipelineStageField = 3;          // NodeDeviceConfigurationProto.pipeline_stage
constexpr int kConfigurationNameField = 1;          // DeviceConfigurationProto.name
constexpr int kConfigurationNumDevicesField = 2;    // DeviceConfigurationProto.num_devices
constexpr int kConfigurationDeviceField = 3;        // DeviceConfigurationProto.device
constexpr std::int64_t kMetadataPropsIrVersion = 10;
constexpr std::int64_t kDeviceConfigurationIrVersion = 11;

// The graph and plan must describe this model; otherwise annotations would land on the wrong nodes.
Status checkPlanMatchesModel(const std::filesystem::path& path, const onnx::ModelProto& model,
                             const OnnxGraph& graph, const PlacementPlan& plan) {
  const std::string where = path.string() + ": ";
  if (plan.stage_of_node.size() != graph.nodes.size()) {
    return invalidInput(where + "the plan places " + std::to_string(plan.stage_of_node.size()) +
                        " nodes but the graph has " + std::to_string(graph.nodes.size()));
  }
  for (std::size_t s = 0; s < plan.stages.size(); ++s) {
    const int device = plan.stages[s].device;
    if (device < 0 || device >= static_cast<int>(plan.devices.size())) {
      return invalidInput(where + "stage " + std::to_string(s) + " names device " + std::to_string(device) +
                          ", but the plan has " + std::to_string(plan.devices.size()) + " devices");
    }
  }
  const int n_onnx = model.graph().node_size();
  std::map<std::string, int> node_of_name;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const OnnxNode& node = graph.nodes[i];
    const int stage = plan.stage_of_node[i];
    if (stage < 0 || stage >= static_cast<int>(plan.stages.size())) {
      return invalidInput(where + "node '" + node.name + "' is on stage " + std::to_string(stage) +
                          ", but the plan has " + std::to_string(plan.stages.size()) + " stages");
    }
    if (node.onnx_index < 0 || node.onnx_index >= n_onnx) {
      return invalidInput(where + "node '" + node.name + "' is at position " +
                          std::to_string(node.onnx_index) + ", but the model has " + std::to_string(n_onnx) +
                          " nodes (was the graph loaded from another model?)");
    }
    const onnx::NodeProto& proto = model.graph().node(node.onnx_index);
    const std::string expected_name = node.generated_name ? std::string() : node.name;
    if (proto.op_type() != node.op_type || proto.name() != expected_name) {
      return invalidInput(where + "node " + std::to_string(node.onnx_index) + " is " + proto.op_type() +
                          " '" + proto.name() + "' in the model but " + node.op_type + " '" + node.name +
                          "' in the graph (was the graph loaded from another model?)");
    }
    auto [it, inserted] = node_of_name.emplace(node.name, node.onnx_index);
    if (!inserted) {
      return invalidInput(where + "nodes " + std::to_string(it->second) + " and " +
                          std::to_string(node.onnx_index) + " are both named '" + node.name +
                          "'; the plan is keyed by node name, so names must be unique");
    }
  }
  return Status::ok();
}

// Stage of every top-level node of the model, placed or not. A folded constant producer gets the
// stage of its first reader (in model order); one that only feeds another producer (Constant ->
// ConstantOfShape) gets its reader's; one nobody reads gets the next placed node's, else the last stage.
std::vector<int> stageOfModelNodes(const onnx::GraphProto& proto, const OnnxGraph& graph,
                                   const PlacementPlan& plan) {
  const int n_onnx = proto.node_size();
  std::vector<int> stage(n_onnx, -1);
  for (std::size_t i = 0; i < graph.nodes.size(); ++i)
    stage[graph.nodes[i].onnx_index] = plan.stage_of_node[i];
  // Folded producers, including those read only from inside a reader's subgraphs.
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    for (int f : graph.nodes[i].folded) {
      if (f >= 0 && f < n_onnx && stage[f] < 0) stage[f] = plan.stage_of_node[i];
    }
  }
  std::map<std::string, std::vector<int>> readers;
  for (int i = 0; i < n_onnx; ++i) {
    for (const auto& name : proto.node(i).input()) {
      if (!name.empty()) readers[name].push_back(i);
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = n_onnx - 1; i >= 0; --i) {
      if (stage[i] >= 0) continue;
      int first_reader = n_onnx;
      for (const auto& name : proto.node(i).output()) {
        auto it = readers.find(name);
        if (it == readers.end()) continue;
        for (int r : it->second) {
          if (stage[r] >= 0) first_reader = std::min(first_reader, r);
        }
      }
      if (first_reader < n_onnx) {
        stage[i] = stage[first_reader];
        changed = true;
      }
    }
  }
  int next = plan.stages.empty() ? -1 : static_cast<int>(plan.stages.size()) - 1;
  for (int i = n_onnx - 1; i >= 0; --i) {
    if (stage[i] >= 0) {
      next = stage[i];
    } else {
      stage[i] = next;
    }
  }
  return stage;
}

nlohmann::ordered_json planJson(const OnnxGraph& graph, const PlacementPlan& plan, const PlacementStrings& strings) {
  nlohmann::ordered_json out;
  out["version"] = kPlanVersion;
  out["objective"] = plan.objective;
  out["algorithm"] = plan.algorithm;
  out["status"] = plan.status;
  out[plan.objective == "latency" ? "latency_seconds" : "max_load_seconds"] = plan.value;
  out["bound_seconds"] = plan.bound;
  auto& devices = out["devices"] = nlohmann::ordered_json::array();
  for (const PlannedDevice& device : plan.devices) {
    devices.push_back({{"name", device.name}, {"accelerator", device.accelerator}});
    if (!device.replicas.empty()) devices.back()["replicas"] = replicaNames(device);
  }
  auto& stages = out["stages"] = nlohmann::ordered_json::array();
  for (const PlannedStage& stage : plan.stages) {
    stages.push_back({{"label", stage.label},
                      {"device", plan.devices[stage.device].name},
                      {"seconds", stage.seconds},
                      {"memory", stage.memory}});
  }
  auto& nodes = out["nodes"] = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const int stage = plan.stage_of_node[i];
    nodes[graph.nodes[i].name] = {{"device", plan.devices[plan.stages[stage].device].name}, {"stage", stage}};
  }
  out["layer_assignment_settings"] = plan.layerAssignmentSettings();
  out["name_based_layer_assignment"] = strings.name_based.empty() ? nlohmann::ordered_json(nullptr)
                                                                  : nlohmann::ordered_json(strings.name_based);
  out["split_assignments"] = strings.split_assignments.empty() ? nlohmann::ordered_json(nullptr)
                                                               : nlohmann::ordered_json(strings.split_assignments);
  return out;
}

void setModelMetadata(onnx::ModelProto& model, const std::string& key, const std::string& value) {
  auto* props = model.mutable_metadata_props();
  props->erase(std::remove_if(props->begin(), props->end(),
                              [&](const onnx::StringStringEntryProto& entry) { return entry.key() == key; }),
               props->end());
  auto* entry = model.add_metadata_props();
  entry->set_key(key);
  entry->set_value(value);
}

// The first length-delimited field `number` of a serialized message, if any.
std::optional<std::string> stringField(const std::string& message, int number) {
  UnknownFieldSet fields;
  if (!fields.ParseFromString(message)) return std::nullopt;
  for (int i = 0; i < fields.field_count(); ++i) {
    const UnknownField& field = fields.field(i);
    if (field.number() == number && field.type() == UnknownField::TYPE_LENGTH_DELIMITED) {
      return field.length_delimited();
    }
  }
  return std::nullopt;
}

// Drops the length-delimited fields `number` whose payload `ours` recognizes; keeps the rest in order.
void removeFields(UnknownFieldSet& fields, int number, const std::function<bool(const std::string&)>& ours) {
  UnknownFieldSet kept;
  for (int i = 0; i < fields.field_count(); ++i) {
    const UnknownField& field = fields.field(i);
    const bool drop = field.number() == number && field.type() == UnknownField::TYPE_LENGTH_DELIMITED &&
                      ours(field.length_delimited());
    if (!drop) kept.AddField(field);
  }
  fields.Swap(&kept);
}

bool isLayerAnnotation(const std::string& payload) {
  onnx::StringStringEntryProto entry;
  return entry.ParseFromString(payload) && entry.key() == kLayerAnnotationKey;
}

bool isOurConfiguration(const std::string& payload) {
  return stringField(payload, kNodeConfigurationIdField) == kConfigurationName;
}

// int32 fields are varints of the value sign-extended to 64 bits.
std::uint64_t int32Varint(int value) {
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(value));
}

// What one node (and every node of its subgraphs) gets in the richer modes; stage -1 (a plan with
// no stages, for a model with nothing to place) only clears earlier annotations.
struct NodeAnnotation {
  AnnotateMode mode;
  std::string label;
  int stage;
};

void annotateNode(onnx::NodeProto& node, const NodeAnnotation& annotation) {
  UnknownFieldSet& fields = *node.mutable_unknown_fields();
  removeFields(fields, kNodeMetadataPropsField, isLayerAnnotation);
  removeFields(fields, kNodeDeviceConfigurationsField, isOurConfiguration);
  const bool placed = annotation.stage >= 0;
  if (placed && annotation.mode != AnnotateMode::Metadata) {
    onnx::StringStringEntryProto entry;
    entry.set_key(kLayerAnnotationKey);
    entry.set_value(annotation.label);
    fields.AddLengthDelimited(kNodeMetadataPropsField, entry.SerializeAsString());
  }
  if (placed && annotation.mode == AnnotateMode::OnnxIr11) {
    UnknownFieldSet configuration;
    configuration.AddLengthDelimited(kNodeConfigurationIdField, kConfigurationName);
    configuration.AddVarint(kNodePipelineStageField, int32Varint(annotation.stage));
    std::string payload;
    configuration.SerializeToString(&payload);
    fields.AddLengthDelimited(kNodeDeviceConfigurationsField, payload);
  }
  for (auto& attribute : *node.mutable_attribute()) {
    auto annotate_graph = [&](onnx::GraphProto& body) {
      for (auto& inner : *body.mutable_node())
        annotateNode(inner, annotation);
    };
    if (attribute.has_g()) annotate_graph(*attribute.mutable_g());
    for (auto& body : *attribute.mutable_graphs())
      annotate_graph(body);
  }
}

void setModelConfiguration(onnx::ModelProto& model, AnnotateMode mode, const PlacementPlan& plan) {
  UnknownFieldSet& fields = *model.mutable_unknown_fields();
  removeFields(fields, kModelConfigurationField, [](const std::string& payload) {
    return stringField(payload, kConfigurationNameField) == kConfigurationName;
  });
  if (mode != AnnotateMode::OnnxIr11) return;
  std::vector<bool> used(plan.devices.size(), false);
  for (const PlannedStage& stage : plan.stages)
    used[stage.device] = true;
  UnknownFieldSet configuration;
  configuration.AddLengthDelimited(kConfigurationNameField, kConfigurationName);
  configuration.AddVarint(kConfigurationNumDevicesField,
                          int32Varint(static_cast<int>(std::count(used.begin(), used.end(), true))));
  for (std::size_t d = 0; d < plan.devices.size(); ++d) {
    if (used[d]) configuration.AddLengthDelimited(kConfigurationDeviceField, plan.devices[d].name);
  }
  std::string payload;
  configuration.SerializeToString(&payload);
  fields.AddLengthDelimited(kModelConfigurationField, payload);
}

}  // namespace

Expected<AnnotateMode> parseAnnotateMode(std::string_view text) {
  if (text == "metadata") return AnnotateMode::Metadata;
  if (text == "ort") return AnnotateMode::Ort;
  if (text == "onnx-ir11") return AnnotateMode::OnnxIr11;
  return invalidInput("unknown annotation mode '" + std::string(text) +
                      "' (choose metadata, ort or onnx-ir11)");
}

std::string_view annotateModeName(AnnotateMode mode) {
  switch (mode) {
    case AnnotateMode::Metadata:
      return "metadata";
    case AnnotateMode::Ort:
      return "ort";
    case AnnotateMode::OnnxIr11:
      return "onnx-ir11";
  }
  return "unknown";
}

Expected<std::string> placementPlanText(const OnnxGraph& graph, const PlacementPlan& plan) {
  try {
    return planJson(graph, plan, placementStrings(graph, plan)).dump(2) + "\n";
  } catch (const nlohmann::json::exception& e) {
    return invalidInput(graph.path + ": cannot write the plan as JSON (" + e.what() + ")");
  }
}

Expected<std::string> annotatedModelBytes(const ModelSource& input, const OnnxGraph& graph,
                                          const PlacementPlan& plan, AnnotateMode mode,
                                          const std::filesystem::path& output_dir, ModelDataOutput* data) {
  auto parsed = readModelProto(input);
  if (!parsed) return parsed.status();
  onnx::ModelProto& model = *parsed;
  if (Status status = checkPlanMatchesModel(input.displayName(), model, graph, plan); !status) return status;
  if (data != nullptr && hasExternalData(model.graph())) {
    // Locations that reach the data from `output_dir` when they can; else links or a copy beside it.
    if (data->mode == StageData::Copy || output_dir.empty() ||
        !relocateExternalData(*model.mutable_graph(), input, output_dir)) {
      auto files = externalDataFiles(*model.mutable_graph(), input, data->mode, data->copy_name);
      if (!files) return files.status();
      data->files = std::move(*files);
    }
  } else if (!output_dir.empty()) {
    if (Status status = relocateExternalData(*model.mutable_graph(), input, output_dir); !status)
      return status;
  }

  // Generated names become the model's own, so the plan's keys name real nodes.
  onnx::GraphProto& proto = *model.mutable_graph();
  for (const OnnxNode& node : graph.nodes) {
    if (node.generated_name) proto.mutable_node(node.onnx_index)->set_name(node.name);
  }
  const PlacementStrings strings = placementStrings(graph, plan);
  std::string plan_text;
  try {
    plan_text = planJson(graph, plan, strings).dump();
  } catch (const nlohmann::json::exception& e) {
    return invalidInput(input.displayName() + ": cannot write the plan as JSON (" + e.what() + ")");
  }
  setModelMetadata(model, kPlanKey, plan_text);
  setModelMetadata(model, kSettingsKey, plan.layerAssignmentSettings());
  // An earlier split_assignments would disagree with this plan: replaced, or removed when the stages
  // do not follow module boundaries.
  if (!strings.split_assignments.empty()) {
    setModelMetadata(model, kSplitKey, strings.split_assignments);
  } else {
    auto* props = model.mutable_metadata_props();
    props->erase(std::remove_if(props->begin(), props->end(),
                                [](const onnx::StringStringEntryProto& entry) { return entry.key() == kSplitKey; }),
                 props->end());
  }

  const std::vector<int> stage_of = stageOfModelNodes(proto, graph, plan);
  for (int i = 0; i < proto.node_size(); ++i) {
    const int stage = stage_of[i];
    annotateNode(*proto.mutable_node(i),
                 {mode, stage >= 0 ? plan.stages[stage].label : std::string(), stage});
  }
  setModelConfiguration(model, mode, plan);
  if (mode == AnnotateMode::Ort) {
    model.set_ir_version(std::max<std::int64_t>(model.ir_version(), kMetadataPropsIrVersion));
  } else if (mode == AnnotateMode::OnnxIr11) {
    model.set_ir_version(std::max<std::int64_t>(model.ir_version(), kDeviceConfigurationIrVersion));
  }

  if (model.ByteSizeLong() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    return invalidInput(input.displayName() +
                        ": the annotated model would exceed protobuf's 2 GB limit "
                        "(store the weights as external data)");
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes)) {
    return internalError(input.displayName() + ": cannot serialize the annotated model");
  }
  return bytes;
}

}  // namespace placer
