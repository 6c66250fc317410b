// Writing a StageSet (onnx_io/stage_models.h) to disk as a stage directory: stage<k>.onnx per
// pipeline stage and pipeline.json, replacing the directory whole so that no file of an earlier run
// (a stage6.onnx of a run with more stages) survives beside this run's.
#pragma once

#include <filesystem>
#include <vector>

#include "onnx_io/output_files.h"
#include "onnx_io/stage_models.h"
#include "core/status.h"

namespace placer {

// Stages the stage directory `dir` in `transaction`: it replaces `dir` when the transaction
// commits. An existing `dir` must hold only an earlier stage directory's files, unless `replace_any`.
Status stageStageDirectory(OutputTransaction& transaction, const std::filesystem::path& dir,
                           const StageSet& stages, bool replace_any);

// The same in a transaction of its own: `dir` appears (or is replaced) complete or not at all. Never
// writes over, or removes, any of `inputs`.
Status writeStageDirectory(const std::filesystem::path& dir, const StageSet& stages,
                           const std::vector<std::filesystem::path>& inputs, bool replace_any = false);

}  // namespace placer
