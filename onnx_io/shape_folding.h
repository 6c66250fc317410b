// Shape arithmetic folding: exporters compute Reshape and Slice arguments at run time
// (Shape -> Gather -> Div -> Concat), and ONNX 1.12's inference cannot always follow. The loader
// evaluates such small int64 computations here, on a working copy of the model, turns their results
// into initializers and runs inference again, until nothing more folds; the placed graph is not
// changed, only the shapes come from the copy.
//
// Everything here reads untrusted models: values are checked before use (empty operands, sizes that
// disagree with the dims, out-of-range indices), the arithmetic is checked (an overflow, a division
// by zero or INT64_MIN / -1 folds nothing), and no tensor of more than kMaxFoldedElements elements is
// read. Anything that cannot be evaluated exactly is left to shape inference: nullopt, never a guess.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "onnx_io/onnx_model.h"

namespace placer {

struct IntTensor {
  Shape dims;
  std::vector<std::int64_t> values;
};

inline constexpr std::size_t kMaxFoldedElements = 1024;

// The values of an int64 or int32 tensor stored in the model, when it is small (at most
// kMaxFoldedElements elements), inline, and its data agrees with its dims; else nullopt.
std::optional<IntTensor> intValue(const onnx::TensorProto& tensor);

// An int64 initializer holding `value`.
onnx::TensorProto intTensorProto(const std::string& name, const IntTensor& value);

// An INT attribute, or `fallback`; an INTS attribute, or nullopt.
std::int64_t attributeInt(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback);
std::optional<std::vector<std::int64_t>> attributeInts(const onnx::NodeProto& node, const std::string& name);

// Evaluates one node of shape arithmetic (Shape, Constant, Identity, Cast to int64, Add, Sub, Mul,
// Div, Gather, Squeeze/Unsqueeze of one element, Concat, Slice of a vector) from the values `known`
// and the static `shapes` of tensors, or nullopt.
std::optional<IntTensor> evaluateShapeArithmetic(const onnx::NodeProto& node,
                                                 const std::map<std::string, IntTensor>& known,
                                                 const std::map<std::string, Shape>& shapes);

}  // namespace placer
