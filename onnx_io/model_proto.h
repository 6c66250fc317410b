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

// External-data locations are relative to the directory of the model file that names them. For a
// copy of the graph of the model `source` to be written into `output_dir`, rewrites every
// location (of initializers, sparse initializers and tensor attributes, in subgraphs too) to reach
// the same file from `output_dir`. ONNX Runtime and the ONNX checker take only locations inside the
// model's own directory (no "..", no absolute path), so a data file outside `output_dir` cannot be
// referenced: that is InvalidInput naming the tensor, the file and where to write instead, and the
// graph is left unchanged. Paths are compared lexically (symbolic links are not followed); the data
// files are never opened.
Status relocateExternalData(onnx::GraphProto& graph, const ModelSource& source,
                            const std::filesystem::path& output_dir);

}  // namespace placer
