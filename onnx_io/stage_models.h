// Splits a placed ONNX model into one runnable ONNX sub-model per pipeline stage, plus a manifest
// (pipeline.json) that says how the stages connect.
//
// Every operator goes into the stage its plan gives it; a weight (initializer, or the output of a
// folded Constant / ConstantOfShape / Identity producer, with the constant producers it reads in
// turn) is copied into every stage that reads it, so shared weights and small constants are
// duplicated rather than sent between stages.
//
// The stages keep the model's symbolic dimensions (symbolic_dims.h): a stage runs wherever the
// original runs, at any value of its dynamic input dimensions. The output of a node constant folding
// evaluated (OnnxGraph::folded_values: shapes, masks, index tables) goes in as an initializer holding
// its value when that value is the same at every input shape. One that varies stays a computation:
// its nodes go into each stage that needs it, where the activations they read are; when an
// activation it reads is in an earlier stage only (Shape of a tensor the stage does not receive),
// the computation runs there and the stage receives the small value instead. Only when that
// activation comes from a later stage does the stage hold the placed value, and a note says so.
//
// A tensor that crosses stages becomes an output of the stage that produces it and an input of each
// later stage that reads it, typed from the loader's TensorInfo with its symbolic dimensions; the
// original graph inputs and outputs keep their original declarations. Stages only read from earlier
// stages: a plan that makes a stage read from a later one is rejected with the tensor named.
//
// The model is parsed again from disk and never modified. External-data locations are relative to a
// model file's directory: when the stages' directory contains the data files, they are rewritten to
// resolve from it; otherwise (ONNX takes no location outside the model's directory, and a new stages
// directory holds no data files) they stay relative to the original model's directory. The manifest
// records the directory they resolve from as "external_data_dir" (absolute), so a runner loads each
// stage with that directory as its external-data folder. The data bytes are never read. Nothing is
// written to disk: the caller stores the returned files.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "onnx_io/onnx_model.h"
#include "onnx_io/placement_plan.h"
#include "core/status.h"

namespace placer {

struct StageModel {
  std::string file_name;  // "stage<k>.onnx"
  std::string bytes;      // a serialized onnx::ModelProto
};

struct StageSet {
  std::vector<StageModel> models;  // pipeline order: models[k] runs plan.stages[k]
  std::string manifest_json;       // the contents of pipeline.json
  // What the stages hold at the placed dimensions rather than symbolically (one line each).
  std::vector<std::string> notes;
};

// Reads the model at `input` (the file `graph` was loaded from) and builds one sub-model per stage of
// `plan`, to be written into `output_dir` (empty: the input's directory). Fails on an unreadable
// model, a plan that does not fit `graph`, a stage reading a tensor that a later stage produces, or a
// stage too large for one protobuf (2 GB).
Expected<StageSet> buildStageModels(const ModelSource& input, const OnnxGraph& graph,
                                    const PlacementPlan& plan, const std::filesystem::path& output_dir = {});

}  // namespace placer
