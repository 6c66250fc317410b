// The loader's working copy of a model: what it runs shape inference on. Each round runs ONNX's
// inference (with data propagation), collects the types, evaluates every node constant folding can
// (onnx_io/constant_folding.h) and replaces it by an initializer holding its value, infers what
// libonnx cannot (contrib operators, opset 18-21 forms: onnx_io/op_inference.h) and gives a Loop's
// carried outputs their fixed-point shapes; until nothing new is found. The placed graph is never
// changed: only shapes and folded values come from the copy.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "onnx_io/onnx_model.h"

namespace placer {

// Floating initializers, and Constant / ConstantOfShape outputs, of more elements than this are
// weights rather than operands of shape or mask arithmetic: folding neither reads nor makes them.
// (Integer and bool tensors are read up to kMaxFoldedElements.)
inline constexpr std::size_t kMaxReadWeightElements = 65536;

// A fully static shape, or nullopt.
std::optional<Shape> shapeOf(const onnx::TypeProto& type);

// The types of the initializers, inputs, value_info and outputs of `g`, by name.
void collectShapes(const onnx::GraphProto& g, std::map<std::string, onnx::TypeProto>& types);

// Element types and shapes of every tensor of `model`, from its working copy `work` (which keeps
// the folded values as initializers and what inference found inside control-flow bodies). What
// inference had to give up on goes to `warnings`; `inconsistency` is the first node ONNX's inference
// found inconsistent (empty if none). Returns the number of nodes folded.
int inferTypes(const onnx::ModelProto& model, std::map<std::string, onnx::TypeProto>& types,
               onnx::ModelProto& work, std::vector<std::string>& warnings, std::string& inconsistency);

// inferTypes() in a forked child, on a copy without the weights' data: a model that makes ONNX's
// inference crash is an error naming `source`, not a crash of the caller.
Status inferTypesIsolated(const onnx::ModelProto& model, const std::string& source,
                          std::map<std::string, onnx::TypeProto>& types, onnx::ModelProto& work,
                          std::vector<std::string>& warnings, std::string& inconsistency);

}  // namespace placer
