// Internal to the ONNX loader (onnx_loader.cc, control_flow_bodies.cc): node labels and attributes,
// which nodes produce constants, and the control-flow bodies of If/Loop/Scan. If/Loop/Scan are placed
// as one opaque node that costs what its bodies cost: shape inference writes the types it finds
// inside the bodies of the working copy into their value_info, and each body becomes an OnnxSubgraph
// of its operators, typed from its own scope and the scopes around it.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "onnx_io/const_tensor.h"
#include "onnx_io/onnx_model.h"

namespace placer::loader {

// "node 3 (Conv \"/conv1/Conv\")": how messages name a node.
std::string nodeLabel(const onnx::NodeProto& node, int index);
// The nodes inside a node's graph attributes, recursively.
int countSubgraphNodes(const onnx::NodeProto& node);
// Names a graph reads from its enclosing scopes (not defined in it), recursively.
void outerScopeInputs(const onnx::GraphProto& g, std::set<std::string> defined, std::set<std::string>& used);
// The integer and float attributes the cost formulas read.
void readAttributes(const onnx::NodeProto& proto, OnnxNode& node);
bool hasSubgraphs(const onnx::NodeProto& node);
bool defaultDomain(const onnx::NodeProto& node);
bool keptAtLoad(const std::string& op);

// Whether a node produces a constant (a weight, not an operator to place): Constant, and any other
// deterministic default-domain node without bodies whose inputs are all constant (ConstantOfShape or
// Identity of a constant; a Gather of a position table by a folded Range): a runtime computes it
// once, when it loads the model (ONNX Runtime's constant folding), not per sample. torch exports
// read a parameter that several modules share (equal zero biases, unit norm weights) through one
// Identity node per module: placed as operators, such sources would multiply the ideals of the
// graph (2^k for k of them). Stage sub-models copy such a node with the constants it reads.
template <typename IsConstant>
bool producesConstant(const onnx::NodeProto& node, IsConstant&& is_constant) {
  if (!defaultDomain(node) || hasSubgraphs(node) || keptAtLoad(node.op_type())) return false;
  if (node.op_type() == "Constant") return true;
  bool any = false;
  for (const auto& name : node.input()) {
    if (name.empty()) continue;
    if (!is_constant(name)) return false;
    any = true;
  }
  return any;
}

// What is known of the names visible in one graph scope; lookups fall back to the enclosing scopes.
struct Scope {
  const Scope* parent = nullptr;
  std::map<std::string, onnx::TypeProto> types;
  std::map<std::string, ConstTensor> ints;  // small constant tensors (Loop trip counts)
  std::set<std::string> weights;          // initializers and outputs of constant producers

  const onnx::TypeProto* type(const std::string& name) const {
    for (const Scope* s = this; s != nullptr; s = s->parent) {
      if (auto it = s->types.find(name); it != s->types.end()) return &it->second;
    }
    return nullptr;
  }
  const ConstTensor* value(const std::string& name) const {
    for (const Scope* s = this; s != nullptr; s = s->parent) {
      if (auto it = s->ints.find(name); it != s->ints.end()) return &it->second;
    }
    return nullptr;
  }
  bool isWeight(const std::string& name) const {
    for (const Scope* s = this; s != nullptr; s = s->parent) {
      if (s->weights.count(name)) return true;
    }
    return false;
  }
};

// Shared while the bodies of one top-level node are built.
struct BodyContext {
  std::int64_t opset = 1;
  std::vector<std::string>& warnings;
  double weight_bytes = 0;  // initializers and constants defined in the bodies
  int unknown_shapes = 0;   // tensors defined in the bodies that have no static size
};

// Builds the bodies of a control-flow node into node.subgraphs, with node.body_runs.
void buildBodies(const onnx::NodeProto& proto, const std::string& label, const Scope& scope, BodyContext& ctx,
                 OnnxNode& node);

}  // namespace placer::loader
