#include "onnx_io/model_checks.h"

#include <onnx/defs/schema.h>

#include <map>
#include <set>
#include <string_view>

namespace placer {

namespace {

std::string label(const onnx::NodeProto& node, int index) {
  std::string text = "node " + std::to_string(index) + " (" + node.op_type();
  if (!node.name().empty()) text += " \"" + node.name() + "\"";
  return text + ")";
}

// Operators whose shape inference divides by strides and indexes by kernel sizes.
bool convOrPool(const std::string& op) {
  static const std::set<std::string> kinds{"Conv",        "ConvTranspose", "ConvInteger",
                                           "QLinearConv", "MaxPool",       "AveragePool",
                                           "LpPool",      "MaxUnpool",     "DeformConv"};
  return kinds.count(op) > 0;
}

Status checkAttributes(const onnx::NodeProto& node, const std::string& where) {
  const bool conv = convOrPool(node.op_type());
  for (const auto& a : node.attribute()) {
    const std::string& name = a.name();
    const bool positive_list = conv && (name == "strides" || name == "dilations" || name == "kernel_shape");
    const bool non_negative_list = conv && (name == "pads" || name == "output_padding");
    if (positive_list || non_negative_list) {
      for (int i = 0; i < a.ints_size(); ++i) {
        const auto v = a.ints(i);
        if (positive_list ? v <= 0 : v < 0) {
          return invalidInput(where + ": attribute " + name + " has " + std::to_string(v) + " at position " +
                              std::to_string(i) + "; it must be " +
                              (positive_list ? "positive" : "0 or more"));
        }
      }
    }
    const bool positive_int =
        (conv && name == "group") ||
        ((node.op_type() == "DepthToSpace" || node.op_type() == "SpaceToDepth") && name == "blocksize");
    if (positive_int && a.type() == onnx::AttributeProto::INT && a.i() <= 0) {
      return invalidInput(where + ": attribute " + name + " is " + std::to_string(a.i()) +
                          "; it must be positive");
    }
  }
  return Status::ok();
}

Status checkGraph(const onnx::GraphProto& graph, const std::map<std::string, int>& opsets,
                  const std::string& source, const std::string& scope) {
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    const std::string where = source + ": " + scope + label(node, i);
    const std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
    if (domain.empty()) {
      auto opset = opsets.find("");
      const int version = opset != opsets.end() ? opset->second : 1;
      if (const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(node.op_type(), version, "")) {
        try {
          schema->Verify(node);
        } catch (const std::exception& e) {
          return invalidInput(where + ": " + e.what());
        }
      }
    }
    if (Status s = checkAttributes(node, where); !s) return s;
    for (const auto& a : node.attribute()) {
      if (a.has_g()) {
        if (Status s = checkGraph(a.g(), opsets, source, scope + label(node, i) + ", " + a.name() + ", "); !s)
          return s;
      }
      for (const auto& g : a.graphs()) {
        if (Status s = checkGraph(g, opsets, source, scope + label(node, i) + ", " + a.name() + ", "); !s)
          return s;
      }
    }
  }
  return Status::ok();
}

}  // namespace

Status checkModelNodes(const onnx::ModelProto& model, const std::string& source) {
  std::map<std::string, int> opsets;
  for (const auto& opset : model.opset_import())
    opsets[opset.domain() == "ai.onnx" ? "" : opset.domain()] = static_cast<int>(opset.version());
  if (Status s = checkGraph(model.graph(), opsets, source, ""); !s) return s;
  // Every graph output is computed: by a node, or it is an initializer or a graph input passed on.
  std::set<std::string> available;
  for (const auto& input : model.graph().input())
    available.insert(input.name());
  for (const auto& init : model.graph().initializer())
    available.insert(init.name());
  for (const auto& node : model.graph().node()) {
    for (const auto& out : node.output())
      available.insert(out);
  }
  for (int i = 0; i < model.graph().output_size(); ++i) {
    const std::string& name = model.graph().output(i).name();
    if (!available.count(name)) {
      return invalidInput(source + ": graph output " + std::to_string(i) + " '" + name +
                          "' is computed by no node and is no initializer or graph input");
    }
  }
  return Status::ok();
}

}  // namespace placer
