// QDQ models: operators between DequantizeLinear and QuantizeLinear nodes, which ONNX Runtime fuses
// into integer kernels, costed as those kernels (cost_model/README.md, "QDQ models").
//
// A QDQ model stores an int8 network as float operators: every quantized tensor is read through a
// DequantizeLinear (DQ) and written through a QuantizeLinear (Q). ONNX Runtime's CPU provider replaces
// each DQ -> op -> Q group it recognises by one kernel on the 8-bit tensors (QLinearConv, QGemm,
// QLinearMatMul, MatMulIntegerToFloat, int8 MaxPool, QLinearAdd, ...), and the DQ and Q nodes of the
// group disappear. The rules follow ONNX Runtime 1.30's QDQ selectors (the groups it forms on
// tests/data/fidelity/qdq_cnn.onnx were checked against the graph it writes with
// optimizedModelFilePath). Everything here is local: a node's role follows from its neighbours and
// theirs, with no pass over the graph.
#pragma once

#include "cost_model/roofline.h"
#include "onnx_io/onnx_model.h"

namespace placer {

enum class QdqRole {
  None,       // not part of a fused group: costed as it stands
  Quantized,  // the op of a group: one kernel reading and writing the 8-bit tensors
  Absorbed,   // a DQ or Q of a group, or a Relu/Clip before a Q that the kernel clamps into its
              // output range: the kernel does its work, so it costs nothing
};

// What ONNX Runtime's QDQ fusion makes of graph.nodes[node].
QdqRole qdqRole(const OnnxGraph& graph, int node);

// The shape info of a Quantized node as its kernel sees it: each input read through an absorbed DQ
// takes the element type (and size) of the DQ's 8-bit (or int32 bias) input, and output 0, when
// the kernel writes through a Q, the Q's output type. computeType() of a quantized matrix op is then
// INT8. `info` unchanged for other roles.
OpShapeInfo quantizedShapeInfo(const OnnxGraph& graph, int node, OpShapeInfo info);

}  // namespace placer
