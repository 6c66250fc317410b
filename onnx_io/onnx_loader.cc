// ONNX model loading: parse, validate, infer shapes, find weights, fold weight producers into their
// readers, and build the tensor table (onnx_model.h).
//
// Dynamic input dimensions are fixed before shape inference (--dim NAME=VALUE, else
// LoadOptions::default_dim, with a warning), and inference runs with data propagation so shape
// arithmetic (Shape -> Gather -> Concat -> Reshape) resolves to static shapes where ONNX can do it.
// External-data initializers are never read: their sizes come from their dims. Control-flow bodies are
// read from the inferred copy (ONNX writes their value_info there) into OnnxNode::subgraphs, with the
// Loop trip count or Scan length when it is known (control_flow_bodies.cc). Shapes come from a working
// copy with constant computations folded and newer or contrib operators inferred by our own rules
// (working_copy.h); nodes folding evaluated become constants, their values kept for the stages.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <set>

#include "core/onnx_domain.h"
#include "onnx_io/constant_folding.h"
#include "onnx_io/decoder.h"
#include "onnx_io/loader_parts.h"
#include "onnx_io/model_checks.h"
#include "onnx_io/model_proto.h"
#include "onnx_io/onnx_model.h"
#include "onnx_io/op_inference.h"
#include "onnx_io/working_copy.h"

namespace placer {

using namespace loader;  // onnx_io/loader_parts.h

double elementBytes(int element_type) {
  switch (element_type) {
    case onnx::TensorProto::FLOAT:
      return 4;
    case onnx::TensorProto::UINT8:
      return 1;
    case onnx::TensorProto::INT8:
      return 1;
    case onnx::TensorProto::UINT16:
      return 2;
    case onnx::TensorProto::INT16:
      return 2;
    case onnx::TensorProto::INT32:
      return 4;
    case onnx::TensorProto::INT64:
      return 8;
    case onnx::TensorProto::BOOL:
      return 1;
    case onnx::TensorProto::FLOAT16:
      return 2;
    case onnx::TensorProto::DOUBLE:
      return 8;
    case onnx::TensorProto::UINT32:
      return 4;
    case onnx::TensorProto::UINT64:
      return 8;
    case onnx::TensorProto::COMPLEX64:
      return 8;
    case onnx::TensorProto::COMPLEX128:
      return 16;
    case onnx::TensorProto::BFLOAT16:
      return 2;
    // Types of ONNX 1.14 and later (IR 9, 10), which libonnx 1.12 does not name: the 8-bit floats
    // FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ (17-20), and UINT4, INT4 (21, 22),
    // two to a byte.
    case 17: case 18: case 19: case 20:
      return 1;
    case 21: case 22:
      return 0.5;
    default:
      return 0;
  }
}

std::optional<double> TensorInfo::bytes() const {
  const double size = elementBytes(element_type);
  if (!shape || size == 0) return std::nullopt;
  double elements = 1;
  for (std::int64_t d : *shape)
    elements *= static_cast<double>(d);
  return elements * size;
}

double OnnxGraph::weightBytes(int node) const {
  double total = 0;
  std::set<int> seen;
  for (int t : nodes[node].inputs) {
    if (t >= 0 && tensors[t].is_weight && seen.insert(t).second) total += tensors[t].bytes().value_or(0);
  }
  return total + nodes[node].subgraph_weight_bytes;
}

namespace {

// Fixes symbolic and unknown dimensions of the graph inputs so inference can give static shapes. A
// value given for a name no input has is an error listing the names there are.
Status fixInputDims(onnx::ModelProto& model, const LoadOptions& options, const std::string& source,
                    OnnxGraph& out) {
  std::vector<std::string>& warnings = out.warnings;
  std::set<std::string> params;
  std::set<std::string> initializers;
  for (const auto& init : model.graph().initializer())
    initializers.insert(init.name());
  std::map<std::string, std::int64_t> defaulted;
  for (auto& input : *model.mutable_graph()->mutable_input()) {
    if (initializers.count(input.name()) || !input.type().has_tensor_type()) continue;
    auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (auto& dim : *shape->mutable_dim()) {
      if (dim.has_dim_value()) continue;
      const std::string param = dim.has_dim_param() ? dim.dim_param() : "";
      if (!param.empty()) params.insert(param);
      auto it = options.dims.find(param);
      const std::int64_t value = it != options.dims.end() ? it->second : options.default_dim;
      if (it == options.dims.end())
        defaulted[param.empty() ? "(unnamed in " + input.name() + ")" : param] = value;
      if (param.empty()) {
        out.unnamed_dim = value;
      } else {
        out.input_dims[param] = value;
      }
      dim.set_dim_value(value);
    }
  }
  for (const auto& [name, value] : options.dims) {
    if (params.count(name)) continue;
    std::string known;
    for (const std::string& p : params)
      known += (known.empty() ? "" : ", ") + p;
    return invalidInput(source + ": no input has a symbolic dimension named '" + name + "' (" +
                        (known.empty() ? "the model has none" : "the model's are: " + known) + ")");
  }
  for (const auto& [param, value] : defaulted) {
    warnings.push_back("dynamic dimension " + param + " set to " + std::to_string(value) +
                       " (use --dim NAME=VALUE to choose)");
  }
  return Status::ok();
}

// An element type's ONNX name ("FLOAT", "INT64"), or "element type N" for one libonnx does not name.
std::string elementTypeName(int element_type) {
  const std::string name = onnx::TensorProto::DataType_IsValid(element_type)
                               ? onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(element_type))
                               : "";
  return name.empty() ? "element type " + std::to_string(element_type) : name;
}

// The phase's values of a decoder's dimensions, added to options.dims; the phase goes into `out`.
Status decoderDims(const onnx::GraphProto& graph, LoadOptions& options, OnnxGraph& out) {
  if (options.dims_complete) return Status::ok();
  const KvCacheLayout layout = findKvCache(graph);
  if (layout.empty()) {
    if (!options.phase) return Status::ok();
    return invalidInput(out.path + ": --phase " + toString(*options.phase) +
                        " needs a decoder with a KV cache (inputs past_key_values.<layer>.key/value and outputs "
                        "present.<layer>.key/value); the model has none");
  }
  const DecoderPhase phase = options.phase.value_or(DecoderPhase::Prompt);
  if (!options.phase) {
    out.warnings.push_back("a decoder with a KV cache: placed for its prompt (--phase prompt; --phase token "
                           "for the generation of one token after a past of --dim " +
                           (layout.past.empty() ? std::string("past") : layout.past) + "=N)");
  }
  out.phase = toString(phase);
  return applyDecoderPhase(layout, phase, options.default_dim, out.path, options.dims);
}

// The KV cache's past/present pairs as tensor indices.
void findKvPairs(const onnx::GraphProto& graph, OnnxGraph& out) {
  for (const auto& pair : findKvCache(graph).pairs) {
    auto past = out.tensor_index.find(pair.past), present = out.tensor_index.find(pair.present);
    if (past != out.tensor_index.end() && present != out.tensor_index.end())
      out.kv_cache.emplace_back(past->second, present->second);
  }
}

// The tensor named `name` in the table, added when it is new.
TensorInfo& tensorNamed(OnnxGraph& out, const std::string& name) {
  auto [it, inserted] = out.tensor_index.try_emplace(name, static_cast<int>(out.tensors.size()));
  if (inserted) {
    TensorInfo t;
    t.name = name;
    out.tensors.push_back(std::move(t));
  }
  return out.tensors[it->second];
}

bool isWeightTensor(const OnnxGraph& out, const std::string& name) {
  auto it = out.tensor_index.find(name);
  return it != out.tensor_index.end() && out.tensors[it->second].is_weight;
}

// The graph outputs were inferred afresh (working_copy.h): a declared element type the tensor does
// not have is an error; a declaration is taken where inference found nothing.
Status checkDeclaredOutputs(const onnx::GraphProto& graph, const std::string& path,
                            std::map<std::string, onnx::TypeProto>& types) {
  for (const auto& output : graph.output()) {
    const int declared = output.type().has_tensor_type() ? output.type().tensor_type().elem_type() : 0;
    if (declared == 0) continue;
    auto inferred = types.find(output.name());
    const int actual = inferred != types.end() && inferred->second.has_tensor_type()
                           ? inferred->second.tensor_type().elem_type()
                           : 0;
    if (actual != 0 && actual != declared) {
      return invalidInput(path + ": graph output '" + output.name() + "' is declared as " +
                          elementTypeName(declared) + ", but the tensor is " + elementTypeName(actual));
    }
    if (inferred == types.end() || !shapeOf(inferred->second)) types[output.name()] = output.type();
  }
  return Status::ok();
}

// The tensor table's graph inputs and initializers, and the inferred types of every tensor but the
// initializers (which keep their own).
void addGraphTensors(const onnx::GraphProto& graph, const std::map<std::string, onnx::TypeProto>& types,
                     OnnxGraph& out) {
  for (const auto& init : graph.initializer()) {
    TensorInfo& t = tensorNamed(out, init.name());
    t.is_weight = true;
    t.element_type = init.data_type();
    t.shape = Shape(init.dims().begin(), init.dims().end());
    t.external_data = init.data_location() == onnx::TensorProto::EXTERNAL;
  }
  for (const auto& input : graph.input()) {
    if (!isWeightTensor(out, input.name())) tensorNamed(out, input.name()).is_graph_input = true;
  }
  for (const auto& [name, type] : types) {
    if (isWeightTensor(out, name)) continue;
    TensorInfo& t = tensorNamed(out, name);
    if (type.has_tensor_type()) t.element_type = type.tensor_type().elem_type();
    if (auto shape = shapeOf(type)) t.shape = shape;
  }
}

// Which node of the graph writes each tensor, and which nodes produce constants (weights).
struct Producers {
  std::map<std::string, int> of;  // tensor name -> node index in the graph
  std::vector<bool> constant;     // per node of the graph
};

// The node writing each tensor: a tensor written twice, or a graph input written, is an error.
Status findProducers(const onnx::GraphProto& graph, const OnnxGraph& out, Producers& producers) {
  producers.constant.assign(graph.node_size(), false);
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& node = graph.node(i);
    for (const auto& name : node.output()) {
      if (name.empty()) continue;
      const auto known = out.tensor_index.find(name);
      const bool graph_input = known != out.tensor_index.end() && out.tensors[known->second].is_graph_input;
      if (producers.of.count(name) || graph_input) {
        return invalidInput(out.path + ": " + nodeLabel(node, i) + " writes tensor '" + name +
                            "', which is already defined");
      }
      producers.of[name] = i;
    }
  }
  return Status::ok();
}

// The nodes producing constants: Constant, and ConstantOfShape or Identity of a constant, which stay
// weights in the model's own form; and any other node constant folding evaluated (`inferred`, the
// working copy, has its value as an initializer), replaced by its value.
void markConstants(const onnx::GraphProto& graph, const onnx::GraphProto& inferred, Producers& producers,
                   OnnxGraph& out) {
  const int n_onnx = graph.node_size();
  auto is_constant_tensor = [&](const std::string& name) {
    if (isWeightTensor(out, name)) return true;
    auto p = producers.of.find(name);
    return p != producers.of.end() && producers.constant[p->second];
  };
  // Tensors constant folding computed: the working copy's initializers that the model does not have.
  std::set<std::string> original_initializers;
  for (const auto& init : graph.initializer())
    original_initializers.insert(init.name());
  std::map<std::string, const onnx::TensorProto*> computed;
  for (const auto& init : inferred.initializer()) {
    if (!original_initializers.count(init.name())) computed[init.name()] = &init;
  }
  auto folded_by_value = [&](const onnx::NodeProto& node) {
    bool any = false;
    for (const auto& name : node.output()) {
      if (name.empty() || !computed.count(name)) return false;
      any = true;
    }
    return any;
  };
  for (int i = 0; i < n_onnx; ++i) {
    const auto& node = graph.node(i);
    producers.constant[i] = producesConstant(node, is_constant_tensor);
    // Weights stay in the model's own form (a light model's ConstantOfShape stays one); any other
    // node folding evaluated is replaced by its value.
    const std::string& op = node.op_type();
    const bool weight_form =
        producers.constant[i] && (op == "Constant" || op == "ConstantOfShape" || op == "Identity");
    if (weight_form || !folded_by_value(node)) continue;
    producers.constant[i] = true;
    out.folded_nodes.push_back(FoldedNode{i, node.op_type(), node.name()});
    for (const auto& name : node.output())
      out.folded_values[name] = computed.at(name)->SerializeAsString();
  }
}

// The operators to place: every node that does not produce a constant, with its inputs and outputs
// in the tensor table (a tensor nobody produces is an error); unnamed nodes get deterministic names.
Status addOperators(const onnx::GraphProto& graph, const Producers& producers, OnnxGraph& out) {
  const int n_onnx = graph.node_size();
  std::vector<int> node_of(n_onnx, -1);
  std::set<std::string> used_names;
  for (const auto& node : graph.node())
    used_names.insert(node.name());
  for (int i = 0; i < n_onnx; ++i) {
    if (producers.constant[i]) {
      for (const auto& name : graph.node(i).output()) {
        if (!name.empty()) tensorNamed(out, name).is_weight = true;
      }
      continue;
    }
    node_of[i] = static_cast<int>(out.nodes.size());
    out.nodes.push_back(OnnxNode{});
  }
  for (int i = 0; i < n_onnx; ++i) {
    if (node_of[i] < 0) continue;
    const auto& proto = graph.node(i);
    OnnxNode& node = out.nodes[node_of[i]];
    node.onnx_index = i;
    node.op_type = proto.op_type();
    node.domain = proto.domain();
    node.name = proto.name();
    if (node.name.empty()) {
      // Deterministic names for unnamed nodes: op type and position, made unique.
      std::string base = proto.op_type() + "_" + std::to_string(i);
      std::string candidate = base;
      for (int k = 1; used_names.count(candidate); ++k)
        candidate = base + "_" + std::to_string(k);
      used_names.insert(candidate);
      node.name = candidate;
      node.generated_name = true;
    }
    readAttributes(proto, node);
    node.subgraph_nodes = countSubgraphNodes(proto);
    std::vector<std::string> inputs(proto.input().begin(), proto.input().end());
    if (node.subgraph_nodes > 0) {
      std::set<std::string> implicit;
      for (const auto& attr : proto.attribute()) {
        if (attr.has_g()) outerScopeInputs(attr.g(), {}, implicit);
        for (const auto& sub : attr.graphs())
          outerScopeInputs(sub, {}, implicit);
      }
      for (const auto& name : implicit) {
        if (std::find(inputs.begin(), inputs.end(), name) == inputs.end()) inputs.push_back(name);
      }
    }
    std::set<int> folded;
    for (const auto& name : inputs) {
      if (name.empty()) {
        node.inputs.push_back(-1);
        continue;
      }
      const bool known = out.tensor_index.count(name) || producers.of.count(name);
      if (!known) {
        return invalidInput(out.path + ": " + nodeLabel(proto, i) + " reads tensor '" + name +
                            "', which no node, initializer or graph input produces");
      }
      tensorNamed(out, name);
      node.inputs.push_back(out.tensor_index[name]);
      if (auto p = producers.of.find(name); p != producers.of.end() && producers.constant[p->second]) {
        folded.insert(p->second);
      }
    }
    node.folded.assign(folded.begin(), folded.end());
    for (const auto& name : proto.output()) {
      if (name.empty()) {
        node.outputs.push_back(-1);
        continue;
      }
      TensorInfo& t = tensorNamed(out, name);
      t.producer = node_of[i];
      node.outputs.push_back(out.tensor_index[name]);
    }
  }
  for (const auto& output : graph.output())
    tensorNamed(out, output.name()).is_graph_output = true;
  return Status::ok();
}

// The operators' small constant inputs, and the bodies of control-flow nodes, from the inferred copy,
// whose nodes keep their outputs. Returns how many tensors inside the bodies have no static shape.
int readConstantsAndBodies(const onnx::GraphProto& graph, const onnx::GraphProto& inferred,
                           const std::map<std::string, onnx::TypeProto>& types, OnnxGraph& out) {
  Scope top;
  top.types = types;
  for (const auto& init : inferred.initializer()) {
    if (auto v = readConstant(init, kMaxReadWeightElements)) top.ints[init.name()] = *v;
  }
  for (const TensorInfo& t : out.tensors) {
    if (t.is_weight) top.weights.insert(t.name);
  }
  std::map<std::string, std::vector<std::int64_t>> small_constants;  // OnnxNode::constant_inputs
  for (const auto& init : inferred.initializer()) {
    if (auto v = readConstant(init, 16); v && !v->floating()) small_constants[init.name()] = v->ints;
  }
  std::map<std::string, const onnx::NodeProto*> inferred_by_output;
  for (const auto& node : inferred.node()) {
    for (const auto& name : node.output()) {
      if (!name.empty()) inferred_by_output[name] = &node;
    }
  }
  BodyContext bodies{1, out.warnings};
  for (const auto& [domain, version] : out.opsets) {
    if (isDefaultDomain(domain)) bodies.opset = version;
  }
  for (OnnxNode& node : out.nodes) {
    const onnx::NodeProto& proto = graph.node(node.onnx_index);
    for (int i = 0; i < proto.input_size(); ++i) {
      auto it = small_constants.find(proto.input(i));
      if (it != small_constants.end()) node.constant_inputs[i] = it->second;
    }
    // DFT-20 moved `axis` from an attribute (default 1) to input 2 (default -2): an omitted one is
    // given its default here, so the cost formula need not know the opset.
    if (node.op_type == "DFT" && defaultDomain(proto) && bodies.opset >= 20 && !node.constant_inputs.count(2) &&
        (proto.input_size() < 3 || proto.input(2).empty()))
      node.constant_inputs[2] = {-2};
  }
  for (OnnxNode& node : out.nodes) {
    if (node.subgraph_nodes == 0) continue;
    const onnx::NodeProto* proto = &graph.node(node.onnx_index);
    for (const auto& name : proto->output()) {
      if (auto it = inferred_by_output.find(name); it != inferred_by_output.end()) {
        proto = it->second;
        break;
      }
    }
    bodies.weight_bytes = 0;
    buildBodies(*proto, nodeLabel(graph.node(node.onnx_index), node.onnx_index), top, bodies, node);
    node.subgraph_weight_bytes = bodies.weight_bytes;
  }
  return bodies.unknown_shapes;
}

// Each tensor's consuming operators, in order, once each.
void linkConsumers(OnnxGraph& out) {
  for (int n = 0; n < static_cast<int>(out.nodes.size()); ++n) {
    for (int t : out.nodes[n].inputs) {
      if (t < 0) continue;
      auto& consumers = out.tensors[t].consumers;
      if (consumers.empty() || consumers.back() != n) consumers.push_back(n);
    }
  }
  for (auto& t : out.tensors) {
    std::sort(t.consumers.begin(), t.consumers.end());
    t.consumers.erase(std::unique(t.consumers.begin(), t.consumers.end()), t.consumers.end());
  }
}

// The operators must form a DAG (ONNX requires topological order, but the loader does not rely on it).
Status checkAcyclic(const onnx::GraphProto& graph, const OnnxGraph& out) {
  const int n = static_cast<int>(out.nodes.size());
  std::vector<int> indegree(n, 0);
  std::vector<std::vector<int>> succ(n);
  for (const auto& t : out.tensors) {
    if (t.producer < 0) continue;
    for (int c : t.consumers) {
      succ[t.producer].push_back(c);
      ++indegree[c];
    }
  }
  std::vector<int> ready;
  for (int v = 0; v < n; ++v) {
    if (indegree[v] == 0) ready.push_back(v);
  }
  int seen = 0;
  while (!ready.empty()) {
    int v = ready.back();
    ready.pop_back();
    ++seen;
    for (int w : succ[v]) {
      if (--indegree[w] == 0) ready.push_back(w);
    }
  }
  if (seen != n) {
    for (int v = 0; v < n; ++v) {
      if (indegree[v] > 0) {
        return invalidInput(out.path + ": the graph has a cycle through " +
                            nodeLabel(graph.node(out.nodes[v].onnx_index), out.nodes[v].onnx_index));
      }
    }
  }
  return Status::ok();
}

void warnUnknownShapes(OnnxGraph& out, int unknown_body_shapes) {
  int unknown = 0;
  for (const auto& t : out.tensors) {
    if (!t.bytes() && (!t.consumers.empty() || t.is_graph_output)) ++unknown;
  }
  if (unknown > 0) {
    out.warnings.push_back(std::to_string(unknown) + " tensor(s) have no static shape after shape inference");
  }
  if (unknown_body_shapes > 0) {
    out.warnings.push_back(
        std::to_string(unknown_body_shapes) +
        " tensor(s) inside If/Loop/Scan bodies have no static shape after shape inference");
  }
}

}  // namespace

Expected<OnnxGraph> loadOnnx(const ModelSource& source, const LoadOptions& options) {
  auto parsed = readModelProto(source);
  if (!parsed) return parsed.status();
  onnx::ModelProto& model = *parsed;
  OnnxGraph out;
  out.path = source.displayName();
  out.ir_version = model.ir_version();
  for (const auto& opset : model.opset_import())
    out.opsets[opset.domain()] = opset.version();

  if (Status s = checkModelNodes(model, out.path); !s) return s;
  if (const auto opset = out.opsets.find(""); opset != out.opsets.end() && opset->second > libonnxOpsetLimit()) {
    out.warnings.push_back("the model imports opset " + std::to_string(opset->second) +
                           " of the default domain; libonnx knows up to opset " +
                           std::to_string(libonnxOpsetLimit()) +
                           ": operators of newer forms are checked and shape-inferred by onnx-placer's own "
                           "rules, not against ONNX's schemas");
  }
  LoadOptions fixed = options;
  if (Status s = decoderDims(model.graph(), fixed, out); !s) return s;
  if (Status s = fixInputDims(model, fixed, out.path, out); !s) return s;
  std::map<std::string, onnx::TypeProto> types;
  onnx::ModelProto inferred;
  std::string inconsistency;
  if (options.isolate_shape_inference) {
    if (Status s = inferTypesIsolated(model, out.path, types, inferred, out.warnings, inconsistency); !s)
      return s;
  } else {
    inferTypes(model, types, inferred, out.warnings, inconsistency);
  }
  if (!inconsistency.empty()) {
    return invalidInput(out.path + ": ONNX's shape inference finds the model inconsistent at " +
                        inconsistency + " (a --dim value the model cannot take?)");
  }
  const onnx::GraphProto& graph = model.graph();
  if (Status s = checkDeclaredOutputs(graph, out.path, types); !s) return s;
  addGraphTensors(graph, types, out);
  Producers producers;
  if (Status s = findProducers(graph, out, producers); !s) return s;
  markConstants(graph, inferred.graph(), producers, out);
  if (Status s = addOperators(graph, producers, out); !s) return s;
  const int unknown_body_shapes = readConstantsAndBodies(graph, inferred.graph(), types, out);
  linkConsumers(out);
  if (Status s = checkAcyclic(graph, out); !s) return s;
  warnUnknownShapes(out, unknown_body_shapes);
  findKvPairs(graph, out);
  if (Status s = checkRunnable(out); !s) return s;
  return out;
}

}  // namespace placer
