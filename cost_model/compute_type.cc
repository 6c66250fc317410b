// Compute types: which number format an operator's arithmetic runs in (cost_model/README.md,
// "Compute types"), and the peak rate a device has for it.
#include <algorithm>
#include <initializer_list>
#include <string_view>

#include "core/onnx_domain.h"
#include "cost_model/roofline.h"

namespace placer {

namespace {

// ONNX TensorProto.DataType numbers.
constexpr int kFloat = 1, kUint8 = 2, kInt8 = 3, kFloat16 = 10, kBfloat16 = 16, kUint4 = 21, kInt4 = 22;

constexpr std::pair<ComputeType, std::string_view> kComputeTypeNames[] = {
    {ComputeType::FP32, "fp32"}, {ComputeType::TF32, "tf32"}, {ComputeType::FP16, "fp16"},
    {ComputeType::BF16, "bf16"}, {ComputeType::FP8, "fp8"},   {ComputeType::INT8, "int8"},
    {ComputeType::INT4, "int4"},
};

// FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ.
bool isFloat8(int type) {
  return type >= 17 && type <= 20;
}
bool is4Bit(int type) {
  return type == kUint4 || type == kInt4;
}
bool isInteger8Or4(int type) {
  return type == kUint8 || type == kInt8 || is4Bit(type);
}

// Whether op is one of `default_ops` in the default domain or one of `microsoft_ops` in com.microsoft.
bool listed(const OpShapeInfo& op, std::initializer_list<std::string_view> default_ops,
            std::initializer_list<std::string_view> microsoft_ops) {
  const bool is_default = isDefaultDomain(op.domain);
  const auto& ops = is_default ? default_ops : microsoft_ops;
  if (!is_default && op.domain != "com.microsoft") return false;
  return std::find(ops.begin(), ops.end(), op.op_type) != ops.end();
}

// Operators whose arithmetic runs on integers (or float8), whatever their inputs' recorded types.
bool quantizedMatrixOp(const OpShapeInfo& op) {
  return listed(op, {"ConvInteger", "MatMulInteger", "QLinearConv", "QLinearMatMul"},
                {"QLinearConv", "QGemm", "QAttention", "DynamicQuantizeMatMul", "MatMulIntegerToFloat"});
}

// Operators made of matrix products: what tensor cores and integer dot-product units run.
bool matrixOp(const OpShapeInfo& op) {
  return quantizedMatrixOp(op) ||
         listed(op, {"Conv", "ConvTranspose", "Gemm", "MatMul", "Einsum", "Attention"},
                {"FusedConv", "FusedGemm", "FusedMatMul", "Attention", "MultiHeadAttention",
                 "GroupQueryAttention", "PackedAttention", "PackedMultiHeadAttention", "DecoderAttention",
                 "DecoderMaskedMultiHeadAttention", "DecoderMaskedSelfAttention", "SparseAttention",
                 "MatMulNBits", "MatMulBnb4"});
}

int inputType(const OpShapeInfo& op, std::size_t index) {
  return index < op.input_element_types.size() ? op.input_element_types[index] : 0;
}

// The format a matrix product of floating-point operands runs in: TF32 for float32 (ONNX Runtime's
// CUDA provider enables it by default, use_tf32 = 1; a device without a tf32 rate runs it at
// peak_flops), FP32 for float64 and anything unknown.
ComputeType floatType(int type) {
  if (type == kFloat) return ComputeType::TF32;
  if (type == kFloat16) return ComputeType::FP16;
  if (type == kBfloat16) return ComputeType::BF16;
  if (isFloat8(type)) return ComputeType::FP8;
  return ComputeType::FP32;
}

// MatMulNBits unpacks its 4-bit weights: to int8 with A quantized to int8 too at accuracy_level 4
// (ONNX Runtime's CPU kernel), otherwise to A's type.
ComputeType matMulNBitsType(const OpShapeInfo& op) {
  auto level = op.int_attributes.find("accuracy_level");
  if (level != op.int_attributes.end() && level->second == std::vector<std::int64_t>{4})
    return ComputeType::INT8;
  return floatType(inputType(op, 0));
}

}  // namespace

std::string_view computeTypeName(ComputeType type) {
  for (const auto& [value, name] : kComputeTypeNames) {
    if (value == type) return name;
  }
  return "fp32";
}

std::optional<ComputeType> computeTypeNamed(std::string_view name) {
  for (const auto& [value, known] : kComputeTypeNames) {
    if (known == name) return value;
  }
  return std::nullopt;
}

ComputeType computeType(const OpShapeInfo& op) {
  if (!matrixOp(op)) return ComputeType::FP32;
  const int a = inputType(op, 0), b = inputType(op, 1);
  if (quantizedMatrixOp(op)) return isFloat8(a) ? ComputeType::FP8 : ComputeType::INT8;
  if (listed(op, {}, {"MatMulNBits"})) return matMulNBitsType(op);
  if (is4Bit(a) && is4Bit(b)) return ComputeType::INT4;
  if (isInteger8Or4(a) && isInteger8Or4(b)) return ComputeType::INT8;
  return floatType(a);
}

double RooflineDevice::peakFlops(ComputeType type) const {
  if (type == ComputeType::FP32) return peak_flops;
  if (auto it = peak_flops_by_type.find(type); it != peak_flops_by_type.end()) return it->second;
  if (type == ComputeType::INT4) return peakFlops(ComputeType::INT8);
  return peak_flops;
}

}  // namespace placer
