// Shapes of ONNX Runtime's contrib operators, from their documented semantics (ONNX Runtime's
// docs/ContribOperators.md): B batch, S sequence, H hidden, N heads, h head size.
#include <algorithm>

#include "onnx_io/constant_folding.h"
#include "onnx_io/op_inference.h"

namespace placer::inference {

namespace {

using Types = std::optional<std::vector<TensorType>>;

// Every output typed like input 0 (shape-preserving ops); outputs past `shaped` get only the type.
Types likeInput(const onnx::NodeProto& node, const NodeInputs& in, int shaped = 1) {
  const TensorType* x = in.type(0);
  if (x == nullptr) return std::nullopt;
  std::vector<TensorType> out(node.output_size());
  for (int i = 0; i < node.output_size(); ++i)
    out[i] = i < shaped ? *x : TensorType{x->element_type, std::nullopt};
  return out;
}

// SkipLayerNormalization / SkipSimplifiedLayerNormalization: output and input_skip_bias_sum (3)
// have the input's shape, mean and inv_std_var (1, 2) the input's with the last dim 1.
Types skipNorm(const onnx::NodeProto& node, const NodeInputs& in) {
  const TensorType* x = in.type(0);
  if (x == nullptr) return std::nullopt;
  std::vector<TensorType> out(node.output_size(), *x);
  for (int i = 1; i < node.output_size() && i < 3; ++i) {
    out[i].element_type = onnx::TensorProto::FLOAT;
    if (x->shape && !x->shape->empty()) out[i].shape->back() = 1;
  }
  return out;
}

// SimplifiedLayerNormalization: Y like X; inv_std_var (1) X's shape with the normalised axes 1.
Types simplifiedNorm(const onnx::NodeProto& node, const NodeInputs& in) {
  const TensorType* x = in.type(0);
  if (x == nullptr) return std::nullopt;
  std::vector<TensorType> out(node.output_size(), *x);
  if (node.output_size() > 1 && x->shape) {
    const auto rank = static_cast<std::int64_t>(x->shape->size());
    std::int64_t axis = attributeInt(node, "axis", -1);
    if (axis < 0) axis += rank;
    for (std::int64_t d = std::max<std::int64_t>(axis, 0); d < rank; ++d)
      (*out[1].shape)[d] = 1;
    out[1].element_type = onnx::TensorProto::FLOAT;
  }
  return out;
}

// FusedMatMul after its transposes (applied by the caller): a numpy matmul.
Types fusedMatMul(const NodeInputs& in) {
  const Shape *a = in.shape(0), *b = in.shape(1);
  const TensorType* ta = in.type(0);
  if (ta == nullptr) return std::nullopt;
  std::vector<TensorType> out{{ta->element_type, std::nullopt}};
  if (a != nullptr && b != nullptr) out[0].shape = matMulShape(*a, *b);
  return out;
}

// MatMulNBits: A [..., K] times the packed B [N, K] (attributes K, N): Y [..., N].
Types matMulNBits(const onnx::NodeProto& node, const NodeInputs& in) {
  const TensorType* a = in.type(0);
  if (a == nullptr) return std::nullopt;
  std::vector<TensorType> out{{a->element_type, std::nullopt}};
  const std::int64_t n = attributeInt(node, "N", -1);
  if (a->shape && !a->shape->empty() && n > 0) {
    Shape y = *a->shape;
    y.back() = n;
    out[0].shape = y;
  }
  return out;
}

// Attention: input [B, S, H_in], weights [H_in, H_q + H_k + H_v] (qkv_hidden_sizes, or three equal
// parts): output [B, S, H_v]; present [2, B, N, S_past + S, h].
Types attention(const onnx::NodeProto& node, const NodeInputs& in) {
  const TensorType* x = in.type(0);
  if (x == nullptr) return std::nullopt;
  std::vector<TensorType> out(node.output_size(), TensorType{x->element_type, std::nullopt});
  const Shape *input = in.shape(0), *weights = in.shape(1);
  if (input == nullptr || input->size() != 3 || weights == nullptr || weights->size() != 2) return out;
  std::int64_t v_hidden = (*weights)[1] / 3;
  if (auto sizes = attributeInts(node, "qkv_hidden_sizes"); sizes && sizes->size() == 3) v_hidden = (*sizes)[2];
  out[0].shape = Shape{(*input)[0], (*input)[1], v_hidden};
  const std::int64_t heads = attributeInt(node, "num_heads", 0);
  if (node.output_size() > 1 && heads > 0) {
    std::int64_t past = 0;
    if (const Shape* p = in.shape(4); p != nullptr && p->size() == 5) past = (*p)[3];
    out[1].shape = Shape{2, (*input)[0], heads, past + (*input)[1], v_hidden / heads};
  }
  return out;
}

// MultiHeadAttention: query [B, S, H]; key [B, L, H] or [B, N, L, h] (or absent: packed); value
// likewise: output [B, S, H_v]; present_key/value [B, N, S_past + L, h].
Types multiHeadAttention(const onnx::NodeProto& node, const NodeInputs& in) {
  const TensorType* q = in.type(0);
  if (q == nullptr) return std::nullopt;
  std::vector<TensorType> out(node.output_size(), TensorType{q->element_type, std::nullopt});
  const Shape *query = in.shape(0), *key = in.shape(1), *value = in.shape(2);
  const std::int64_t heads = attributeInt(node, "num_heads", 0);
  if (query == nullptr || query->size() != 3 || heads <= 0) return out;
  const std::int64_t b = (*query)[0], s = (*query)[1];
  std::int64_t v_hidden = (*query)[2], kv_length = s, head = (*query)[2] / heads;
  if (value != nullptr && value->size() == 3) v_hidden = (*value)[2];
  if (value != nullptr && value->size() == 4) v_hidden = (*value)[1] * (*value)[3];
  if (key != nullptr && key->size() == 3) kv_length = (*key)[1];
  if (key != nullptr && key->size() == 4) {
    kv_length = (*key)[2];
    head = (*key)[3];
  }
  out[0].shape = Shape{b, s, v_hidden};
  std::int64_t past = 0;
  if (const Shape* p = in.shape(6); p != nullptr && p->size() == 4) past = (*p)[2];
  for (int i = 1; i < node.output_size() && i < 3; ++i)
    out[i].shape = Shape{b, heads, past + kv_length, i == 1 ? head : v_hidden / heads};
  return out;
}

// GroupQueryAttention: query [B, S, N·h] (or packed [B, S, (N + 2·N_kv)·h] without key and value):
// output [B, S, N·h]; present_key/value [B, N_kv, max(S_past, total_sequence_length), h].
Types groupQueryAttention(const onnx::NodeProto& node, const NodeInputs& in) {
  const TensorType* q = in.type(0);
  if (q == nullptr) return std::nullopt;
  std::vector<TensorType> out(node.output_size(), TensorType{q->element_type, std::nullopt});
  const Shape* query = in.shape(0);
  const std::int64_t heads = attributeInt(node, "num_heads", 0), kv_heads = attributeInt(node, "kv_num_heads", 0);
  if (query == nullptr || query->size() != 3 || heads <= 0 || kv_heads <= 0) return out;
  const bool packed = in.shape(1) == nullptr;
  const std::int64_t head = (*query)[2] / (packed ? heads + 2 * kv_heads : heads);
  out[0].shape = Shape{(*query)[0], (*query)[1], heads * head};
  std::optional<std::int64_t> total;
  if (const ConstTensor* t = in.value(6); t != nullptr && t->size() == 1 && !t->floating()) total = t->ints[0];
  std::int64_t past = 0;
  if (const Shape* p = in.shape(3); p != nullptr && p->size() == 4) past = (*p)[2];
  if (total) {
    for (int i = 1; i < node.output_size() && i < 3; ++i)
      out[i].shape = Shape{(*query)[0], kv_heads, std::max(past, *total), head};
  }
  return out;
}

// EmbedLayerNormalization: input_ids [B, S], word_embedding [V, H]: output [B, S, H], mask_index [B]
// (int32), embedding_sum [B, S, H].
Types embedLayerNorm(const onnx::NodeProto& node, const NodeInputs& in) {
  const Shape *ids = in.shape(0), *word = in.shape(2);
  const TensorType* w = in.type(2);
  if (w == nullptr) return std::nullopt;
  std::vector<TensorType> out(node.output_size(), TensorType{w->element_type, std::nullopt});
  if (node.output_size() > 1) out[1].element_type = onnx::TensorProto::INT32;
  if (ids == nullptr || ids->size() != 2 || word == nullptr || word->size() != 2) return out;
  out[0].shape = Shape{(*ids)[0], (*ids)[1], (*word)[1]};
  if (node.output_size() > 1) out[1].shape = Shape{(*ids)[0]};
  if (node.output_size() > 2) out[2].shape = out[0].shape;
  return out;
}

}  // namespace

std::optional<Shape> matMulShape(Shape a, Shape b) {
  if (a.empty() || b.empty()) return std::nullopt;
  const bool a_vector = a.size() == 1, b_vector = b.size() == 1;
  if (a_vector) a.insert(a.begin(), 1);
  if (b_vector) b.push_back(1);
  if (a.back() != b[b.size() - 2]) return std::nullopt;
  auto batch = broadcastShapes(Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2));
  if (!batch) return std::nullopt;
  if (!a_vector) batch->push_back(a[a.size() - 2]);
  if (!b_vector) batch->push_back(b.back());
  return batch;
}

std::string attributeString(const onnx::NodeProto& node, const std::string& name, const std::string& fallback) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name && a.type() == onnx::AttributeProto::STRING) return a.s();
  }
  return fallback;
}

float attributeFloat(const onnx::NodeProto& node, const std::string& name, float fallback) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name && a.type() == onnx::AttributeProto::FLOAT) return a.f();
  }
  return fallback;
}

std::optional<std::vector<TensorType>> contrib(const onnx::NodeProto& node, const NodeInputs& in) {
  const std::string& op = node.op_type();
  if (op == "FastGelu" || op == "BiasGelu" || op == "Gelu" || op == "QuickGelu" || op == "BiasAdd" ||
      op == "RotaryEmbedding")
    return likeInput(node, in);
  if (op == "SkipLayerNormalization" || op == "SkipSimplifiedLayerNormalization") return skipNorm(node, in);
  if (op == "SimplifiedLayerNormalization") return simplifiedNorm(node, in);
  if (op == "FusedMatMul") {
    // transA / transB swap the last two dims of an operand before the product.
    NodeInputs swapped = in;
    for (int i = 0; i < 2; ++i) {
      const char* attribute = i == 0 ? "transA" : "transB";
      if (attributeInt(node, attribute, 0) == 0 || swapped.types.size() <= static_cast<std::size_t>(i)) continue;
      auto& shape = swapped.types[i].shape;
      if (shape && shape->size() >= 2) std::swap((*shape)[shape->size() - 1], (*shape)[shape->size() - 2]);
    }
    if (attributeInt(node, "transBatchA", 0) != 0 || attributeInt(node, "transBatchB", 0) != 0) {
      const TensorType* a = in.type(0);
      if (a == nullptr) return std::nullopt;
      return std::vector<TensorType>{{a->element_type, std::nullopt}};
    }
    return fusedMatMul(swapped);
  }
  if (op == "MatMulNBits") return matMulNBits(node, in);
  if (op == "Attention") return attention(node, in);
  if (op == "MultiHeadAttention") return multiHeadAttention(node, in);
  if (op == "GroupQueryAttention") return groupQueryAttention(node, in);
  if (op == "EmbedLayerNormalization") return embedLayerNorm(node, in);
  return std::nullopt;
}

}  // namespace placer::inference
