// The loader's own type and shape inference, for nodes libonnx 1.12 cannot infer (it knows the
// default domain up to opset 17 and no other domain):
//  - ONNX Runtime's contrib operators (domain com.microsoft) that its transformer optimizer and GenAI
//    model builder emit — Attention, MultiHeadAttention, GroupQueryAttention, RotaryEmbedding,
//    SkipLayerNormalization, SkipSimplifiedLayerNormalization, EmbedLayerNormalization, FastGelu,
//    BiasGelu, Gelu, QuickGelu, BiasAdd, FusedMatMul, MatMulNBits — and SimplifiedLayerNormalization,
//    which ONNX Runtime registers in the default domain; their shapes follow ONNX Runtime's
//    ContribOperators.md;
//  - the operator forms of opsets 18-21: Reduce* and Pad with axes as an input, Split with
//    num_outputs, Resize's axes and keep_aspect_ratio_policy, pooling with ceil_mode/dilations,
//    Cast/CastLike and (De)QuantizeLinear of the new element types (8-bit floats, int4; blocked
//    quantization), DFT with dft_length and axis as inputs, and the new operators GroupNormalization,
//    Col2Im, CenterCropPad, Gelu, Mish and the bitwise ones;
//  - Einsum, whose output libonnx 1.12 gives a rank and no dimensions (core/einsum.h).
// For the second group libonnx would apply the opset-17 form's rules to the newer form and get wrong
// shapes (a ReduceMean-18 read as reducing every axis), so ownsInference() names the nodes the loader
// hides from it (onnx_loader.cc moves them to kOwnInferenceDomain in its working copy).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "onnx_io/const_tensor.h"
#include "onnx_io/onnx_model.h"

namespace placer {

// The domain the loader's working copy gives the default-domain nodes ownsInference() claims.
inline constexpr const char* kOwnInferenceDomain = "onnx_placer.own_inference";

// The last default-domain opset libonnx's schemas cover.
int libonnxOpsetLimit();

struct TensorType {
  int element_type = 0;        // ONNX TensorProto.DataType; 0 = unknown
  std::optional<Shape> shape;  // static shape, when known
};

// What the node reads: per input (omitted ones too), its type and, when constant folding knows it,
// its value.
struct NodeInputs {
  std::vector<TensorType> types;
  std::vector<const ConstTensor*> values;
  const TensorType* type(int i) const { return i < static_cast<int>(types.size()) ? &types[i] : nullptr; }
  const Shape* shape(int i) const {
    const TensorType* t = type(i);
    return t != nullptr && t->shape ? &*t->shape : nullptr;
  }
  const ConstTensor* value(int i) const { return i < static_cast<int>(values.size()) ? values[i] : nullptr; }
};

// Whether the loader infers this node itself (a default-domain node of a form libonnx would
// misread, at the model's default-domain opset `opset`, or of an op type libonnx does not know).
bool ownsInference(const onnx::NodeProto& node, std::int64_t opset);

// The node's output types (one per output; an entry without shape or type where it cannot tell),
// or nullopt for a node it does not know. `opset` is the model's version of the node's domain.
std::optional<std::vector<TensorType>> inferOwnTypes(const onnx::NodeProto& node, const std::string& domain,
                                                     std::int64_t opset, const NodeInputs& inputs);

namespace inference {
// The two halves, by domain: com.microsoft (and SimplifiedLayerNormalization), and the default
// domain's newer forms.
std::optional<std::vector<TensorType>> contrib(const onnx::NodeProto& node, const NodeInputs& inputs);
std::optional<std::vector<TensorType>> newerForms(const onnx::NodeProto& node, std::int64_t opset,
                                                  const NodeInputs& inputs);
// Shared helpers.
std::optional<Shape> matMulShape(Shape a, Shape b);
std::string attributeString(const onnx::NodeProto& node, const std::string& name, const std::string& fallback);
float attributeFloat(const onnx::NodeProto& node, const std::string& name, float fallback);
}  // namespace inference

}  // namespace placer
