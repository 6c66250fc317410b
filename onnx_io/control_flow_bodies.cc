// Node labels and attributes, constant producers, and the bodies of If/Loop/Scan, for the ONNX
// loader (onnx_io/loader_parts.h).
#include <algorithm>
#include <limits>

#include "core/onnx_domain.h"
#include "onnx_io/constant_folding.h"
#include "onnx_io/loader_parts.h"
#include "onnx_io/working_copy.h"

namespace placer::loader {

namespace {

// Exporters write "loop until the condition says stop" as a trip count of INT64_MAX (or INT32_MAX);
// such a count says nothing about how often the body runs.
constexpr std::int64_t kNoTripLimit = std::numeric_limits<std::int32_t>::max();

// A Loop's trip count M when it is a constant that limits the loop, else nullopt.
std::optional<std::int64_t> constantTripCount(const ConstTensor* m) {
  if (m == nullptr || m->floating() || m->ints.size() != 1 || m->ints[0] < 0 || m->ints[0] >= kNoTripLimit) {
    return std::nullopt;
  }
  return m->ints[0];
}

}  // namespace

std::string nodeLabel(const onnx::NodeProto& node, int index) {
  std::string label = "node " + std::to_string(index) + " (" + node.op_type();
  if (!node.name().empty()) label += " \"" + node.name() + "\"";
  return label + ")";
}

int countSubgraphNodes(const onnx::NodeProto& node) {
  int count = 0;
  for (const auto& attr : node.attribute()) {
    auto count_graph = [&](const onnx::GraphProto& g) {
      for (const auto& inner : g.node())
        count += 1 + countSubgraphNodes(inner);
    };
    if (attr.has_g()) count_graph(attr.g());
    for (const auto& g : attr.graphs())
      count_graph(g);
  }
  return count;
}

// Names a subgraph reads from the enclosing scopes (used, not defined inside). Whatever the subgraph
// defines counts, in any node order (ONNX requires topological order; the loader does not).
void outerScopeInputs(const onnx::GraphProto& g, std::set<std::string> defined, std::set<std::string>& used) {
  for (const auto& i : g.input())
    defined.insert(i.name());
  for (const auto& i : g.initializer())
    defined.insert(i.name());
  for (const auto& node : g.node())
    defined.insert(node.output().begin(), node.output().end());
  for (const auto& node : g.node()) {
    for (const auto& name : node.input()) {
      if (!name.empty() && !defined.count(name)) used.insert(name);
    }
    for (const auto& attr : node.attribute()) {
      if (attr.has_g()) outerScopeInputs(attr.g(), defined, used);
      for (const auto& sub : attr.graphs())
        outerScopeInputs(sub, defined, used);
    }
  }
}

void readAttributes(const onnx::NodeProto& proto, OnnxNode& node) {
  for (const auto& attr : proto.attribute()) {
    switch (attr.type()) {
      case onnx::AttributeProto::INT:
        node.int_attributes[attr.name()] = {attr.i()};
        break;
      case onnx::AttributeProto::INTS:
        node.int_attributes[attr.name()] = std::vector<std::int64_t>(attr.ints().begin(), attr.ints().end());
        break;
      case onnx::AttributeProto::FLOAT:
        node.float_attributes[attr.name()] = attr.f();
        break;
      case onnx::AttributeProto::STRING:
        node.string_attributes[attr.name()] = attr.s();
        break;
      default:
        break;
    }
  }
}

bool hasSubgraphs(const onnx::NodeProto& node) {
  return std::any_of(node.attribute().begin(), node.attribute().end(),
                     [](const onnx::AttributeProto& a) { return a.has_g() || a.graphs_size() > 0; });
}

bool defaultDomain(const onnx::NodeProto& node) {
  return isDefaultDomain(node.domain());
}

// Operators a runtime does not compute once at load time: those whose output is not a function of
// their inputs alone, and the quantizing ones, which ONNX Runtime keeps (a DequantizeLinear of an
// int8 weight is part of the quantized operator it feeds, and the weight stays int8 in memory).
bool keptAtLoad(const std::string& op) {
  return op == "RandomNormal" || op == "RandomNormalLike" || op == "RandomUniform" || op == "RandomUniformLike" ||
         op == "Multinomial" || op == "Bernoulli" || op == "Dropout" || op == "DequantizeLinear" ||
         op == "QuantizeLinear" || op == "DynamicQuantizeLinear";
}


namespace {

// How many times a Loop's or Scan's body runs per execution, or nullopt with the reason in `why`.
std::optional<std::int64_t> bodyRuns(const onnx::NodeProto& node, const Scope& scope, std::int64_t opset,
                                     std::string& why) {
  if (!defaultDomain(node)) return std::nullopt;
  if (node.op_type() == "Loop") {
    const ConstTensor* m =
        node.input_size() > 0 && !node.input(0).empty() ? scope.value(node.input(0)) : nullptr;
    if (auto trips = constantTripCount(m)) return trips;
    if (m == nullptr || m->floating() || m->ints.size() != 1) {
      why = "its trip count M is not a constant";
    } else {
      why = "its trip count M = " + std::to_string(m->ints[0]) + " sets no limit";
    }
    return std::nullopt;
  }
  if (node.op_type() == "Scan") {
    const std::int64_t scan_inputs = attributeInt(node, "num_scan_inputs", 0);
    if (scan_inputs <= 0 || scan_inputs > node.input_size()) {
      why = "its num_scan_inputs is missing or invalid";
      return std::nullopt;
    }
    const std::string& first = node.input(node.input_size() - static_cast<int>(scan_inputs));
    const onnx::TypeProto* type = scope.type(first);
    const std::optional<Shape> shape = type != nullptr ? shapeOf(*type) : std::nullopt;
    if (shape && opset >= 9) {
      const auto axes = attributeInts(node, "scan_input_axes");
      std::int64_t axis = axes && !axes->empty() ? axes->front() : 0;
      const auto rank = static_cast<std::int64_t>(shape->size());
      if (axis < 0) axis += rank;
      if (axis >= 0 && axis < rank) return (*shape)[axis];
    } else if (shape && shape->size() >= 2) {
      return (*shape)[0] * (*shape)[1];  // Scan-8 runs the body per batch entry (axis 0) and step (axis 1)
    }
    why = "the length of its scan input '" + first + "' is unknown";
    return std::nullopt;
  }
  return std::nullopt;
}


double typeBytes(const onnx::TypeProto* type) {
  if (type == nullptr || !type->has_tensor_type()) return 0;
  TensorInfo t;
  t.element_type = type->tensor_type().elem_type();
  t.shape = shapeOf(*type);
  return t.bytes().value_or(0);
}

OnnxSubgraph buildSubgraph(const std::string& attribute, const onnx::GraphProto& g, const std::string& label,
                           const Scope& outer, BodyContext& ctx) {
  Scope scope;
  scope.parent = &outer;
  collectShapes(g, scope.types);
  for (const auto& init : g.initializer()) {
    scope.weights.insert(init.name());
    if (auto v = readConstant(init, kMaxReadWeightElements)) scope.ints[init.name()] = *v;
    ctx.weight_bytes += typeBytes(scope.type(init.name()));
  }
  OnnxSubgraph sub;
  sub.attribute = attribute;
  std::map<std::string, int> index;
  std::set<std::string> defined, read;  // names this body defines (non-weights) and reads
  for (const auto& input : g.input())
    defined.insert(input.name());
  auto tensor = [&](const std::string& name) {
    auto [it, inserted] = index.try_emplace(name, static_cast<int>(sub.tensors.size()));
    if (inserted) {
      TensorInfo t;
      t.name = name;
      if (const onnx::TypeProto* type = scope.type(name); type != nullptr && type->has_tensor_type()) {
        t.element_type = type->tensor_type().elem_type();
        t.shape = shapeOf(*type);
      }
      t.is_weight = scope.isWeight(name);
      sub.tensors.push_back(std::move(t));
    }
    return it->second;
  };
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& proto = g.node(i);
    if (producesConstant(proto, [&](const std::string& name) { return scope.isWeight(name); })) {
      for (const auto& name : proto.output()) {
        scope.weights.insert(name);
        // An Identity's output is its input's bytes, counted already.
        if (proto.op_type() != "Identity") ctx.weight_bytes += typeBytes(scope.type(name));
      }
      if (proto.op_type() == "Constant" && proto.output_size() == 1) {
        if (auto v = evaluateNode(proto, {}, {}, kMaxReadWeightElements)) scope.ints[proto.output(0)] = v->front();
      }
      continue;
    }
    OnnxNode node;
    node.onnx_index = i;
    node.op_type = proto.op_type();
    node.domain = proto.domain();
    node.name = proto.name();
    if (node.name.empty()) {
      node.name = proto.op_type() + "_" + std::to_string(i);
      node.generated_name = true;
    }
    readAttributes(proto, node);
    for (const auto& name : proto.input()) {
      node.inputs.push_back(name.empty() ? -1 : tensor(name));
      if (!name.empty()) read.insert(name);
    }
    for (const auto& name : proto.output()) {
      node.outputs.push_back(name.empty() ? -1 : tensor(name));
      if (!name.empty()) defined.insert(name);
    }
    if (hasSubgraphs(proto)) {
      node.subgraph_nodes = countSubgraphNodes(proto);
      buildBodies(proto, label + ", " + attribute + " " + nodeLabel(proto, i), scope, ctx, node);
    }
    sub.nodes.push_back(std::move(node));
  }
  for (const auto& output : g.output())
    read.insert(output.name());
  for (const std::string& name : defined) {
    if (!read.count(name) || scope.isWeight(name)) continue;
    const onnx::TypeProto* type = scope.type(name);
    TensorInfo t;
    if (type != nullptr && type->has_tensor_type()) {
      t.element_type = type->tensor_type().elem_type();
      t.shape = shapeOf(*type);
    }
    if (!t.bytes()) ++ctx.unknown_shapes;
  }
  return sub;
}

}  // namespace

void buildBodies(const onnx::NodeProto& proto, const std::string& label, const Scope& scope, BodyContext& ctx,
                 OnnxNode& node) {
  for (const auto& attr : proto.attribute()) {
    if (attr.has_g()) node.subgraphs.push_back(buildSubgraph(attr.name(), attr.g(), label, scope, ctx));
    for (const auto& g : attr.graphs())
      node.subgraphs.push_back(buildSubgraph(attr.name(), g, label, scope, ctx));
  }
  std::string why;
  node.body_runs = bodyRuns(proto, scope, ctx.opset, why);
  if (!why.empty()) ctx.warnings.push_back(label + ": " + why + "; its body counts once");
}

}  // namespace placer::loader
