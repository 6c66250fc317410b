// Checks of a model's operators before anything reads them: ONNX's shape inference (and our own
// folding) trusts attributes, and a Conv with a stride of 0 divides by it. Each operator of the
// default domain is verified against its schema (required and unknown attributes, attribute types,
// input and output counts), and the attributes the shape computations divide or index by must make
// sense (strides, dilations, kernel sizes, group and block size positive; pads not negative). Every
// graph output must be computed by something.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "passes/status.h"

namespace placer {

// InvalidInput naming `source`, the node (index, op type, name; inside a body, the path to it) and the
// attribute or tensor at fault.
Status checkModelNodes(const onnx::ModelProto& model, const std::string& source);

}  // namespace placer
