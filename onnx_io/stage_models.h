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
// The model is parsed again from disk and never modified, and its external data never read here.
// Stages to be written as files (a StageDataLayout given) reach it from their own directory, each
// with the data files it returns to write beside it (onnx_io/external_data.h): hard links to the
// model's data files ("reference") or a data file of its own holding only its weights ("copy");
// pipeline.json names them per stage ("data_files") and the mode ("stage_data"). Stages kept in memory
// keep the model's locations, and the manifest records the directory they resolve from as
// "external_data_dir" (absolute), so a runner loads each stage with that directory as its
// external-data folder. Nothing is written to disk: the caller stores the returned files.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <optional>

#include "onnx_io/onnx_model.h"
#include "onnx_io/output_files.h"
#include "onnx_io/placement_plan.h"
#include "onnx_io/stage_data.h"
#include "core/status.h"

namespace placer {

struct StageModel {
  std::string file_name;  // "stage<k>.onnx"
  std::string bytes;      // a serialized onnx::ModelProto
  std::vector<DataFile> data;  // its external data, to be written beside it (names relative to it)
};

struct StageSet {
  std::vector<StageModel> models;  // pipeline order: models[k] runs plan.stages[k]
  std::string manifest_json;       // the contents of pipeline.json
  // What the stages hold at the placed dimensions rather than symbolically (one line each).
  std::vector<std::string> notes;
};

// How stages written as files reach the model's external data.
struct StageDataLayout {
  StageData mode = StageData::Reference;
  // Each stage in a directory of its own (a Triton model's version directory): a copied data file is
  // "model.onnx.data" rather than "stage<k>.onnx.data".
  bool own_directories = false;
};

// Reads the model at `input` (the file `graph` was loaded from) and builds one sub-model per stage of
// `plan`, for files (`layout` given) or for memory. Fails on an unreadable model, a plan that does not
// fit `graph`, a stage reading a tensor that a later stage produces, external data that is missing or
// out of its file's range, or a stage too large for one protobuf (2 GB).
Expected<StageSet> buildStageModels(const ModelSource& input, const OnnxGraph& graph, const PlacementPlan& plan,
                                    const std::optional<StageDataLayout>& layout = std::nullopt);

}  // namespace placer
