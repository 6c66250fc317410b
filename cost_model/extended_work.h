// Work of operators outside the default domain's formula table (roofline.cc), each from its
// documented semantics (cost_model/README.md, "Contrib, quantized and newer operators"):
//  - ONNX Runtime's contrib operators (com.microsoft): Attention, MultiHeadAttention,
//    GroupQueryAttention, RotaryEmbedding, (Skip)(Simplified)LayerNormalization,
//    EmbedLayerNormalization, FastGelu, BiasGelu, Gelu, QuickGelu, BiasAdd, FusedMatMul, MatMulNBits;
//  - the integer and quantizing operators: QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger,
//    QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear;
//  - the newer default-domain operators Col2Im, CenterCropPad and DFT.
// A matrix operator is costed as the float operator it computes (QLinearConv as the Conv of its
// data and weight; MatMulNBits as a MatMul of A by an N x K matrix), its bytes at the element sizes
// it really reads (packed 4-bit weights at half a byte).
#pragma once

#include <optional>

#include "cost_model/roofline.h"

namespace placer {

// The operator's work, or nullopt when it is not one of the above (estimateWork's table answers).
std::optional<OpWork> extendedWork(const OpShapeInfo& op);

}  // namespace placer
