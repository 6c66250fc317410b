// An Einsum equation read against its operands' shapes, shared by the ONNX loader (the output's
// shape, which libonnx 1.12 leaves without dimensions) and the cost model (the loop nest's size).
//
// "bij,bjk->bik": one term per operand, a letter per axis; the same letter names the same index
// (a size of 1 broadcasts against the others). "..." stands for an operand's axes beyond its letters,
// broadcast among the operands from the right (numpy's rules). Without "->" the output is the
// "..." axes, then the letters that appear once, in alphabetical order. Spaces are ignored.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/shape.h"

namespace placer {

struct EinsumIndices {
  std::size_t operands = 0;
  Shape ellipsis;                         // the axes "..." stands for, outermost first
  std::map<char, std::int64_t> letters;  // each letter's size
  Shape output;                           // the output's shape
  // The number of points of the loop nest over every index: the ellipsis's and the letters'.
  double points() const;
};

// nullopt when the equation is malformed or does not fit the shapes (a term with more letters than
// its operand has axes, or fewer without "...", two sizes of one letter neither of them 1, an output
// letter no operand has).
std::optional<EinsumIndices> readEinsum(const std::string& equation, const std::vector<Shape>& operands);

}  // namespace placer
