// Reading an ONNX file into a ModelProto, shared by the loader and the writers (which re-read the
// input model rather than keep it in memory). Internal to onnx_io/: it exposes ONNX's types.
#pragma once

#include <onnx/onnx_pb.h>

#include <filesystem>

#include "passes/status.h"

namespace placer {

// Parses a whole model file (up to protobuf's 2 GB message limit; larger models keep their weights
// in external data, which is never read here). Errors name the file: unreadable, truncated or not
// ONNX, no graph, no IR version.
Expected<onnx::ModelProto> readModelProto(const std::filesystem::path& path);

}  // namespace placer
