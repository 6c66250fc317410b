// QDQ groups as ONNX Runtime 1.30's CPU provider forms them (onnxruntime/core/optimizer/
// qdq_transformer/selectors_actions: qdq_selector_action_transformer.cc and qdq_selectors.cc):
//   - Conv: inputs 0 and 1 through 8-bit DQs, the bias (when given) through an int32 DQ, output 0
//     read only by one Q (QLinearConv). Gemm: the same, or without the Q (QGemm writing float).
//     MatMul: inputs 0 and 1 through 8-bit DQs, with or without the Q (QLinearMatMul,
//     MatMulIntegerToFloat). A Relu or Clip between the op and its Q is absorbed: the kernel clamps
//     into the Q's range (ONNX Runtime removes it when the zero point makes it redundant; the zero
//     point is not checked here).
//   - MaxPool, Resize, ReduceMax, ReduceMin, Expand, Flatten, Gather, GatherElements, Reshape, Slice,
//     Squeeze, Tile, Transpose, Unsqueeze (DQ and Q dropped), AveragePool, GlobalAveragePool,
//     LeakyRelu, Sigmoid, Softmax (QLinear* forms): input 0 through an 8-bit DQ, output 0 read only by
//     one Q. Add, Mul: inputs 0 and 1 likewise; Concat: every input.
// The loader keeps a DQ of a constant (a quantized weight) as an operator, as ONNX Runtime does, so a
// group's weight is its DQ's int8 input.
// ONNX Runtime gives every group its own copy of a shared DQ; here a DQ is absorbed only when every
// reader is a group, otherwise it is costed whole for the readers that still need it. Not checked:
// equal scales and zero points where ONNX Runtime asks for them, opset versions, 16-bit types (not
// fused by default). Control-flow bodies are costed as stored.
#include "cost_model/qdq.h"

#include <map>
#include <optional>
#include <string_view>

#include "core/onnx_domain.h"

namespace placer {
namespace {

// ONNX TensorProto.DataType numbers.
constexpr int kUint8 = 2, kInt8 = 3, kInt32 = 6;

// How an op type forms a group with its DQ and Q nodes.
struct GroupKind {
  int data_inputs = 1;        // inputs [0, data_inputs) are read through 8-bit DQs; -1: every input
  bool matrix = false;        // Conv, Gemm, MatMul: a Relu/Clip before the Q is absorbed
  bool int32_bias = false;    // input 2, when given, through an int32 DQ (Conv, Gemm)
  bool float_output = false;  // the kernel may write float, without a Q (MatMul, Gemm)
};

enum class Slot { Float, Data, Bias };  // how a group reads one of its inputs

bool defaultDomain(const OnnxNode& node) {
  return isDefaultDomain(node.domain);
}
bool isOp(const OnnxNode& node, std::string_view type) {
  return defaultDomain(node) && node.op_type == type;
}
bool isClip(const OnnxNode& node) {
  return isOp(node, "Relu") || isOp(node, "Clip");
}
bool is8Bit(int type) {
  return type == kUint8 || type == kInt8;
}

std::optional<GroupKind> groupKind(const OnnxNode& node) {
  static const std::map<std::string_view, GroupKind> kMatrix = {
      {"Conv", {2, true, true, false}}, {"Gemm", {2, true, true, true}}, {"MatMul", {2, true, false, true}}};
  static const std::map<std::string_view, int> kElementwise = {{"Add", 2},
                                                               {"Mul", 2},
                                                               {"Concat", -1},
                                                               {"MaxPool", 1},
                                                               {"Resize", 1},
                                                               {"ReduceMax", 1},
                                                               {"ReduceMin", 1},
                                                               {"Expand", 1},
                                                               {"Flatten", 1},
                                                               {"Gather", 1},
                                                               {"GatherElements", 1},
                                                               {"Reshape", 1},
                                                               {"Slice", 1},
                                                               {"Squeeze", 1},
                                                               {"Tile", 1},
                                                               {"Transpose", 1},
                                                               {"Unsqueeze", 1},
                                                               {"AveragePool", 1},
                                                               {"GlobalAveragePool", 1},
                                                               {"LeakyRelu", 1},
                                                               {"Sigmoid", 1},
                                                               {"Softmax", 1}};
  if (!defaultDomain(node)) return std::nullopt;
  if (auto it = kMatrix.find(node.op_type); it != kMatrix.end()) return it->second;
  if (auto it = kElementwise.find(node.op_type); it != kElementwise.end()) return GroupKind{it->second};
  return std::nullopt;
}

Slot slotOf(const GroupKind& kind, std::size_t input) {
  if (kind.data_inputs < 0 || input < static_cast<std::size_t>(kind.data_inputs)) return Slot::Data;
  return kind.int32_bias && input == 2 ? Slot::Bias : Slot::Float;
}

int firstOutput(const OnnxNode& node) {
  return node.outputs.empty() ? -1 : node.outputs.front();
}

int producerOfInput0(const OnnxGraph& graph, const OnnxNode& node) {
  return node.inputs.empty() || node.inputs[0] < 0 ? -1 : graph.tensors[node.inputs[0]].producer;
}

// Whether `tensor` is the output of a DQ reading an 8-bit tensor (an int32 one for a bias).
bool dequantized(const OnnxGraph& graph, int tensor, Slot slot) {
  if (tensor < 0) return false;
  const int dq = graph.tensors[tensor].producer;
  if (dq < 0 || !isOp(graph.nodes[dq], "DequantizeLinear")) return false;
  const int source = graph.nodes[dq].inputs.empty() ? -1 : graph.nodes[dq].inputs[0];
  if (source < 0) return false;
  const int type = graph.tensors[source].element_type;
  return slot == Slot::Bias ? type == kInt32 : is8Bit(type);
}

// Whether every DQ slot of `node` reads a DQ of the right type.
bool quantizedInputs(const OnnxGraph& graph, const OnnxNode& node, const GroupKind& kind) {
  const std::size_t data =
      kind.data_inputs < 0 ? node.inputs.size() : static_cast<std::size_t>(kind.data_inputs);
  if (data == 0 || node.inputs.size() < data) return false;
  for (std::size_t i = 0; i < node.inputs.size(); ++i) {
    const Slot slot = slotOf(kind, i);
    if (slot == Slot::Float || (slot == Slot::Bias && node.inputs[i] < 0)) continue;
    if (!dequantized(graph, node.inputs[i], slot)) return false;
  }
  return true;
}

// The one node reading `tensor`, when it is not a graph output; -1 otherwise.
int onlyReader(const OnnxGraph& graph, int tensor) {
  if (tensor < 0) return -1;
  const TensorInfo& info = graph.tensors[tensor];
  return info.is_graph_output || info.consumers.size() != 1 ? -1 : info.consumers.front();
}

// The Q writing the 8-bit result of `node`'s output 0 — its only reader, or with `clip` the only
// reader of a Relu/Clip that is its only reader — or -1.
int outputQuantizer(const OnnxGraph& graph, int node, bool clip) {
  int tensor = firstOutput(graph.nodes[node]);
  int reader = onlyReader(graph, tensor);
  if (reader >= 0 && clip && isClip(graph.nodes[reader])) {
    tensor = firstOutput(graph.nodes[reader]);
    reader = onlyReader(graph, tensor);
  }
  if (reader < 0) return -1;
  const OnnxNode& q = graph.nodes[reader];
  if (!isOp(q, "QuantizeLinear") || q.inputs.empty() || q.inputs[0] != tensor) return -1;
  const int out = firstOutput(q);
  return out >= 0 && is8Bit(graph.tensors[out].element_type) ? reader : -1;
}

// Its outputs other than output 0 (MaxPool's Indices) are not read: the kernels have none.
bool onlyFirstOutputUsed(const OnnxGraph& graph, const OnnxNode& node) {
  for (std::size_t i = 1; i < node.outputs.size(); ++i) {
    const int t = node.outputs[i];
    if (t >= 0 && (graph.tensors[t].is_graph_output || !graph.tensors[t].consumers.empty())) return false;
  }
  return true;
}

bool quantizedGroup(const OnnxGraph& graph, int node) {
  const OnnxNode& n = graph.nodes[node];
  const std::optional<GroupKind> kind = groupKind(n);
  if (!kind || !onlyFirstOutputUsed(graph, n)) return false;
  const bool quantized_output = outputQuantizer(graph, node, kind->matrix) >= 0;
  if (!quantizedInputs(graph, n, *kind)) return false;
  return quantized_output || kind->float_output;
}

// Whether `reader` is a group that reads `tensor` only through its DQ slots.
bool readsQuantized(const OnnxGraph& graph, int reader, int tensor) {
  if (!quantizedGroup(graph, reader)) return false;
  const OnnxNode& n = graph.nodes[reader];
  const GroupKind kind = *groupKind(n);
  for (std::size_t i = 0; i < n.inputs.size(); ++i) {
    if (n.inputs[i] == tensor && slotOf(kind, i) == Slot::Float) return false;
  }
  return true;
}

bool absorbedDequantize(const OnnxGraph& graph, int node) {
  const int out = firstOutput(graph.nodes[node]);
  if (out < 0 || graph.tensors[out].is_graph_output || graph.tensors[out].consumers.empty()) return false;
  for (int reader : graph.tensors[out].consumers) {
    if (!readsQuantized(graph, reader, out)) return false;
  }
  return true;
}

// The group op whose result `node` (a Q) carries: its producer, or the producer's producer when that
// is a Relu/Clip. -1 for none.
int groupBefore(const OnnxGraph& graph, int node) {
  int producer = producerOfInput0(graph, graph.nodes[node]);
  if (producer >= 0 && isClip(graph.nodes[producer]))
    producer = producerOfInput0(graph, graph.nodes[producer]);
  return producer >= 0 && quantizedGroup(graph, producer) ? producer : -1;
}

bool absorbedQuantize(const OnnxGraph& graph, int node) {
  const int group = groupBefore(graph, node);
  return group >= 0 && outputQuantizer(graph, group, groupKind(graph.nodes[group])->matrix) == node;
}

bool absorbedClip(const OnnxGraph& graph, int node) {
  const int group = producerOfInput0(graph, graph.nodes[node]);
  if (group < 0 || !quantizedGroup(graph, group) || !groupKind(graph.nodes[group])->matrix) return false;
  return onlyReader(graph, firstOutput(graph.nodes[group])) == node &&
         outputQuantizer(graph, group, true) >= 0;
}

void setElementType(std::vector<int>& types, std::vector<double>& bytes, std::size_t index, int type) {
  if (index < types.size()) types[index] = type;
  if (index < bytes.size()) bytes[index] = elementBytes(type);
}

}  // namespace

QdqRole qdqRole(const OnnxGraph& graph, int node) {
  if (quantizedGroup(graph, node)) return QdqRole::Quantized;
  const OnnxNode& n = graph.nodes[node];
  bool absorbed = false;
  if (isOp(n, "DequantizeLinear")) absorbed = absorbedDequantize(graph, node);
  if (isOp(n, "QuantizeLinear")) absorbed = absorbedQuantize(graph, node);
  if (isClip(n)) absorbed = absorbedClip(graph, node);
  return absorbed ? QdqRole::Absorbed : QdqRole::None;
}

OpShapeInfo quantizedShapeInfo(const OnnxGraph& graph, int node, OpShapeInfo info) {
  if (!quantizedGroup(graph, node)) return info;
  const OnnxNode& n = graph.nodes[node];
  const GroupKind kind = *groupKind(n);
  for (std::size_t i = 0; i < n.inputs.size(); ++i) {
    const Slot slot = slotOf(kind, i);
    if (slot == Slot::Float || n.inputs[i] < 0) continue;
    const int dq = graph.tensors[n.inputs[i]].producer;
    const int type = graph.tensors[graph.nodes[dq].inputs[0]].element_type;
    setElementType(info.input_element_types, info.input_element_bytes, i, type);
  }
  if (const int q = outputQuantizer(graph, node, kind.matrix); q >= 0) {
    const int out_type = graph.tensors[firstOutput(graph.nodes[q])].element_type;
    setElementType(info.output_element_types, info.output_element_bytes, 0, out_type);
  }
  return info;
}

}  // namespace placer
