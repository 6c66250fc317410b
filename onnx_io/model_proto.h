// Reading an ONNX file into a ModelProto, shared by the loader and the writers (which re-read the
// input model rather than keep it in memory). Internal to onnx_io/: it exposes ONNX's types.
#pragma once

#include <onnx/onnx_pb.h>

#include <filesystem>

#include "core/status.h"
#include "onnx_io/onnx_model.h"

namespace placer {

// Parses a whole model file, or a model in memory (up to protobuf's 2 GB message limit; larger models
// keep their weights in external data, which is never read here). Errors name the file (or the
// in-memory model's name): unreadable, truncated or not ONNX, no graph, no IR version.
Expected<onnx::ModelProto> readModelProto(const ModelSource& source);

// The directory a model file's relative paths (external-data locations) resolve from: the absolute,
// lexically normal parent of `model_path`.
std::filesystem::path modelDirectory(const std::filesystem::path& model_path);

}  // namespace placer
