// Writing a StageSet (onnx_io/stage_models.h) to disk as a stage directory.
#pragma once

#include <filesystem>
#include <vector>

#include "onnx_io/stage_models.h"
#include "passes/status.h"

namespace placer {

// Writes the stage models and pipeline.json into `dir`. A new directory is filled under a temporary
// name and renamed into place, so it appears complete or not at all; into an existing directory
// each file is written atomically. Never writes over any of `inputs`.
Status writeStageDirectory(const std::filesystem::path& dir, const StageSet& stages,
                           const std::vector<std::filesystem::path>& inputs);

}  // namespace placer
