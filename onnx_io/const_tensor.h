// Small constant tensors, as the loader's constant folding evaluates them: integer and bool values
// as int64, floating values as double (each exactly a value of its element type: float32, float16,
// bfloat16 and double values are rounded to their type after every operation, so folding computes
// what a runtime computes in that type).
//
// Everything here reads untrusted models: a tensor is read only when it is stored inline, its data
// agrees with its dims, and it has at most the element count the caller allows; anything else is
// nullopt, never a guess.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "onnx_io/onnx_model.h"

namespace placer {

struct ConstTensor {
  int type = 0;  // ONNX TensorProto.DataType
  Shape dims;
  std::vector<std::int64_t> ints;  // integer and bool types (bool: 0 or 1)
  std::vector<double> reals;       // float32, float16, bfloat16, double

  bool floating() const;
  std::size_t size() const { return floating() ? reals.size() : ints.size(); }
  // Element i as a double (an int64 beyond 2^53 rounds).
  double real(std::size_t i) const { return floating() ? reals[i] : static_cast<double>(ints[i]); }
};

// Whether folding can hold values of the element type: the integer types (UINT64 only below 2^63),
// BOOL, FLOAT, DOUBLE, FLOAT16, BFLOAT16.
bool foldableType(int type);
bool floatingType(int type);

// The element count of dims, or nullopt when a dim is negative or the count exceeds max_elements.
std::optional<std::size_t> elementCount(const Shape& dims, std::size_t max_elements);

// `value` as an element of the type: rounded to a floating type, checked against an integer type's
// range (nullopt when out of range, NaN, or for integer types not integral).
std::optional<double> roundToType(int type, double value);
bool fitsType(int type, std::int64_t value);

// A tensor of the type and dims, with every element zero (the value vectors sized by the dims; the
// caller checked the count).
ConstTensor zeros(int type, const Shape& dims);

// Reads a tensor stored in the model (inline data, typed fields or raw_data), when it has at most
// max_elements elements; else nullopt.
std::optional<ConstTensor> readConstant(const onnx::TensorProto& tensor, std::size_t max_elements);

// The tensor as a TensorProto named `name`, its data in raw_data (little-endian).
onnx::TensorProto writeConstant(const std::string& name, const ConstTensor& value);

}  // namespace placer
