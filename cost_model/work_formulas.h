// The small pieces the operator work formulas share (roofline.cc for the standard operators,
// extended_work.cc for contrib, quantized and newer ones): static shapes, dimension products,
// attributes, and how a formula records that it had to approximate. Internal to cost_model/.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cost_model/roofline.h"

namespace placer::work {

// The shape of tensors[index] if it is present and fully static; nullptr otherwise.
inline const Shape* knownShape(const std::vector<std::optional<Shape>>& tensors, std::size_t index) {
  if (index >= tensors.size() || !tensors[index]) return nullptr;
  const Shape& shape = *tensors[index];
  if (std::any_of(shape.begin(), shape.end(), [](std::int64_t dim) { return dim < 0; })) return nullptr;
  return &shape;
}

// The product of dims [first, end) (all of them by default; both ends clamped to the rank); 1 for
// an empty range (a scalar has one element).
inline double product(const Shape& shape, std::size_t first = 0, std::size_t end = SIZE_MAX) {
  const auto stop = shape.begin() + static_cast<std::ptrdiff_t>(std::min(end, shape.size()));
  const auto start = shape.begin() + static_cast<std::ptrdiff_t>(std::min(first, shape.size()));
  double result = 1;
  for (auto it = start; it < stop; ++it)
    result *= static_cast<double>(*it);
  return result;
}

inline std::optional<double> elementCount(const Shape* shape) {
  if (shape == nullptr) return std::nullopt;
  return product(*shape);
}

// The first value of an integer attribute, or `fallback` when it is absent or empty.
inline std::int64_t intAttribute(const OpShapeInfo& op, const std::string& name, std::int64_t fallback) {
  auto it = op.int_attributes.find(name);
  return it == op.int_attributes.end() || it->second.empty() ? fallback : it->second.front();
}

// Records that the work is an approximation, and why ("; "-separated reasons in the note).
inline void markApproximate(OpWork& work, const std::string& reason) {
  work.estimated = false;
  work.note += work.note.empty() ? reason : "; " + reason;
}

// Every known input read once and every known output written once, at their element sizes.
inline OpWork tensorBytes(const OpShapeInfo& op) {
  OpWork work;
  for (std::size_t i = 0; i < op.inputs.size(); ++i) {
    if (const Shape* s = knownShape(op.inputs, i); s != nullptr && i < op.input_element_bytes.size())
      work.bytes_read += product(*s) * op.input_element_bytes[i];
  }
  for (std::size_t i = 0; i < op.outputs.size(); ++i) {
    if (const Shape* s = knownShape(op.outputs, i); s != nullptr && i < op.output_element_bytes.size())
      work.bytes_written += product(*s) * op.output_element_bytes[i];
  }
  return work;
}

// Multiply-accumulates, 2 FLOPs each.
inline void addMacs(OpWork& work, double macs) {
  work.macs += macs;
  work.flops += 2 * macs;
}

}  // namespace placer::work
