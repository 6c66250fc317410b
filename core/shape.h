// Tensor shapes, shared by the ONNX loader (shape inference, constant folding) and the cost model.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace placer {

// Static dims; a scalar is {}. The cost model reads a negative dim as unknown.
using Shape = std::vector<std::int64_t>;

// Numpy broadcasting of any number of shapes: dims aligned from the right, each equal to the others
// or 1 (a 0 broadcasts with 1 to 0); nullopt when they do not broadcast (an unknown dim broadcasts
// only with itself or 1).
inline std::optional<Shape> broadcastShapes(const std::vector<Shape>& shapes) {
  std::size_t rank = 0;
  for (const Shape& s : shapes)
    rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const Shape& s : shapes) {
    const std::size_t offset = rank - s.size();
    for (std::size_t i = 0; i < s.size(); ++i) {
      std::int64_t& o = out[offset + i];
      if (s[i] == o || s[i] == 1) continue;
      if (o != 1) return std::nullopt;
      o = s[i];
    }
  }
  return out;
}

inline std::optional<Shape> broadcastShapes(const Shape& a, const Shape& b) { return broadcastShapes({a, b}); }

}  // namespace placer
