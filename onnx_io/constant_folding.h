// Constant folding: exporters compute shapes, masks and index tables at run time (Shape -> Gather ->
// Div -> Concat -> Reshape; Range -> Greater -> Where for a causal mask; ConstantOfShape ->
// ScatterND -> Sub -> Where for shifted-window masks), and ONNX 1.12's inference cannot follow
// values. The loader evaluates every default-domain node whose inputs are all known (initializers,
// constants, earlier folded values, and for Shape/Size the static shape of any tensor) here, on a
// working copy of the model, turns the results into initializers and runs inference again, until
// nothing more folds. The folded nodes cost nothing to place (their values are constants), and the
// stage sub-models receive their values as initializers (onnx_io/stage_models.h). Inside If/Loop/Scan
// bodies, the nodes whose inputs are the body's initializers, values known in the enclosing scopes
// or static shapes fold the same way (they are the same at every iteration); there they only give
// the body its shapes and drop out of its cost, and the written models keep the bodies as they were.
//
// Evaluated op types: Shape, Size, Constant, ConstantOfShape, Identity, Cast, CastLike, Gather,
// GatherElements, Unsqueeze, Squeeze, Concat, Slice, Split, Reshape, Flatten, Transpose, Expand,
// Tile, Range, CumSum, NonZero, ScatterND, Trilu, Where, Equal, Less, LessOrEqual, Greater,
// GreaterOrEqual, Not, And, Or, Xor, Add, Sub, Mul, Div, Mod, Neg, Abs, Sign, Floor, Ceil, Sqrt,
// Reciprocal, Min, Max, ReduceSum, ReduceProd, ReduceMax, ReduceMin, each in every opset form
// (axes, splits and slice bounds as attributes or as inputs).
//
// Everything here reads untrusted models: values are checked before use (operands whose sizes
// disagree with their dims, out-of-range indices or axes), the arithmetic is checked (integer
// overflow, division by zero, results outside the element type fold nothing), and no tensor of
// more than `max_elements` elements is read or made. Anything that cannot be evaluated exactly is
// nullopt, left to shape inference: never a guess.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "onnx_io/const_tensor.h"
#include "onnx_io/onnx_model.h"

namespace placer {

// The largest tensor folding reads or makes (2^21 elements: a shifted-window mask of 64 windows of
// 12 x 12 at 384 x 384 is 1.3 M).
inline constexpr std::size_t kMaxFoldedElements = std::size_t{1} << 21;

// An INT attribute, or `fallback`; an INTS attribute, or nullopt.
std::int64_t attributeInt(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback);
std::optional<std::vector<std::int64_t>> attributeInts(const onnx::NodeProto& node, const std::string& name);

// Whether evaluateNode() knows the op type (default domain).
bool foldableOp(const onnx::NodeProto& node);

// Evaluates one node from the values `known` and the static `shapes` of tensors: one value per
// output (every output named), or nullopt.
std::optional<std::vector<ConstTensor>> evaluateNode(const onnx::NodeProto& node,
                                                     const std::map<std::string, ConstTensor>& known,
                                                     const std::map<std::string, Shape>& shapes,
                                                     std::size_t max_elements = kMaxFoldedElements);

}  // namespace placer
