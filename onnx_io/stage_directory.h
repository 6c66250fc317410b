// Writing a StageSet (onnx_io/stage_models.h) to disk as a stage directory: stage<k>.onnx per
// pipeline stage, the data files each stage reads its external weights from, and pipeline.json,
// replacing the directory whole so that no file of an earlier run (a stage6.onnx of a run with more
// stages) survives beside this run's.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "onnx_io/output_files.h"
#include "onnx_io/stage_models.h"
#include "core/status.h"

namespace placer {

// Ok when `dir` does not exist, or is a directory holding only what a stage directory holds:
// regular files named stageN.onnx, stageN.onnx.data, pipeline.json and genai_config.json, and the data
// files its pipeline.json lists (an earlier run's stage or GenAI directory); otherwise a message
// naming what else it holds.
Status replaceableAsStageDirectory(const std::filesystem::path& dir);

// Stages the stage directory `dir` in `transaction`, with `extra` files beside the stages (GenAI's
// genai_config.json): it replaces `dir` when the transaction commits. An existing `dir` must hold only
// an earlier stage directory's files, unless `replace_any`. The data files the stages link to or copy
// from are protected as inputs.
Status stageStageDirectory(OutputTransaction& transaction, const std::filesystem::path& dir,
                           const StageSet& stages, bool replace_any,
                           const std::vector<std::pair<std::string, std::string_view>>& extra = {});

// The same in a transaction of its own: `dir` appears (or is replaced) complete or not at all. Never
// writes over, or removes, any of `inputs`.
Status writeStageDirectory(const std::filesystem::path& dir, const StageSet& stages,
                           const std::vector<std::filesystem::path>& inputs, bool replace_any = false);

}  // namespace placer
