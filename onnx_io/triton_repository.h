// A Triton Inference Server model repository for a placed model (place --emit triton=DIR): one
// model per stage, pinned to its device, and an ensemble model that chains them.
//
//   DIR/<name>_stage<k>/config.pbtxt     platform "onnxruntime_onnx"; instance_group KIND_GPU with
//                                        gpus [the accelerator's index], or KIND_CPU for a CPU stage
//   DIR/<name>_stage<k>/1/model.onnx     the stage sub-model (stage_models.h), and beside it the data
//                                        files it keeps its external weights in (model.onnx.data, or
//                                        links to the model's data files), as Triton's multi-file
//                                        ONNX layout has them
//   DIR/<name>/config.pbtxt              platform "ensemble": the original model's inputs and
//                                        outputs, and one step per stage in pipeline order, whose
//                                        input_map and output_map name the tensors the stages pass
//   DIR/<name>/1/                        the (empty) version directory Triton wants of an ensemble
//
// Inputs and outputs carry Triton's data types (TYPE_FP32, TYPE_INT64, ...) and dims, -1 for a
// symbolic dimension. When every tensor of every stage and of the model has the same symbolic
// leading dimension (a batch), max_batch_size is the value it was placed at and dims leave it out;
// otherwise max_batch_size is 0 and dims are whole. The text follows Triton's model_config.proto
// (tests/data/triton, which the tests parse it against).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "onnx_io/placement_plan.h"
#include "onnx_io/stage_models.h"

namespace placer {

struct TritonRepository {
  std::vector<std::pair<std::string, std::string>> configs;      // relative path -> config.pbtxt text
  std::vector<std::pair<std::string, std::string_view>> models;  // relative path -> a stage's bytes
  std::string ensemble;                                          // the ensemble model's name
  std::vector<DataFile> data;  // each stage's data files, named by their path in the repository

  // Every file of the repository, relative path -> bytes, pointing into this and the StageSet; a
  // path ending in '/' is an empty directory.
  std::vector<std::pair<std::string, std::string_view>> files() const {
    std::vector<std::pair<std::string, std::string_view>> out(models.begin(), models.end());
    for (const auto& [path, text] : configs) out.emplace_back(path, text);
    out.emplace_back(ensemble + "/1/", std::string_view());
    return out;
  }
  const std::vector<DataFile>& dataFiles() const { return data; }
};

// The repository for `stages` (built for `plan`), with the models named after `model_name`
// (characters other than letters, digits, '_', '-' and '.' become '_'). Stages with external data must
// have been built for their own directories (StageDataLayout::own_directories), as Triton loads a
// model's files from its version directory; stages built for memory are refused. Fails on a tensor
// of unknown element type or rank.
Expected<TritonRepository> tritonRepository(const StageSet& stages, const PlacementPlan& plan,
                                            const std::string& model_name);

// The model name for a model file or name: its stem, sanitized.
std::string tritonModelName(const std::string& model);

}  // namespace placer
