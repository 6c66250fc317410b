// ONNX model loading: parse, validate, infer shapes, find weights, fold weight producers into their
// readers, and build the tensor table (onnx_model.h).
//
// Dynamic input dimensions are fixed before shape inference (--dim NAME=VALUE, else
// LoadOptions::default_dim, with a warning), and inference runs with data propagation so shape
// arithmetic (Shape -> Gather -> Concat -> Reshape) resolves to static shapes where ONNX can do it.
// External-data initializers are never read: their sizes come from their dims. Control-flow bodies are
// read from the inferred copy (ONNX writes their value_info there) into OnnxNode::subgraphs, with the
// Loop trip count or Scan length when it is known.
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <sstream>

#include "onnx_io/model_checks.h"
#include "onnx_io/model_proto.h"
#include "onnx_io/onnx_model.h"
#include "onnx_io/constant_folding.h"

namespace placer {

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

std::string nodeLabel(const onnx::NodeProto& node, int index) {
  std::string label = "node " + std::to_string(index) + " (" + node.op_type();
  if (!node.name().empty()) label += " \"" + node.name() + "\"";
  return label + ")";
}

// Fixes symbolic and unknown dimensions of the graph inputs so inference can give static shapes. A
// value given for a name no input has is an error listing the names there are.
Status fixInputDims(onnx::ModelProto& model, const LoadOptions& options, const std::string& source,
                    std::vector<std::string>& warnings) {
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

std::optional<Shape> shapeOf(const onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return std::nullopt;
  Shape shape;
  for (const auto& dim : type.tensor_type().shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() < 0) return std::nullopt;
    shape.push_back(dim.dim_value());
  }
  return shape;
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
      default:
        break;
    }
  }
}

// ONNX 1.12's inference dereferences the type of a tensor a node reads without checking that it has
// one (Shape's data propagation does), and a tensor nothing typed — the output of an operator without
// a schema, a graph input or output declared without a type — has none: a SIGSEGV. So every tensor
// of `g` and of the bodies in it gets a type, empty where none is known, which inference fills in.
void declareEveryTensor(onnx::GraphProto& g) {
  std::set<std::string> declared;
  for (auto* list : {g.mutable_input(), g.mutable_output(), g.mutable_value_info()}) {
    for (auto& info : *list) {
      info.mutable_type();
      declared.insert(info.name());
    }
  }
  for (auto& node : *g.mutable_node()) {
    for (auto& attr : *node.mutable_attribute()) {
      if (attr.has_g()) declareEveryTensor(*attr.mutable_g());
      for (auto& body : *attr.mutable_graphs())
        declareEveryTensor(body);
    }
    for (const auto& name : node.output()) {
      if (name.empty() || !declared.insert(name).second) continue;
      onnx::ValueInfoProto* info = g.add_value_info();
      info->set_name(name);
      info->mutable_type();
    }
  }
}

// Runs ONNX's shape inference on `model`, in place. What inference could not do for some node (its
// inputs disagree with its attributes, or with each other) is returned, one message per node; every
// other node is inferred all the same.
std::string runInference(onnx::ModelProto& model) {
  declareEveryTensor(*model.mutable_graph());
  try {
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(/*check_type=*/false, /*error_mode=*/1,
                                                                   /*data_propagation=*/true));
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

void collectShapes(const onnx::GraphProto& g, std::map<std::string, onnx::TypeProto>& types) {
  for (const auto& init : g.initializer()) {
    onnx::TypeProto type;
    auto* tensor = type.mutable_tensor_type();
    tensor->set_elem_type(init.data_type());
    auto* shape = tensor->mutable_shape();
    for (auto d : init.dims())
      shape->add_dim()->set_dim_value(d);
    types[init.name()] = type;
  }
  for (const auto& list : {&g.input(), &g.value_info(), &g.output()}) {
    for (const auto& info : *list) {
      if (info.type().has_tensor_type()) types[info.name()] = info.type();
    }
  }
}

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

// ONNX's inference gives a Loop's loop-carried outputs no shape, as a carried value may change shape
// from one iteration to the next. When the body gives a carried value back with the static shape it
// came in with, that shape is a fixed point of the body, hence the output's shape. (Scan outputs stay
// unknown: their length is the number of iterations actually run, which the condition may cut short.)
// Adds what it can find to `loop_types`; true if anything was new.
bool addLoopOutputTypes(const onnx::GraphProto& g, const std::map<std::string, onnx::TypeProto>& types,
                        std::map<std::string, onnx::TypeProto>& loop_types) {
  bool added = false;
  auto static_shape = [&](const std::string& name) -> std::optional<Shape> {
    auto it = types.find(name);
    return it == types.end() ? std::nullopt : shapeOf(it->second);
  };
  for (const auto& node : g.node()) {
    if (node.op_type() != "Loop" || !(node.domain().empty() || node.domain() == "ai.onnx")) continue;
    const onnx::GraphProto* body = nullptr;
    for (const auto& attr : node.attribute()) {
      if (attr.name() == "body" && attr.has_g()) body = &attr.g();
    }
    if (body == nullptr) continue;
    const int carried = node.input_size() - 2;
    for (int i = 0; i < carried && i < node.output_size() && i + 1 < body->output_size(); ++i) {
      const std::string& name = node.output(i);
      if (name.empty() || loop_types.count(name) || static_shape(name)) continue;
      const onnx::TypeProto& body_type = body->output(i + 1).type();
      const std::optional<Shape> shape = shapeOf(body_type);
      if (!shape || !body_type.has_tensor_type() || static_shape(node.input(i + 2)) != shape) continue;
      onnx::TypeProto type;
      type.mutable_tensor_type()->set_elem_type(body_type.tensor_type().elem_type());
      auto* dims = type.mutable_tensor_type()->mutable_shape();
      for (std::int64_t d : *shape)
        dims->add_dim()->set_dim_value(d);
      loop_types[name] = type;
      added = true;
    }
  }
  return added;
}

// The first node ONNX's inference found inconsistent (its input shapes disagree with each other or
// with its attributes: "(op_type:Add, node name: /Add): [ShapeInferenceError] Incompatible
// dimensions"), in the errors runInference() returned; empty when there is none. Such a node's
// outputs, and everything after them, get no shape. Nodes it merely could not type (an input of
// unknown element type, after an operator without a schema) do not count, nor a shape it inferred
// that differs from the one the model declares ("... and existing shape differ ..."): inference
// keeps the declared one and goes on.
std::string firstInconsistency(const std::string& errors) {
  std::istringstream lines(errors);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t start = line.find("(op_type:");
    if (start != std::string::npos && line.find("): [ShapeInferenceError]", start) != std::string::npos &&
        line.find("existing", start) == std::string::npos)
      return line.substr(start);
  }
  return "";
}

// Floating initializers, and Constant / ConstantOfShape outputs, of more elements than this are
// weights rather than operands of shape or mask arithmetic: folding neither reads nor makes them.
// (Integer and bool tensors are read up to kMaxFoldedElements.)
constexpr std::size_t kMaxReadWeightElements = 65536;
// Folding stops once its values hold this many elements in all (512 MB), with a warning.
constexpr std::size_t kMaxFoldedTotal = std::size_t{1} << 26;
// Rounds of inference and folding: each lets folded values reach shapes, and shapes new Shape nodes.
constexpr int kMaxFoldingRounds = 200;

// A graph input declaring the tensor's type and dims.
onnx::ValueInfoProto valueInfoOf(const onnx::TensorProto& tensor) {
  onnx::ValueInfoProto info;
  info.set_name(tensor.name());
  auto* type = info.mutable_type()->mutable_tensor_type();
  type->set_elem_type(tensor.data_type());
  auto* shape = type->mutable_shape();
  for (auto d : tensor.dims())
    shape->add_dim()->set_dim_value(d);
  return info;
}

std::size_t readLimit(int element_type) {
  return floatingType(element_type) ? kMaxReadWeightElements : kMaxFoldedElements;
}

// Element types and shapes of every tensor, from shape inference on a copy (`work`) with constant
// computations folded (onnx_io/constant_folding.h): each round infers shapes, evaluates every node
// whose inputs are known, replaces those nodes by initializers holding their values, and infers
// again, until nothing new folds. The copy keeps what inference found inside control-flow bodies,
// and the folded values as initializers. `inconsistency` is what firstInconsistency() found in the
// last round. Returns the number of nodes folded.
int inferTypes(const onnx::ModelProto& model, std::map<std::string, onnx::TypeProto>& types,
               onnx::ModelProto& work, std::vector<std::string>& warnings, std::string& inconsistency) {
  work = model;
  sortNodesTopologically(*work.mutable_graph());  // checkModelNodes() has refused cycles
  int folded = 0;
  std::map<std::string, onnx::TypeProto> loop_types;
  std::map<std::string, ConstTensor> known;
  for (const auto& init : work.graph().initializer()) {
    if (auto v = readConstant(init, readLimit(init.data_type()))) known[init.name()] = std::move(*v);
  }
  std::size_t total = 0;
  bool capped = false;
  try {
    for (int round = 0; round < kMaxFoldingRounds; ++round) {
      inconsistency = firstInconsistency(runInference(work));
      types.clear();
      collectShapes(work.graph(), types);
      std::map<std::string, Shape> shapes;
      for (const auto& [name, type] : types) {
        if (auto s = shapeOf(type)) shapes[name] = *s;
      }
      std::vector<std::string> computed;
      std::set<int> remove;
      for (int i = 0; i < work.graph().node_size() && !capped; ++i) {
        const auto& node = work.graph().node(i);
        if (!foldableOp(node)) continue;
        const bool weight_like = node.op_type() == "Constant" || node.op_type() == "ConstantOfShape";
        auto values = evaluateNode(node, known, shapes, weight_like ? kMaxReadWeightElements : kMaxFoldedElements);
        if (!values) continue;
        for (std::size_t k = 0; k < values->size(); ++k) {
          total += (*values)[k].size();
          known[node.output(static_cast<int>(k))] = std::move((*values)[k]);
          computed.push_back(node.output(static_cast<int>(k)));
        }
        remove.insert(i);
        if (total > kMaxFoldedTotal) {
          capped = true;
          warnings.push_back("constant folding stopped after " + std::to_string(total) +
                             " elements of folded values; later constant computations are costed as operators");
        }
      }
      const bool new_loop_types = addLoopOutputTypes(work.graph(), types, loop_types);
      if (remove.empty() && !new_loop_types) break;
      folded += static_cast<int>(remove.size());
      auto* graph = work.mutable_graph();
      google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
      for (int i = 0; i < graph->node_size(); ++i) {
        if (!remove.count(i)) *kept.Add() = graph->node(i);
      }
      graph->mutable_node()->Swap(&kept);
      for (const std::string& name : computed) {
        const onnx::TensorProto& value = *graph->add_initializer() = writeConstant(name, known.at(name));
        // Before IR 4 an initializer is read only through a graph input of its name.
        if (work.ir_version() < 4) *graph->add_input() = valueInfoOf(value);
      }
      // Inference merges with existing value_info; start afresh so folded shapes can propagate, from
      // the Loop output types found so far.
      graph->clear_value_info();
      for (const auto& [name, type] : loop_types) {
        onnx::ValueInfoProto* info = graph->add_value_info();
        info->set_name(name);
        *info->mutable_type() = type;
      }
    }
  } catch (const std::exception& e) {
    warnings.push_back(std::string("shape inference stopped early: ") + e.what());
  }
  return folded;
}

// The model without the data of the weights folding does not read (onnx_io/constant_folding.h):
// what shape inference and folding need, and small enough to send through a pipe.
onnx::ModelProto withoutWeightData(const onnx::ModelProto& model) {
  onnx::ModelProto light = model;
  for (auto& t : *light.mutable_graph()->mutable_initializer()) {
    std::uint64_t count = 1;
    for (auto d : t.dims())
      count = d > 0 ? count * static_cast<std::uint64_t>(d) : 0;
    if (count <= readLimit(t.data_type())) continue;
    t.clear_raw_data();
    t.clear_float_data();
    t.clear_double_data();
    t.clear_int32_data();
    t.clear_int64_data();
    t.clear_uint64_data();
    t.clear_string_data();
  }
  return light;
}

bool writeAll(int fd, const std::string& bytes) {
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// inferTypes() in a forked child: its results (the working copy, as protobuf, the inconsistency, and
// the warnings, one per line) come back through a pipe; a child killed by a signal is an error naming
// the file.
Status inferTypesIsolated(const onnx::ModelProto& model, const std::string& source,
                          std::map<std::string, onnx::TypeProto>& types, onnx::ModelProto& work,
                          std::vector<std::string>& warnings, std::string& inconsistency) {
  const onnx::ModelProto light = withoutWeightData(model);
  int fds[2];
  if (::pipe(fds) != 0) return ioError(source + ": cannot run shape inference: " + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return ioError(source + ": cannot run shape inference: " + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    // A crash in here is to end the child by its signal, which the parent reports: not to run a
    // handler the host process installed (a crash reporter's, a sanitizer's, a fuzzer's), which would
    // act as if the host had crashed.
    for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
      std::signal(signal, SIG_DFL);
    std::map<std::string, onnx::TypeProto> child_types;
    onnx::ModelProto child_work;
    std::vector<std::string> child_warnings;
    std::string child_inconsistency;
    inferTypes(light, child_types, child_work, child_warnings, child_inconsistency);
    std::string bytes;
    child_work.SerializeToString(&bytes);
    std::string message = std::to_string(bytes.size()) + "\n" + bytes + child_inconsistency + "\n";
    for (const std::string& w : child_warnings)
      message += w + "\n";
    ::_exit(writeAll(fds[1], message) ? 0 : 1);
  }
  ::close(fds[1]);
  std::string received;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    received.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    return invalidInput(source + ": ONNX's shape inference crashed on this model (" +
                        std::string(::strsignal(WTERMSIG(status))) +
                        "); its shapes probably disagree somewhere (a dimension value larger than a table "
                        "it indexes, say)");
  }
  const std::size_t newline = received.find('\n');
  std::size_t size = 0;
  if (WEXITSTATUS(status) != 0 || newline == std::string::npos ||
      std::sscanf(received.c_str(), "%zu", &size) != 1 || newline + 1 + size > received.size() ||
      !work.ParseFromArray(received.data() + newline + 1, static_cast<int>(size))) {
    return internalError(source + ": shape inference in a child process gave no result");
  }
  std::istringstream lines(received.substr(newline + 1 + size));
  std::getline(lines, inconsistency);
  for (std::string line; std::getline(lines, line);)
    warnings.push_back(line);
  types.clear();
  collectShapes(work.graph(), types);
  return Status::ok();
}

// ---- Control-flow bodies -------------------------------------------------------------------------
// If/Loop/Scan are placed as one opaque node that costs what its bodies cost. Shape inference writes
// the types it finds inside the bodies of the working copy into their value_info; each body becomes an
// OnnxSubgraph of its operators, typed from its own scope and the scopes around it.

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

bool hasSubgraphs(const onnx::NodeProto& node) {
  return std::any_of(node.attribute().begin(), node.attribute().end(),
                     [](const onnx::AttributeProto& a) { return a.has_g() || a.graphs_size() > 0; });
}

bool defaultDomain(const onnx::NodeProto& node) {
  return node.domain().empty() || node.domain() == "ai.onnx";
}

// Operators whose output is not a function of their inputs alone.
bool nondeterministic(const std::string& op) {
  return op == "RandomNormal" || op == "RandomNormalLike" || op == "RandomUniform" || op == "RandomUniformLike" ||
         op == "Multinomial" || op == "Bernoulli" || op == "Dropout";
}

// Whether a node produces a constant (a weight, not an operator to place): Constant, and any other
// deterministic default-domain node without bodies whose inputs are all constant (ConstantOfShape or
// Identity of a constant; a Gather of a position table by a folded Range): a runtime computes it
// once, when it loads the model (ONNX Runtime's constant folding), not per sample. torch exports
// read a parameter that several modules share (equal zero biases, unit norm weights) through one
// Identity node per module: placed as operators, such sources would multiply the ideals of the
// graph (2^k for k of them). Stage sub-models copy such a node with the constants it reads.
template <typename IsConstant>
bool producesConstant(const onnx::NodeProto& node, IsConstant&& is_constant) {
  if (!defaultDomain(node) || hasSubgraphs(node) || nondeterministic(node.op_type())) return false;
  if (node.op_type() == "Constant") return true;
  bool any = false;
  for (const auto& name : node.input()) {
    if (name.empty()) continue;
    if (!is_constant(name)) return false;
    any = true;
  }
  return any;
}

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

// Shared while the bodies of one top-level node are built.
struct BodyContext {
  std::int64_t opset = 1;
  std::vector<std::string>& warnings;
  double weight_bytes = 0;  // initializers and constants defined in the bodies
  int unknown_shapes = 0;   // tensors defined in the bodies that have no static size
};

double typeBytes(const onnx::TypeProto* type) {
  if (type == nullptr || !type->has_tensor_type()) return 0;
  TensorInfo t;
  t.element_type = type->tensor_type().elem_type();
  t.shape = shapeOf(*type);
  return t.bytes().value_or(0);
}

void buildBodies(const onnx::NodeProto& proto, const std::string& label, const Scope& scope, BodyContext& ctx,
                 OnnxNode& node);

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

}  // namespace

Expected<OnnxGraph> loadOnnx(const std::filesystem::path& path, const LoadOptions& options) {
  auto parsed = readModelProto(path);
  if (!parsed) return parsed.status();
  onnx::ModelProto& model = *parsed;
  OnnxGraph out;
  out.path = path.string();
  out.ir_version = model.ir_version();
  for (const auto& opset : model.opset_import())
    out.opsets[opset.domain()] = opset.version();

  if (Status s = checkModelNodes(model, out.path); !s) return s;
  if (Status s = fixInputDims(model, options, out.path, out.warnings); !s) return s;
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

  // Tensor table: every name that is a graph input, an initializer or a node output.
  auto tensor = [&](const std::string& name) -> TensorInfo& {
    auto [it, inserted] = out.tensor_index.try_emplace(name, static_cast<int>(out.tensors.size()));
    if (inserted) {
      TensorInfo t;
      t.name = name;
      out.tensors.push_back(std::move(t));
    }
    return out.tensors[it->second];
  };
  auto set_type = [&](const std::string& name, const onnx::TypeProto& type) {
    TensorInfo& t = tensor(name);
    if (type.has_tensor_type()) t.element_type = type.tensor_type().elem_type();
    if (auto shape = shapeOf(type)) t.shape = shape;
  };
  for (const auto& init : graph.initializer()) {
    TensorInfo& t = tensor(init.name());
    t.is_weight = true;
    t.element_type = init.data_type();
    t.shape = Shape(init.dims().begin(), init.dims().end());
    t.external_data = init.data_location() == onnx::TensorProto::EXTERNAL;
  }
  for (const auto& input : graph.input()) {
    const bool is_initializer =
        out.tensor_index.count(input.name()) && out.tensors[out.tensor_index[input.name()]].is_weight;
    if (!is_initializer) tensor(input.name()).is_graph_input = true;
  }
  for (const auto& [name, type] : types) {
    const bool is_weight = out.tensor_index.count(name) && out.tensors[out.tensor_index[name]].is_weight;
    if (!is_weight) set_type(name, type);
  }

  // Which nodes produce constants (weights): Constant, and ConstantOfShape or Identity of a constant.
  const int n_onnx = graph.node_size();
  std::vector<bool> constant_producer(n_onnx, false);
  std::map<std::string, int> producer_of;
  for (int i = 0; i < n_onnx; ++i) {
    const auto& node = graph.node(i);
    for (const auto& name : node.output()) {
      if (name.empty()) continue;
      if (producer_of.count(name) ||
          (out.tensor_index.count(name) && out.tensors[out.tensor_index[name]].is_graph_input)) {
        return invalidInput(path.string() + ": " + nodeLabel(node, i) + " writes tensor '" + name +
                            "', which is already defined");
      }
      producer_of[name] = i;
    }
  }
  auto is_constant_tensor = [&](const std::string& name) {
    if (auto it = out.tensor_index.find(name);
        it != out.tensor_index.end() && out.tensors[it->second].is_weight) {
      return true;
    }
    auto p = producer_of.find(name);
    return p != producer_of.end() && constant_producer[p->second];
  };
  // Tensors constant folding computed: the working copy's initializers that the model does not have.
  std::set<std::string> original_initializers;
  for (const auto& init : graph.initializer())
    original_initializers.insert(init.name());
  std::map<std::string, const onnx::TensorProto*> computed;
  for (const auto& init : inferred.graph().initializer()) {
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
    constant_producer[i] = producesConstant(node, is_constant_tensor);
    if (constant_producer[i] || !folded_by_value(node)) continue;
    constant_producer[i] = true;
    out.folded_nodes.push_back(FoldedNode{i, node.op_type(), node.name()});
    for (const auto& name : node.output())
      out.folded_values[name] = computed.at(name)->SerializeAsString();
  }

  // Operators to place.
  std::vector<int> node_of(n_onnx, -1);
  std::set<std::string> used_names;
  for (const auto& node : graph.node())
    used_names.insert(node.name());
  for (int i = 0; i < n_onnx; ++i) {
    if (constant_producer[i]) {
      for (const auto& name : graph.node(i).output()) {
        if (!name.empty()) tensor(name).is_weight = true;
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
      const bool known = out.tensor_index.count(name) || producer_of.count(name);
      if (!known) {
        return invalidInput(path.string() + ": " + nodeLabel(proto, i) + " reads tensor '" + name +
                            "', which no node, initializer or graph input produces");
      }
      tensor(name);
      node.inputs.push_back(out.tensor_index[name]);
      if (auto p = producer_of.find(name); p != producer_of.end() && constant_producer[p->second]) {
        folded.insert(p->second);
      }
    }
    node.folded.assign(folded.begin(), folded.end());
    for (const auto& name : proto.output()) {
      if (name.empty()) {
        node.outputs.push_back(-1);
        continue;
      }
      TensorInfo& t = tensor(name);
      t.producer = node_of[i];
      node.outputs.push_back(out.tensor_index[name]);
    }
  }
  for (const auto& output : graph.output())
    tensor(output.name()).is_graph_output = true;

  // Control-flow bodies, from the inferred copy, whose nodes keep their outputs.
  Scope top;
  top.types = types;
  for (const auto& init : inferred.graph().initializer()) {
    if (auto v = readConstant(init, kMaxReadWeightElements)) top.ints[init.name()] = *v;
  }
  for (const TensorInfo& t : out.tensors) {
    if (t.is_weight) top.weights.insert(t.name);
  }
  std::map<std::string, const onnx::NodeProto*> inferred_by_output;
  for (const auto& node : inferred.graph().node()) {
    for (const auto& name : node.output()) {
      if (!name.empty()) inferred_by_output[name] = &node;
    }
  }
  BodyContext bodies{1, out.warnings};
  for (const auto& [domain, version] : out.opsets) {
    if (domain.empty() || domain == "ai.onnx") bodies.opset = version;
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

  // The operators must form a DAG (ONNX requires topological order, but we do not rely on it).
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
        return invalidInput(path.string() + ": the graph has a cycle through " +
                            nodeLabel(graph.node(out.nodes[v].onnx_index), out.nodes[v].onnx_index));
      }
    }
  }
  int unknown = 0;
  for (const auto& t : out.tensors) {
    if (!t.bytes() && (!t.consumers.empty() || t.is_graph_output)) ++unknown;
  }
  if (unknown > 0) {
    out.warnings.push_back(std::to_string(unknown) + " tensor(s) have no static shape after shape inference");
  }
  if (bodies.unknown_shapes > 0) {
    out.warnings.push_back(
        std::to_string(bodies.unknown_shapes) +
        " tensor(s) inside If/Loop/Scan bodies have no static shape after shape inference");
  }
  return out;
}

}  // namespace placer
