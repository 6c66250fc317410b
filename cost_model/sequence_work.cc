#include "cost_model/sequence_work.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/einsum.h"
#include "core/onnx_domain.h"
#include "cost_model/work_formulas.h"

namespace placer {

namespace {

using work::addMacs;
using work::intAttribute;
using work::knownShape;
using work::markApproximate;
using work::product;
using work::tensorBytes;

// LSTM, GRU and RNN read X [seq, batch, input] ([batch, seq, input] with layout 1: seq·batch steps
// either way), W [directions, gates·H, input] and R [directions, gates·H, H]. Each step of each
// direction multiplies X's row by W and the hidden state by R: gates·H·(input + H) MACs. Then, per
// hidden unit, `per_unit` FLOPs of biases, activations and state updates (cost_model/README.md).
OpWork recurrent(const OpShapeInfo& op, double per_unit) {
  OpWork work = tensorBytes(op);
  const Shape* x = knownShape(op.inputs, 0);
  const Shape* w = knownShape(op.inputs, 1);
  const Shape* r = knownShape(op.inputs, 2);
  if (x == nullptr || w == nullptr || r == nullptr || x->size() != 3 || w->size() != 3 || r->size() != 3) {
    markApproximate(work, op.op_type + ": the shapes of X, W or R unknown");
    return work;
  }
  const double steps = static_cast<double>((*x)[0]) * static_cast<double>((*x)[1]);
  const double directions = static_cast<double>((*w)[0]), gate_rows = static_cast<double>((*w)[1]);
  const double input = static_cast<double>((*w)[2]), hidden = static_cast<double>((*r)[2]);
  addMacs(work, steps * directions * gate_rows * (input + hidden));
  work.flops += steps * directions * hidden * per_unit;
  return work;
}

// Einsum: one point of the loop nest over every index per multiply-accumulate of two operands
// ("bij,bjk->bik" is a batched MatMul); a single operand (a sum, a trace, a transpose) reads each
// point once; more than two are counted as the same loop nest with one MAC per extra operand.
OpWork einsum(const OpShapeInfo& op) {
  OpWork work = tensorBytes(op);
  auto it = op.string_attributes.find("equation");
  std::vector<Shape> operands;
  for (std::size_t k = 0; k < op.inputs.size(); ++k) {
    if (const Shape* s = knownShape(op.inputs, k)) operands.push_back(*s);
  }
  std::optional<EinsumIndices> indices;
  if (it != op.string_attributes.end() && operands.size() == op.inputs.size())
    indices = readEinsum(it->second, operands);
  if (!indices) {
    if (const Shape* y = knownShape(op.outputs, 0)) work.flops = product(*y);
    markApproximate(work, "Einsum: the equation or an operand's shape unknown, or they disagree");
    return work;
  }
  if (indices->operands == 1) {
    work.flops += indices->points();
  } else {
    addMacs(work, indices->points() * static_cast<double>(indices->operands - 1));
    if (indices->operands > 2)
      markApproximate(work, "Einsum of " + std::to_string(indices->operands) + " operands: as one loop nest");
  }
  return work;
}

// TopK: a partial sort of each slice along `axis`, log2(k) comparisons per element (a heap of k).
OpWork topK(const OpShapeInfo& op) {
  OpWork work = tensorBytes(op);
  const Shape* x = knownShape(op.inputs, 0);
  const Shape* values = knownShape(op.outputs, 0);
  if (x == nullptr || values == nullptr || x->size() != values->size() || x->empty()) {
    markApproximate(work, "TopK: the input's or the output's shape unknown");
    return work;
  }
  const std::int64_t rank = static_cast<std::int64_t>(x->size());
  std::int64_t axis = intAttribute(op, "axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) {
    markApproximate(work, "TopK: axis out of range");
    return work;
  }
  const double k = static_cast<double>((*values)[static_cast<std::size_t>(axis)]);
  work.flops = product(*x) * std::log2(std::max(k, 2.0));
  return work;
}

// NonMaxSuppression: boxes [B, n, 4], scores [B, C, n]; per batch and class, sort the n scores and
// compare every pair of boxes once (an intersection over union: about 15 FLOPs). The output's
// length is what it selects, known only at run time.
OpWork nonMaxSuppression(const OpShapeInfo& op) {
  OpWork work = tensorBytes(op);
  const Shape* scores = knownShape(op.inputs, 1);
  if (scores == nullptr || scores->size() != 3) {
    markApproximate(work, "NonMaxSuppression: the scores' shape unknown");
    return work;
  }
  const double lists = static_cast<double>((*scores)[0]) * static_cast<double>((*scores)[1]);
  const double n = static_cast<double>((*scores)[2]);
  work.flops = lists * (n * std::log2(std::max(n, 2.0)) + 15 * n * (n - 1) / 2);
  return work;
}

}  // namespace

std::optional<OpWork> sequenceWork(const OpShapeInfo& op) {
  if (!isDefaultDomain(op.domain)) return std::nullopt;
  const std::string& t = op.op_type;
  // Per hidden unit and step: LSTM's 4 gates' two biases (8), 3 sigmoids and 2 tanh at 4 FLOPs each
  // (20), the cell update f·c + i·g (3) and the output o·tanh(c) (1): 32. GRU's 3 gates' biases (6),
  // 2 sigmoids and a tanh (12), the reset r·(R h) (1) and h = (1 - z)·h~ + z·h (3): 22. RNN's two
  // biases and a tanh: 6.
  if (t == "LSTM") return recurrent(op, 32);
  if (t == "GRU") return recurrent(op, 22);
  if (t == "RNN") return recurrent(op, 6);
  if (t == "Einsum") return einsum(op);
  if (t == "TopK") return topK(op);
  if (t == "NonMaxSuppression") return nonMaxSuppression(op);
  return std::nullopt;
}

}  // namespace placer
