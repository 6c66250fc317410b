// The annotated model: the input ONNX model with a placement plan written into it, so the placement
// travels with the model. Three modes, each a superset of the one before:
//
//   metadata   ModelProto.metadata_props "onnx_placer.plan" (a versioned JSON plan, below) and
//              "onnx_placer.layer_assignment_settings"; unnamed nodes get their generated names
//              (OnnxNode::name) so the plan's keys match the model. IR version unchanged.
//   ort        also NodeProto.metadata_props (IR 10) "layer_ann" = the node's stage label on every
//              node, which ONNX Runtime's layer assignment (session.layer_assignment_settings)
//              matches; IR version at least 10.
//   onnx-ir11  also NodeProto.device_configurations (IR 11) {configuration_id "onnx_placer",
//              pipeline_stage k} on every node and ModelProto.configuration {name "onnx_placer",
//              num_devices, device...}; IR version 11.
//
// No attribute is ever added to a node (the checker rejects unknown attributes on standard ops),
// and everything else in the model is kept as it was, external-data references included (their side
// files are never opened; their locations change only to stay valid from the output's directory).
// Re-annotating an annotated model replaces the earlier annotations.
//
// Nodes that are not operators to place (Constant / ConstantOfShape producers folded into their
// readers) get the stage of their first reader, so ONNX Runtime finds every node assigned; nodes
// inside If/Loop/Scan bodies get the stage of the node that owns the body.
//
// The plan JSON: {"version": 1, "objective", "algorithm", "status", "max_load_seconds",
// "bound_seconds", "devices": [{"name", "accelerator"}...], "stages": [{"label", "device",
// "seconds", "memory"}...], "nodes": {"<node name>": {"device", "stage"}...},
// "layer_assignment_settings"}; stages in pipeline order, devices and stages' devices by name.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_io/onnx_model.h"
#include "onnx_io/output_files.h"
#include "onnx_io/stage_data.h"
#include "onnx_io/placement_plan.h"
#include "core/status.h"

namespace placer {

enum class AnnotateMode { Metadata, Ort, OnnxIr11 };

// "metadata", "ort" or "onnx-ir11"; anything else is InvalidInput naming the choices.
Expected<AnnotateMode> parseAnnotateMode(std::string_view text);
std::string_view annotateModeName(AnnotateMode mode);

// The plan that -o writes into the model's metadata_props, as indented JSON text: version, objective,
// algorithm, status, value and bound, devices, stages, every node's device and stage (by the node's
// name, generated ones included) and the ONNX Runtime settings string.
Expected<std::string> placementPlanText(const OnnxGraph& graph, const PlacementPlan& plan);

// How a written model reaches the model's external data from another directory (external_data.h).
struct ModelDataOutput {
  StageData mode = StageData::Reference;
  std::string copy_name;        // Copy: the new data file's name, beside the model
  std::vector<DataFile> files;  // set by the writer: what to write beside the model (none: nothing)
};

// Reads the model at `input` again (never modifying it), writes `plan` into it and returns the
// serialized model. `graph` must be loadOnnx(input) and `plan` a plan for it (one stage per node);
// a mismatch is InvalidInput. The caller writes the bytes (writeFileAtomically) into `output_dir`
// (empty: the input's directory). External-data locations, relative to the model's directory, are
// rewritten to resolve from `output_dir`. When a data file is not inside `output_dir`, no location
// reaches it (ONNX takes none outside the model's directory): without `data` this fails with
// InvalidInput saying where to write instead (relocateExternalData in external_data.h); with `data` in
// Reference mode the locations are kept and data->files holds the links to write beside the model. In
// Copy mode data->files is always a copy of the external tensors' bytes, named data->copy_name.
Expected<std::string> annotatedModelBytes(const ModelSource& input, const OnnxGraph& graph,
                                          const PlacementPlan& plan, AnnotateMode mode,
                                          const std::filesystem::path& output_dir = {},
                                          ModelDataOutput* data = nullptr);

}  // namespace placer
