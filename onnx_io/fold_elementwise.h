// The element-wise half of constant folding (onnx_io/constant_folding.h): numpy broadcasting,
// checked integer arithmetic, comparisons, logic, Where, unary ops, Cast, Range and the reductions.
// Internal to the loader; every function returns nullopt when the result is not exact (overflow,
// division by zero, a value outside the element type, a type mismatch, too many elements).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "onnx_io/const_tensor.h"

namespace placer::folding {

// Strides of a row-major tensor of these dims.
std::vector<std::size_t> stridesOf(const Shape& dims);

// For every element of a tensor of dims `out`, the flat index of the element of a tensor of dims
// `in` that broadcasts onto it (in's rank <= out's rank, and in broadcasts to out).
std::vector<std::size_t> broadcastIndex(const Shape& in, const Shape& out);

// Elements `index` of `src`, as a tensor of the same type and dims `dims`.
ConstTensor pick(const ConstTensor& src, const std::vector<std::size_t>& index, Shape dims);

// Add, Sub, Mul, Div, Mod (fmod: the attribute), Equal, Less, LessOrEqual, Greater, GreaterOrEqual,
// And, Or, Xor, Min, Max of two operands.
std::optional<ConstTensor> binary(const std::string& op, const ConstTensor& a, const ConstTensor& b,
                                  std::int64_t fmod, std::size_t max_elements);
std::optional<ConstTensor> where(const ConstTensor& condition, const ConstTensor& x, const ConstTensor& y,
                                 std::size_t max_elements);
// Neg, Abs, Sign, Floor, Ceil, Sqrt, Reciprocal, Not.
std::optional<ConstTensor> unary(const std::string& op, const ConstTensor& x);
// The tensor converted to `type` (floating -> integer truncates toward zero, as a C cast).
std::optional<ConstTensor> cast(const ConstTensor& x, int type);
std::optional<ConstTensor> range(const ConstTensor& start, const ConstTensor& limit, const ConstTensor& delta,
                                 std::size_t max_elements);
std::optional<ConstTensor> cumSum(const ConstTensor& x, std::int64_t axis, bool exclusive, bool reverse);
// ReduceSum, ReduceProd, ReduceMax, ReduceMin over `axes` (normalised, unique; empty = all).
std::optional<ConstTensor> reduce(const std::string& op, const ConstTensor& x, const std::vector<std::int64_t>& axes,
                                  bool keepdims);

}  // namespace placer::folding
