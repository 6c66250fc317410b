#include "cost_model/extended_work.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/onnx_domain.h"
#include "cost_model/work_formulas.h"

namespace placer {

namespace {

using work::addMacs;
using work::intAttribute;
using work::knownShape;
using work::markApproximate;
using work::product;

std::optional<std::int64_t> constantInput(const OpShapeInfo& op, int index) {
  auto it = op.constant_inputs.find(index);
  if (it == op.constant_inputs.end() || it->second.size() != 1) return std::nullopt;
  return it->second.front();
}

// Every input read once and every output written once, at their element sizes.
OpWork bytesOnly(const OpShapeInfo& op) {
  OpWork work = work::tensorBytes(op);
  if (knownShape(op.outputs, 0) == nullptr) markApproximate(work, op.op_type + ": output shape unknown");
  return work;
}

// `per_element` FLOPs per element of output 0.
OpWork perOutput(const OpShapeInfo& op, double per_element) {
  OpWork work = bytesOnly(op);
  if (const Shape* y = knownShape(op.outputs, 0)) work.flops = per_element * product(*y);
  return work;
}

// The float operator a quantized or fused one computes: its inputs `picked` (in that order) as
// `op_type`'s inputs, its outputs unchanged; its work is that operator's MACs and FLOPs, with the
// bytes the real operator moves.
OpWork asFloatOperator(const OpShapeInfo& op, const std::string& op_type, const std::vector<std::size_t>& picked,
                       bool transpose_a = false, bool transpose_b = false) {
  OpShapeInfo inner;
  inner.op_type = op_type;
  inner.int_attributes = op.int_attributes;
  inner.outputs = op.outputs;
  inner.output_element_bytes = op.output_element_bytes;
  for (std::size_t k = 0; k < picked.size(); ++k) {
    const std::size_t i = picked[k];
    std::optional<Shape> s = i < op.inputs.size() ? op.inputs[i] : std::nullopt;
    if (s && s->size() >= 2 && ((k == 0 && transpose_a) || (k == 1 && transpose_b)))
      std::swap((*s)[s->size() - 1], (*s)[s->size() - 2]);
    inner.inputs.push_back(s);
    inner.input_element_bytes.push_back(i < op.input_element_bytes.size() ? op.input_element_bytes[i] : 0);
    inner.input_is_weight.push_back(i < op.input_is_weight.size() && op.input_is_weight[i]);
  }
  const OpWork computed = estimateWork(inner);
  OpWork work = bytesOnly(op);
  work.macs = computed.macs;
  work.flops = computed.flops;
  if (!computed.estimated) markApproximate(work, computed.note);
  return work;
}

// MatMulNBits: A [..., K] by a packed N x K matrix (attributes K and N); one FLOP per weight element
// to dequantize it.
OpWork matMulNBits(const OpShapeInfo& op) {
  OpWork work = bytesOnly(op);
  const Shape* a = knownShape(op.inputs, 0);
  const std::int64_t k = intAttribute(op, "K", -1), n = intAttribute(op, "N", -1);
  if (a == nullptr || a->empty() || k <= 0 || n <= 0) {
    markApproximate(work, "MatMulNBits: A's shape or the K and N attributes unknown");
    return work;
  }
  addMacs(work, product(*a, 0, a->size() - 1) * static_cast<double>(n) * static_cast<double>(k));
  work.flops += static_cast<double>(n) * static_cast<double>(k);
  return work;
}

// Scores and weighted sum of attention: B·N·S·T·(h_qk + h_v) MACs, 8 FLOPs of softmax per score.
void addAttentionCore(OpWork& work, double b, double heads, double s, double t, double h_qk, double h_v) {
  addMacs(work, b * heads * s * t * (h_qk + h_v));
  work.flops += 8 * b * heads * s * t;
}

// Attention: input [B, S, H_in], weights [H_in, H_q + H_k + H_v], past [2, B, N, P, h]: the packed
// projection, then attention over T = P + S.
OpWork attention(const OpShapeInfo& op) {
  OpWork work = bytesOnly(op);
  const Shape *x = knownShape(op.inputs, 0), *w = knownShape(op.inputs, 1);
  const std::int64_t heads = intAttribute(op, "num_heads", 0);
  if (x == nullptr || x->size() != 3 || w == nullptr || w->size() != 2 || heads <= 0) {
    markApproximate(work, "Attention: input or weight shape, or num_heads, unknown");
    return work;
  }
  const double b = static_cast<double>((*x)[0]), s = static_cast<double>((*x)[1]);
  double q_hidden = static_cast<double>((*w)[1]) / 3, v_hidden = q_hidden;
  if (auto it = op.int_attributes.find("qkv_hidden_sizes"); it != op.int_attributes.end() && it->second.size() == 3) {
    q_hidden = static_cast<double>(it->second[0]);
    v_hidden = static_cast<double>(it->second[2]);
  }
  double past = 0;
  if (const Shape* p = knownShape(op.inputs, 4); p != nullptr && p->size() == 5) past = static_cast<double>((*p)[3]);
  addMacs(work, b * s * static_cast<double>((*w)[0]) * static_cast<double>((*w)[1]));
  work.flops += b * s * static_cast<double>((*w)[1]);  // bias
  const double n = static_cast<double>(heads);
  addAttentionCore(work, b, n, s, past + s, q_hidden / n, v_hidden / n);
  return work;
}

// MultiHeadAttention: query [B, S, H]; key [B, L, H] or [B, N, L, h]; past_key [B, N, P, h].
OpWork multiHeadAttention(const OpShapeInfo& op) {
  OpWork work = bytesOnly(op);
  const Shape *q = knownShape(op.inputs, 0), *k = knownShape(op.inputs, 1), *v = knownShape(op.inputs, 2);
  const std::int64_t heads = intAttribute(op, "num_heads", 0);
  if (q == nullptr || q->size() != 3 || heads <= 0) {
    markApproximate(work, "MultiHeadAttention: query shape or num_heads unknown");
    return work;
  }
  const double n = static_cast<double>(heads), b = static_cast<double>((*q)[0]), s = static_cast<double>((*q)[1]);
  double h = static_cast<double>((*q)[2]) / n, length = s, h_v = h;
  if (k != nullptr && k->size() == 3) length = static_cast<double>((*k)[1]);
  if (k != nullptr && k->size() == 4) length = static_cast<double>((*k)[2]);
  if (v != nullptr && v->size() == 3) h_v = static_cast<double>((*v)[2]) / n;
  if (v != nullptr && v->size() == 4) h_v = static_cast<double>((*v)[3]);
  if (const Shape* p = knownShape(op.inputs, 6); p != nullptr && p->size() == 4) length += static_cast<double>((*p)[2]);
  addAttentionCore(work, b, n, s, length, h, h_v);
  return work;
}

// GroupQueryAttention: query [B, S, N·h] (or packed with K and V); attends over T =
// total_sequence_length (input 6) tokens, else the present length.
OpWork groupQueryAttention(const OpShapeInfo& op) {
  OpWork work = bytesOnly(op);
  const Shape* q = knownShape(op.inputs, 0);
  const std::int64_t heads = intAttribute(op, "num_heads", 0), kv_heads = intAttribute(op, "kv_num_heads", 0);
  if (q == nullptr || q->size() != 3 || heads <= 0 || kv_heads <= 0) {
    markApproximate(work, "GroupQueryAttention: query shape or head counts unknown");
    return work;
  }
  const bool packed = knownShape(op.inputs, 1) == nullptr && (op.inputs.size() < 2 || !op.inputs[1]);
  const double n = static_cast<double>(heads), b = static_cast<double>((*q)[0]), s = static_cast<double>((*q)[1]);
  const double h = static_cast<double>((*q)[2]) / static_cast<double>(packed ? heads + 2 * kv_heads : heads);
  double total = s;
  if (auto t = constantInput(op, 6)) {
    total = static_cast<double>(*t);
  } else if (const Shape* present = knownShape(op.outputs, 1); present != nullptr && present->size() == 4) {
    total = static_cast<double>((*present)[2]);
    markApproximate(work, "GroupQueryAttention: total_sequence_length not constant, the present length counted");
  }
  addAttentionCore(work, b, n, s, total, h, h);
  return work;
}

// DFT: each complex output sums n terms, a real input's 2 real MACs each, a complex one's 4.
OpWork dft(const OpShapeInfo& op) {
  OpWork work = bytesOnly(op);
  const Shape *x = knownShape(op.inputs, 0), *y = knownShape(op.outputs, 0);
  if (x == nullptr || y == nullptr || x->size() < 2) {
    markApproximate(work, "DFT: shapes unknown");
    return work;
  }
  const auto rank = static_cast<std::int64_t>(x->size());
  // DFT-20's axis input (the loader gives an omitted one its default, -2), else DFT-17's attribute.
  std::int64_t axis = constantInput(op, 2).value_or(intAttribute(op, "axis", 1));
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank - 1) {
    markApproximate(work, "DFT: axis out of range");
    return work;
  }
  const double length = static_cast<double>(constantInput(op, 1).value_or((*x)[axis]));
  addMacs(work, product(*y) / 2 * length * (x->back() == 2 ? 4 : 2));
  return work;
}

bool given(const OpShapeInfo& op, std::size_t i) { return i < op.inputs.size() && op.inputs[i].has_value(); }

std::optional<OpWork> contribWork(const OpShapeInfo& op) {
  const std::string& t = op.op_type;
  if (t == "Attention") return attention(op);
  if (t == "MultiHeadAttention") return multiHeadAttention(op);
  if (t == "GroupQueryAttention") return groupQueryAttention(op);
  if (t == "MatMulNBits") return matMulNBits(op);
  if (t == "FusedMatMul") {
    OpWork work = asFloatOperator(op, "MatMul", {0, 1}, intAttribute(op, "transA", 0) != 0,
                                  intAttribute(op, "transB", 0) != 0);
    if (intAttribute(op, "transBatchA", 0) != 0 || intAttribute(op, "transBatchB", 0) != 0)
      markApproximate(work, "FusedMatMul: transBatchA/B not modelled, MACs as without them");
    return work;
  }
  // Element-wise and normalising operators: FLOPs per output element (README.md).
  if (t == "RotaryEmbedding") return perOutput(op, 3);
  if (t == "SkipLayerNormalization") return perOutput(op, 8 + (given(op, 4) ? 1 : 0));
  if (t == "SkipSimplifiedLayerNormalization") return perOutput(op, 5 + (given(op, 3) ? 1 : 0));
  if (t == "EmbedLayerNormalization") return perOutput(op, 9);
  if (t == "FastGelu") return perOutput(op, 4 + (given(op, 1) ? 1 : 0));
  if (t == "BiasGelu" || t == "QuickGelu") return perOutput(op, 5);
  if (t == "Gelu") return perOutput(op, 4);
  if (t == "BiasAdd") return perOutput(op, 2);
  return std::nullopt;
}

}  // namespace

std::optional<OpWork> extendedWork(const OpShapeInfo& op) {
  const bool default_domain = isDefaultDomain(op.domain);
  if (op.domain == "com.microsoft") return contribWork(op);
  if (!default_domain) return std::nullopt;
  const std::string& t = op.op_type;
  // ONNX Runtime registers SimplifiedLayerNormalization (RMS norm) in the default domain.
  if (t == "SimplifiedLayerNormalization") return perOutput(op, 4);
  if (t == "QLinearConv") {
    OpWork work = asFloatOperator(op, "Conv", {0, 3, 8});
    if (const Shape* y = knownShape(op.outputs, 0)) work.flops += product(*y);  // requantize
    return work;
  }
  if (t == "ConvInteger") return asFloatOperator(op, "Conv", {0, 1});
  if (t == "QLinearMatMul") {
    OpWork work = asFloatOperator(op, "MatMul", {0, 3});
    if (const Shape* y = knownShape(op.outputs, 0)) work.flops += product(*y);
    return work;
  }
  if (t == "MatMulInteger") return asFloatOperator(op, "MatMul", {0, 1});
  if (t == "QuantizeLinear" || t == "DequantizeLinear") return perOutput(op, 2);
  if (t == "DynamicQuantizeLinear") return perOutput(op, 5);  // min/max, scale, round and clip
  if (t == "DFT") return dft(op);
  if (t == "Col2Im" || t == "CenterCropPad") return perOutput(op, 0);
  // LRN: a sum of squares over `size` channels, then a power and a divide, per element.
  if (t == "LRN") {
    auto it = op.int_attributes.find("size");
    const double size = it == op.int_attributes.end() || it->second.empty() ? 5 : static_cast<double>(it->second[0]);
    return perOutput(op, 2 * size + 3);
  }
  return std::nullopt;
}

}  // namespace placer
