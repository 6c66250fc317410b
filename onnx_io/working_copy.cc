// The loader's working copy of a model (onnx_io/working_copy.h): ONNX's shape inference, constant
// folding and the loader's own inference, round after round, optionally in a child process.
#include "onnx_io/working_copy.h"

#include <onnx/shape_inference/implementation.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <set>
#include <sstream>

#include "core/onnx_domain.h"
#include "onnx_io/constant_folding.h"
#include "onnx_io/model_checks.h"
#include "onnx_io/op_inference.h"

namespace placer {

std::optional<Shape> shapeOf(const onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return std::nullopt;
  Shape shape;
  for (const auto& dim : type.tensor_type().shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() < 0) return std::nullopt;
    shape.push_back(dim.dim_value());
  }
  return shape;
}

namespace {

// A weight's type: its element type and dims.
onnx::TypeProto weightType(const onnx::TensorProto& tensor) {
  onnx::TypeProto type;
  auto* tensor_type = type.mutable_tensor_type();
  tensor_type->set_elem_type(tensor.data_type());
  auto* shape = tensor_type->mutable_shape();
  for (auto d : tensor.dims())
    shape->add_dim()->set_dim_value(d);
  return type;
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

}  // namespace

void collectShapes(const onnx::GraphProto& g, std::map<std::string, onnx::TypeProto>& types) {
  for (const auto& init : g.initializer())
    types[init.name()] = weightType(init);
  for (const auto& list : {&g.input(), &g.value_info(), &g.output()}) {
    for (const auto& info : *list) {
      if (info.type().has_tensor_type()) types[info.name()] = info.type();
    }
  }
}


namespace {

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
    if (node.op_type() != "Loop" || !isDefaultDomain(node.domain())) continue;
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

// Folding stops once its values hold this many elements in all (512 MB), with a warning.
constexpr std::size_t kMaxFoldedTotal = std::size_t{1} << 26;
// Rounds of inference and folding: each lets folded values reach shapes, and shapes new Shape nodes.
constexpr int kMaxFoldingRounds = 200;

// Opset versions by domain ("" for the default domain, which defaults to 1).
std::map<std::string, std::int64_t> opsetVersions(const onnx::ModelProto& model) {
  std::map<std::string, std::int64_t> out{{"", 1}};
  for (const auto& opset : model.opset_import())
    out[opset.domain() == "ai.onnx" ? "" : opset.domain()] = opset.version();
  return out;
}

// Moves the default-domain nodes whose form libonnx would misread (op_inference.h) to a domain of
// their own in the working copy, so its inference leaves them to addOwnTypes().
void hideNewerForms(onnx::ModelProto& work, std::int64_t opset) {
  bool hidden = false;
  for (auto& node : *work.mutable_graph()->mutable_node()) {
    if (!ownsInference(node, opset)) continue;
    node.set_domain(kOwnInferenceDomain);
    hidden = true;
  }
  if (!hidden) return;
  auto* import = work.add_opset_import();
  import->set_domain(kOwnInferenceDomain);
  import->set_version(opset);
}

// The loader's own inference (op_inference.h) for the nodes libonnx cannot infer: contrib operators
// and the hidden newer forms. Adds what it finds to `own_types` and `types`; true if anything was new.
bool addOwnTypes(const onnx::GraphProto& g, const std::map<std::string, std::int64_t>& opsets,
                 const std::map<std::string, ConstTensor>& known, std::map<std::string, onnx::TypeProto>& types,
                 std::map<std::string, onnx::TypeProto>& own_types) {
  bool added = false;
  for (const auto& node : g.node()) {
    const std::string& domain = node.domain();
    if (domain != kOwnInferenceDomain && domain != "com.microsoft") continue;
    NodeInputs inputs;
    for (const auto& name : node.input()) {
      TensorType t;
      if (auto it = types.find(name); !name.empty() && it != types.end() && it->second.has_tensor_type()) {
        t.element_type = it->second.tensor_type().elem_type();
        t.shape = shapeOf(it->second);
      }
      inputs.types.push_back(t);
      auto value = known.find(name);
      inputs.values.push_back(name.empty() || value == known.end() ? nullptr : &value->second);
    }
    auto opset = opsets.find(domain == kOwnInferenceDomain ? "" : domain);
    auto outputs = inferOwnTypes(node, domain, opset == opsets.end() ? 1 : opset->second, inputs);
    if (!outputs) continue;
    for (int k = 0; k < node.output_size() && k < static_cast<int>(outputs->size()); ++k) {
      const TensorType& t = (*outputs)[k];
      const std::string& name = node.output(k);
      if (name.empty() || t.element_type == 0) continue;
      onnx::TypeProto type;
      auto* tensor = type.mutable_tensor_type();
      tensor->set_elem_type(t.element_type);
      if (t.shape) {
        auto* shape = tensor->mutable_shape();
        for (std::int64_t d : *t.shape)
          shape->add_dim()->set_dim_value(d);
      }
      auto it = own_types.find(name);
      if (it != own_types.end() && it->second.SerializeAsString() == type.SerializeAsString()) continue;
      own_types[name] = type;
      types[name] = type;
      added = true;
    }
  }
  return added;
}

// A graph input declaring the tensor's type and dims.
onnx::ValueInfoProto valueInfoOf(const onnx::TensorProto& tensor) {
  onnx::ValueInfoProto info;
  info.set_name(tensor.name());
  *info.mutable_type() = weightType(tensor);
  return info;
}

std::size_t readLimit(int element_type) {
  return floatingType(element_type) ? kMaxReadWeightElements : kMaxFoldedElements;
}

// The static shapes of the tensors declared in the bodies of g's control-flow nodes, recursively
// (ONNX names are unique across scopes, so one map holds every scope).
void collectBodyShapes(const onnx::GraphProto& g, std::map<std::string, Shape>& shapes) {
  for (const auto& node : g.node()) {
    for (const auto& attr : node.attribute()) {
      auto collect = [&](const onnx::GraphProto& body) {
        std::map<std::string, onnx::TypeProto> types;
        collectShapes(body, types);
        for (const auto& [name, type] : types) {
          if (auto s = shapeOf(type)) shapes[name] = *s;
        }
        collectBodyShapes(body, shapes);
      };
      if (attr.has_g()) collect(attr.g());
      for (const auto& body : attr.graphs())
        collect(body);
    }
  }
}

// Folds the constant computations inside one body: nodes whose inputs are the body's initializers,
// values known in the enclosing scopes, or (for Shape/Size) statically shaped, become initializers
// of the body, as the top level's do, so inference then sizes what reads them. Nested bodies too.
// Adds the values to `known` and their elements to `total`; returns the number of nodes folded.
int foldBody(onnx::GraphProto& body, std::map<std::string, ConstTensor>& known,
             const std::map<std::string, Shape>& shapes, std::size_t& total) {
  for (const auto& init : body.initializer()) {
    if (known.count(init.name())) continue;
    if (auto v = readConstant(init, readLimit(init.data_type()))) known[init.name()] = std::move(*v);
  }
  int folded = 0;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (int i = 0; i < body.node_size(); ++i) {
    onnx::NodeProto& node = *body.mutable_node(i);
    std::optional<std::vector<ConstTensor>> values;
    const bool weight_like = node.op_type() == "Constant" || node.op_type() == "ConstantOfShape";
    if (foldableOp(node) && total <= kMaxFoldedTotal)
      values = evaluateNode(node, known, shapes, weight_like ? kMaxReadWeightElements : kMaxFoldedElements);
    if (!values) {
      for (auto& attr : *node.mutable_attribute()) {
        if (attr.has_g()) folded += foldBody(*attr.mutable_g(), known, shapes, total);
        for (auto& g : *attr.mutable_graphs())
          folded += foldBody(g, known, shapes, total);
      }
      *kept.Add() = node;
      continue;
    }
    for (std::size_t k = 0; k < values->size(); ++k) {
      const std::string& name = node.output(static_cast<int>(k));
      total += (*values)[k].size();
      *body.add_initializer() = writeConstant(name, (*values)[k]);
      known[name] = std::move((*values)[k]);
    }
    ++folded;
  }
  if (folded > 0) {
    body.mutable_node()->Swap(&kept);
    body.clear_value_info();  // inferred afresh, from the folded values
  }
  return folded;
}

// Counts every name a graph defines (inputs, initializers, node outputs), and with `bodies` those its
// control-flow bodies define, recursively.
void countDefinitions(const onnx::GraphProto& g, std::map<std::string, int>& count, bool bodies = true) {
  for (const auto& i : g.input())
    ++count[i.name()];
  for (const auto& i : g.initializer())
    ++count[i.name()];
  for (const auto& node : g.node()) {
    for (const auto& o : node.output()) {
      if (!o.empty()) ++count[o];
    }
    if (!bodies) continue;
    for (const auto& attr : node.attribute()) {
      if (attr.has_g()) countDefinitions(attr.g(), count);
      for (const auto& body : attr.graphs())
        countDefinitions(body, count);
    }
  }
}

// foldBody() on every body of g's control-flow nodes; `top_shapes` are the top level's. Values and
// shapes are looked up by name in one map for all scopes, which is right because ONNX names are
// unique across scopes; a model whose bodies redefine a name of an enclosing scope (or an
// initializer that is also a graph input, as before IR 4) folds nothing inside its bodies.
int foldBodies(onnx::GraphProto& g, std::map<std::string, ConstTensor>& known,
               const std::map<std::string, Shape>& top_shapes, std::size_t& total) {
  std::map<std::string, int> definitions;
  for (const auto& node : g.node()) {
    for (const auto& attr : node.attribute()) {
      if (attr.has_g()) countDefinitions(attr.g(), definitions);
      for (const auto& body : attr.graphs())
        countDefinitions(body, definitions);
    }
  }
  if (definitions.empty()) return 0;
  std::map<std::string, int> top;
  countDefinitions(g, top, /*bodies=*/false);
  for (const auto& [name, n] : definitions) {
    if (n > 1 || top.count(name)) return 0;
  }
  std::map<std::string, Shape> shapes = top_shapes;
  collectBodyShapes(g, shapes);
  int folded = 0;
  for (auto& node : *g.mutable_node()) {
    for (auto& attr : *node.mutable_attribute()) {
      if (attr.has_g()) folded += foldBody(*attr.mutable_g(), known, shapes, total);
      for (auto& body : *attr.mutable_graphs())
        folded += foldBody(body, known, shapes, total);
    }
  }
  return folded;
}

}  // namespace

// Element types and shapes of every tensor, from shape inference on a copy (`work`) with constant
// computations folded (onnx_io/constant_folding.h): each round infers shapes, evaluates every node
// whose inputs are known, replaces those nodes by initializers holding their values, and infers
// again, until nothing new folds; inside the control-flow bodies too (foldBodies). The copy keeps
// what inference found inside the bodies, and the folded values as initializers. `inconsistency`
// is what firstInconsistency() found in the last round. Returns the number of nodes folded.
int inferTypes(const onnx::ModelProto& model, std::map<std::string, onnx::TypeProto>& types,
               onnx::ModelProto& work, std::vector<std::string>& warnings, std::string& inconsistency) {
  work = model;
  sortNodesTopologically(*work.mutable_graph());  // checkModelNodes() has refused cycles
  // The graph outputs' declarations are claims inference would take over what their producers give:
  // a weight declared as a graph output with another shape poisons every reader, a declared element
  // type the producer does not give stops inference as a whole. So the copy infers them afresh (the
  // loader compares the declarations with the result). An output that is a graph input or a weight
  // has no producer: it takes the input's declaration or the weight's type, as an empty one would
  // stand for the tensor in inference and leave every reader untyped.
  std::map<std::string, onnx::TypeProto> given;  // the weights' types, then the inputs' declarations
  for (const auto& init : work.graph().initializer())
    given[init.name()] = weightType(init);
  for (const auto& input : work.graph().input()) {
    if (input.type().has_tensor_type()) given[input.name()] = input.type();
  }
  for (auto& output : *work.mutable_graph()->mutable_output()) {
    output.mutable_type()->Clear();
    if (auto it = given.find(output.name()); it != given.end()) *output.mutable_type() = it->second;
  }
  const std::map<std::string, std::int64_t> opsets = opsetVersions(work);
  hideNewerForms(work, opsets.at(""));
  int folded = 0;
  std::map<std::string, onnx::TypeProto> loop_types, own_types;
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
      const bool new_own_types = addOwnTypes(work.graph(), opsets, known, types, own_types);
      const int body_folded = capped ? 0 : foldBodies(*work.mutable_graph(), known, shapes, total);
      if (remove.empty() && !new_loop_types && !new_own_types && body_folded == 0) break;
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
      for (const auto* found : {&loop_types, &own_types}) {
        for (const auto& [name, type] : *found) {
          if (known.count(name)) continue;  // folded: an initializer now
          onnx::ValueInfoProto* info = graph->add_value_info();
          info->set_name(name);
          *info->mutable_type() = type;
        }
      }
    }
  } catch (const std::exception& e) {
    warnings.push_back(std::string("shape inference stopped early: ") + e.what());
  }
  return folded;
}

namespace {

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

}  // namespace

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

}  // namespace placer
