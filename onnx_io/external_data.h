// Where a model's external data lives, and how a model we write reaches it.
//
// An initializer (or a tensor attribute, in nested graphs too) with data_location EXTERNAL keeps its
// bytes in a file named by its "location", relative to the directory of the model file, at "offset"
// for "length" bytes. ONNX Runtime resolves every location inside the model's own directory and
// refuses one with "..", an absolute path, or a symbolic link leading out of that directory. So a
// model written into another directory reaches the data in one of three ways:
//   - its locations rewritten to the same files, when they lie inside its directory
//     (relocateExternalData);
//   - a hard link of each data file beside it, under the same location (StageData::Reference);
//   - a new data file of its own holding the bytes of its external tensors (StageData::Copy).
// The data files are never written; the writers link or copy them (onnx_io/output_files.h). Internal
// to onnx_io/: it exposes ONNX's types.
#pragma once

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"
#include "onnx_io/onnx_model.h"
#include "onnx_io/output_files.h"
#include "onnx_io/stage_data.h"

namespace placer {

// For a copy of the graph of the model `source` to be written into `output_dir`, rewrites every
// external-data location to reach the same file from `output_dir`. A data file outside `output_dir`
// cannot be reached: that is InvalidInput naming the tensor, the file and where to write instead, and
// the graph is left unchanged. Paths are compared lexically; the data files are never opened.
Status relocateExternalData(onnx::GraphProto& graph, const ModelSource& source,
                            const std::filesystem::path& output_dir);

// True when some tensor of `graph` (nested graphs included) keeps its data in an external file.
bool hasExternalData(const onnx::GraphProto& graph);

// Makes the external tensors of `graph`, a copy of (part of) the graph of the model `source`, resolve
// from the directory the graph's model is written into, and returns the files to write there:
//   - Reference: the locations are kept, and each data file they name is returned as a hard link to
//     the original, under the same relative name;
//   - Copy: the bytes of every external tensor are gathered into one new file, `copy_name` (a tensor
//     of 1 MiB or more starting at a multiple of 64 KiB, where ONNX Runtime can map it), and the
//     tensors' locations, offsets and lengths are rewritten to it; tensors reading the same bytes
//     share them.
// Each tensor is checked first: a relative location inside the model's directory, a data file that
// exists and holds its bytes (a missing "length" is the tensor's size from its type and dims). A
// violation is InvalidInput naming the model, the tensor and the file.
Expected<std::vector<DataFile>> externalDataFiles(onnx::GraphProto& graph, const ModelSource& source,
                                                  StageData mode, const std::string& copy_name);

}  // namespace placer
