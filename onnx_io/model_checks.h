// Checks of a model's operators before anything reads them: ONNX's shape inference (and our own
// folding) trusts attributes, and a Conv with a stride of 0 divides by it. Each operator of the
// default domain is verified against its schema (required and unknown attributes, attribute types,
// input and output counts), and the attributes the shape computations divide or index by must make
// sense (strides, dilations, kernel sizes, group and block size positive; pads not negative). Every
// tensor a node reads must be defined (by a node, an initializer or a graph input, of its graph or of
// an enclosing one: shape inference dereferences its type), the nodes of a graph must not form a
// cycle, and every graph output must be computed by something. Nodes need not come in topological
// order, which ONNX requires: sortNodesTopologically() puts them in one for shape inference.
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "onnx_io/onnx_model.h"

namespace placer {

// InvalidInput naming `source`, the node (index, op type, name; inside a body, the path to it) and the
// attribute or tensor at fault.
Status checkModelNodes(const onnx::ModelProto& model, const std::string& source);

// No initializer and no declared input, output or value_info has a negative dimension (part of
// checkModelNodes, for the top-level graph).
Status checkDeclaredDims(const onnx::GraphProto& graph, const std::string& source);

// After loading: what no runtime can run, InvalidInput naming the tensor or node. A tensor of more
// than 2^62 bytes (a dimension too large); a Conv or ConvTranspose whose group does not divide its
// input channels or filters, or whose weight does not fit them.
Status checkRunnable(const OnnxGraph& graph);

// The positions of `graph`'s nodes in an order where each node follows those whose outputs it reads,
// directly or from inside its bodies: the given order where it is one already (ONNX requires it;
// shape inference crashes on a node that reads a tensor not yet written), else the first ready node
// by position each time. On a cycle, nullopt, with `on_cycle` (when given) set to the position of a
// node on it.
std::optional<std::vector<int>> topologicalNodeOrder(const onnx::GraphProto& graph, int* on_cycle = nullptr);

// Puts the nodes of `graph` and of every body inside it in topologicalNodeOrder(); false, leaving a
// graph as it was, where there is a cycle.
bool sortNodesTopologically(onnx::GraphProto& graph);

}  // namespace placer
