#include "onnx_io/op_inference.h"

#include <onnx/defs/schema.h>

#include <string_view>

#include "core/onnx_domain.h"

namespace placer {

namespace {

struct NewerForm {
  std::string_view op_type;
  std::int64_t since;  // the opset whose form libonnx 1.12 would misread
};

// Default-domain operators whose form changed after opset 17 in a way that changes their shapes or
// types, operators libonnx 1.12 has no schema for, and Einsum, whose output it leaves without
// dimensions.
constexpr NewerForm kNewerForms[] = {
    {"ReduceL1", 18},       {"ReduceL2", 18},      {"ReduceLogSum", 18},    {"ReduceLogSumExp", 18},
    {"ReduceMax", 18},      {"ReduceMean", 18},    {"ReduceMin", 18},       {"ReduceProd", 18},
    {"ReduceSumSquare", 18}, {"Pad", 18},          {"Split", 18},           {"Resize", 18},
    {"LpPool", 18},         {"AveragePool", 19},   {"Cast", 19},            {"CastLike", 19},
    {"QuantizeLinear", 19}, {"DequantizeLinear", 19}, {"DFT", 20},
    {"GroupNormalization", 18}, {"Col2Im", 18},    {"CenterCropPad", 18},   {"Mish", 18},
    {"BitwiseAnd", 18},     {"BitwiseOr", 18},     {"BitwiseXor", 18},      {"BitwiseNot", 18},
    {"Gelu", 20},           {"Einsum", 12},
};

}  // namespace

int libonnxOpsetLimit() {
  const auto& map = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto it = map.find(onnx::ONNX_DOMAIN);
  return it == map.end() ? 17 : it->second.second;
}

bool ownsInference(const onnx::NodeProto& node, std::int64_t opset) {
  if (!isDefaultDomain(node.domain())) return false;
  // ONNX Runtime registers SimplifiedLayerNormalization in the default domain; ONNX has none.
  if (node.op_type() == "SimplifiedLayerNormalization") return true;
  for (const NewerForm& form : kNewerForms) {
    if (form.op_type == node.op_type()) return opset >= form.since;
  }
  return false;
}

std::optional<std::vector<TensorType>> inferOwnTypes(const onnx::NodeProto& node, const std::string& domain,
                                                     std::int64_t opset, const NodeInputs& inputs) {
  if (domain == "com.microsoft" || node.op_type() == "SimplifiedLayerNormalization") {
    return inference::contrib(node, inputs);
  }
  if (isDefaultDomain(domain) || domain == kOwnInferenceDomain) {
    return inference::newerForms(node, opset, inputs);
  }
  return std::nullopt;
}

}  // namespace placer
