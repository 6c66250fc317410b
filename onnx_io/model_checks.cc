#include "onnx_io/model_checks.h"

#include <cstdio>

#include <onnx/defs/schema.h>

#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "onnx_io/op_inference.h"

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

// Names the bodies of `node` read from outside them, added to `reads`. A body sees every name it
// defines, in any order, and those of bodies inside it see those too.
void bodyReads(const onnx::NodeProto& node, const std::set<std::string>& defined_around,
               std::set<std::string>& reads) {
  for (const auto& a : node.attribute()) {
    std::vector<const onnx::GraphProto*> bodies;
    if (a.has_g()) bodies.push_back(&a.g());
    for (const auto& g : a.graphs())
      bodies.push_back(&g);
    for (const onnx::GraphProto* body : bodies) {
      std::set<std::string> defined = defined_around;
      for (const auto& input : body->input())
        defined.insert(input.name());
      for (const auto& init : body->initializer())
        defined.insert(init.name());
      for (const auto& inner : body->node())
        defined.insert(inner.output().begin(), inner.output().end());
      for (const auto& inner : body->node()) {
        for (const std::string& name : inner.input()) {
          if (!name.empty() && !defined.count(name)) reads.insert(name);
        }
        bodyReads(inner, defined, reads);
      }
    }
  }
}

// `outer` holds the names the enclosing graphs define, which a body may read.
Status checkGraph(const onnx::GraphProto& graph, const std::map<std::string, int>& opsets,
                  const std::string& source, const std::string& scope, const std::set<std::string>& outer) {
  // Shape inference dereferences the type of every input a node reads, so a name nothing defines
  // crashes it (a typo in a tensor name is enough): checked first, in any node order.
  std::set<std::string> visible = outer;
  for (const auto& input : graph.input())
    visible.insert(input.name());
  for (const auto& init : graph.initializer())
    visible.insert(init.name());
  for (const auto& node : graph.node())
    visible.insert(node.output().begin(), node.output().end());
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    const std::string where = source + ": " + scope + label(node, i);
    for (const std::string& name : node.input()) {
      if (!name.empty() && !visible.count(name))
        return invalidInput(where + " reads tensor '" + name +
                            "', which no node, initializer or graph input produces");
    }
    const std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
    if (domain.empty()) {
      auto opset = opsets.find("");
      const int version = opset != opsets.end() ? opset->second : 1;
      // A form newer than libonnx knows is checked by the loader's own rules (op_inference.h), not
      // against the older form's schema.
      const onnx::OpSchema* schema =
          ownsInference(node, version) ? nullptr : onnx::OpSchemaRegistry::Schema(node.op_type(), version, "");
      if (schema != nullptr) {
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
        if (Status s =
                checkGraph(a.g(), opsets, source, scope + label(node, i) + ", " + a.name() + ", ", visible);
            !s)
          return s;
      }
      for (const auto& g : a.graphs()) {
        if (Status s =
                checkGraph(g, opsets, source, scope + label(node, i) + ", " + a.name() + ", ", visible);
            !s)
          return s;
      }
    }
  }
  int on_cycle = 0;
  if (!topologicalNodeOrder(graph, &on_cycle)) {
    return invalidInput(source + ": " + scope + "the graph has a cycle through " +
                        label(graph.node(on_cycle), on_cycle));
  }
  return Status::ok();
}

}  // namespace

std::optional<std::vector<int>> topologicalNodeOrder(const onnx::GraphProto& graph, int* on_cycle) {
  const int n = graph.node_size();
  std::map<std::string, int> producer;
  for (int i = 0; i < n; ++i) {
    for (const std::string& name : graph.node(i).output()) {
      if (!name.empty()) producer.emplace(name, i);
    }
  }
  std::vector<std::vector<int>> readers(n), sources(n);
  std::vector<int> waiting(n, 0);
  for (int i = 0; i < n; ++i) {
    const onnx::NodeProto& node = graph.node(i);
    std::set<std::string> reads(node.input().begin(), node.input().end());
    bodyReads(node, {}, reads);
    std::set<int> from;
    for (const std::string& name : reads) {
      if (auto it = producer.find(name); it != producer.end()) from.insert(it->second);
    }
    for (int p : from) {
      readers[p].push_back(i);
      sources[i].push_back(p);
    }
    waiting[i] = static_cast<int>(from.size());
  }
  std::set<int> ready;
  for (int i = 0; i < n; ++i) {
    if (waiting[i] == 0) ready.insert(i);
  }
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    const int v = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(v);
    for (int w : readers[v]) {
      if (--waiting[w] == 0) ready.insert(w);
    }
  }
  if (static_cast<int>(order.size()) == n) return order;
  if (on_cycle != nullptr) {
    // Every node left waits for another one left; walking back through those comes round to a node
    // already met, which is on a cycle.
    int v = 0;
    while (waiting[v] == 0)
      ++v;
    std::vector<bool> met(n, false);
    while (!met[v]) {
      met[v] = true;
      for (int p : sources[v]) {
        if (waiting[p] > 0) {
          v = p;
          break;
        }
      }
    }
    *on_cycle = v;
  }
  return std::nullopt;
}

bool sortNodesTopologically(onnx::GraphProto& graph) {
  bool sorted = true;
  for (auto& node : *graph.mutable_node()) {
    for (auto& a : *node.mutable_attribute()) {
      if (a.has_g()) sorted = sortNodesTopologically(*a.mutable_g()) && sorted;
      for (auto& g : *a.mutable_graphs())
        sorted = sortNodesTopologically(g) && sorted;
    }
  }
  const auto order = topologicalNodeOrder(graph);
  if (!order) return false;
  bool moved = false;
  for (int i = 0; i < static_cast<int>(order->size()); ++i)
    moved = moved || (*order)[i] != i;
  if (!moved) return sorted;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (int i : *order)
    *nodes.Add() = graph.node(i);
  graph.mutable_node()->Swap(&nodes);
  return sorted;
}

Status checkModelNodes(const onnx::ModelProto& model, const std::string& source) {
  std::map<std::string, int> opsets;
  for (const auto& opset : model.opset_import())
    opsets[opset.domain() == "ai.onnx" ? "" : opset.domain()] = static_cast<int>(opset.version());
  if (Status s = checkGraph(model.graph(), opsets, source, "", {}); !s) return s;
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
  return checkDeclaredDims(model.graph(), source);
}

Status checkDeclaredDims(const onnx::GraphProto& graph, const std::string& source) {
  // No tensor has a negative dimension: ONNX Runtime refuses such a model, and shape arithmetic
  // would turn it into nonsense sizes.
  for (const auto& init : graph.initializer()) {
    for (int d = 0; d < init.dims_size(); ++d) {
      if (init.dims(d) < 0) {
        return invalidInput(source + ": initializer '" + init.name() + "' has dimension " + std::to_string(d) +
                            " of " + std::to_string(init.dims(d)) + "; a dimension cannot be negative");
      }
    }
  }
  for (const auto& [list, what] : {std::pair{&graph.input(), "graph input"}, std::pair{&graph.output(), "graph output"},
                                   std::pair{&graph.value_info(), "value_info entry"}}) {
    for (const auto& info : *list) {
      if (!info.type().has_tensor_type()) continue;
      const auto& dims = info.type().tensor_type().shape().dim();
      for (int d = 0; d < dims.size(); ++d) {
        if (dims[d].has_dim_value() && dims[d].dim_value() < 0) {
          return invalidInput(source + ": " + what + " '" + info.name() + "' declares dimension " + std::to_string(d) +
                              " as " + std::to_string(dims[d].dim_value()) + "; a dimension cannot be negative");
        }
      }
    }
  }
  return Status::ok();
}

Status checkRunnable(const OnnxGraph& graph) {
  // 2^62 bytes: more than any machine addresses.
  constexpr double kLargestTensor = 4.611686018427388e18;
  auto shapeText = [](const Shape& shape) {
    std::string out;
    for (std::int64_t d : shape) out += (out.empty() ? "" : ", ") + std::to_string(d);
    return "[" + out + "]";
  };
  for (const TensorInfo& t : graph.tensors) {
    const auto bytes = t.bytes();
    if (bytes && *bytes > kLargestTensor) {
      char size[32];
      std::snprintf(size, sizeof size, "%.3g", *bytes);
      return invalidInput(graph.path + ": tensor '" + t.name + "' " + shapeText(*t.shape) + " would hold " + size +
                          " bytes, more than any runtime can allocate (a dimension too large?)");
    }
  }
  // A grouped convolution splits its input channels into `group` equal parts, each with its share of
  // the filters: a group that does not divide them has no meaning (ONNX Runtime refuses to run it).
  for (const OnnxNode& node : graph.nodes) {
    const bool conv = node.op_type == "Conv", transposed = node.op_type == "ConvTranspose";
    if ((!conv && !transposed) || !node.domain.empty() || node.inputs.size() < 2 || node.inputs[0] < 0 ||
        node.inputs[1] < 0)
      continue;
    auto group_attr = node.int_attributes.find("group");
    const std::int64_t group = group_attr == node.int_attributes.end() || group_attr->second.empty() ? 1 : group_attr->second[0];
    const auto& x = graph.tensors[node.inputs[0]].shape;
    const auto& w = graph.tensors[node.inputs[1]].shape;
    if (!x || !w || x->size() < 2 || w->size() < 2 || group < 1) continue;
    const std::int64_t channels = (*x)[1];
    const std::int64_t per_group = conv ? (*w)[1] : (*w)[0] / group;
    const std::int64_t filters = conv ? (*w)[0] : (*w)[1] * group;
    std::string problem;
    if (channels % group != 0) {
      problem = "its group " + std::to_string(group) + " does not divide its " + std::to_string(channels) + " input channels";
    } else if (per_group * group != channels || (transposed && (*w)[0] != channels)) {
      problem = "its weight " + shapeText(*w) + " does not fit " + std::to_string(channels) + " input channels in " +
                std::to_string(group) + " group(s)";
    } else if (filters % group != 0) {
      problem = "its group " + std::to_string(group) + " does not divide its " + std::to_string(filters) + " filters";
    }
    if (!problem.empty()) {
      return invalidInput(graph.path + ": node '" + node.name + "' (" + node.op_type + "): " + problem);
    }
  }
  return Status::ok();
}

}  // namespace placer
