// Control flow (If, Loop, Scan): each is placed as one opaque node whose roofline cost is its bodies'
// cost — If the costlier branch, Loop the body times a constant trip count, Scan the body times the scan
// length, nested bodies recursively — and whose memory holds the weights its bodies read or define.
// Models that contain control flow place end to end.
#include <gtest/gtest.h>
#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "cost_model/cost_model.h"
#include "onnx_io/onnx_model.h"
#include "tests/onnx_io/placement_check.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace control_flow_test {

onnx::ModelProto parse(const char* text) {
  onnx::ModelProto model;
  auto status = onnx::OnnxParser::Parse(model, text);
  EXPECT_TRUE(status.IsOK()) << status.ErrorMessage();
  return model;
}

// A float32 initializer of the given shape, every value 0.01.
void addWeight(onnx::GraphProto& graph, const std::string& name, const std::vector<std::int64_t>& dims) {
  onnx::TensorProto* w = graph.add_initializer();
  w->set_name(name);
  w->set_data_type(onnx::TensorProto::FLOAT);
  std::int64_t count = 1;
  for (std::int64_t d : dims) {
    w->add_dims(d);
    count *= d;
  }
  for (std::int64_t i = 0; i < count; ++i)
    w->add_float_data(0.01f);
}

// The graph attribute `attribute` of the first node of type `op_type` in `graph`.
onnx::GraphProto& body(onnx::GraphProto& graph, const std::string& op_type, const std::string& attribute) {
  for (auto& node : *graph.mutable_node()) {
    if (node.op_type() != op_type) continue;
    for (auto& attr : *node.mutable_attribute()) {
      if (attr.name() == attribute) return *attr.mutable_g();
    }
  }
  ADD_FAILURE() << "no " << op_type << "." << attribute;
  return graph;
}

struct Loaded {
  std::filesystem::path path;
  OnnxGraph graph;
};

Loaded load(const ScratchDirectory& dir, const onnx::ModelProto& model, const std::string& name) {
  Loaded out{dir.write(name + ".onnx", model), {}};
  auto graph = loadOnnx(out.path);
  EXPECT_TRUE(graph.hasValue()) << graph.status().message();
  if (graph) out.graph = std::move(*graph);
  return out;
}

int nodeOfType(const OnnxGraph& graph, const std::string& op_type) {
  for (int v = 0; v < static_cast<int>(graph.nodes.size()); ++v) {
    if (graph.nodes[v].op_type == op_type) return v;
  }
  ADD_FAILURE() << "no " << op_type << " node";
  return 0;
}

OpWork work(const OnnxGraph& graph, const std::string& op_type) {
  return estimateWork(shapeInfo(graph, nodeOfType(graph, op_type)));
}

bool hasWarning(const OnnxGraph& graph, const std::string& text) {
  for (const std::string& w : graph.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

// then: MatMul {4,8}x{8,16} (4·16·8 = 512 MACs, 1024 FLOPs) + Relu over 64 elements = 1088 FLOPs.
// else: MatMul with a weight defined inside the branch = 1024 FLOPs.
onnx::ModelProto ifModel() {
  onnx::ModelProto model = parse(R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[4, 8] x, bool c) => (float[4, 16] y) {
      y = If (c) <then_branch = then_g () => (float[4, 16] t2) {
                     t = MatMul(x, w1)
                     t2 = Relu(t)
                   },
                   else_branch = else_g () => (float[4, 16] e) {
                     e = MatMul(x, w2)
                   }>
    })");
  addWeight(*model.mutable_graph(), "w1", {8, 16});
  addWeight(body(*model.mutable_graph(), "If", "else_branch"), "w2", {8, 16});
  return model;
}

TEST(ControlFlow, IfCostsItsCostlierBranch) {
  ScratchDirectory dir("control-flow");
  const Loaded m = load(dir, ifModel(), "if");
  ASSERT_EQ(m.graph.nodes.size(), 1u);
  const OnnxNode& node = m.graph.nodes[0];
  ASSERT_EQ(node.subgraphs.size(), 2u);
  EXPECT_EQ(node.subgraphs[0].nodes.size(), 2u);
  const OpWork w = work(m.graph, "If");
  EXPECT_TRUE(w.estimated) << w.note;
  EXPECT_DOUBLE_EQ(w.flops, 1088);
  EXPECT_DOUBLE_EQ(w.macs, 512);
  // The then branch moves more: x 128 B + w1 512 B + t 256 B read, t 256 B + t2 256 B written.
  EXPECT_DOUBLE_EQ(w.bytes_read, 128 + 512 + 256);
  EXPECT_DOUBLE_EQ(w.bytes_written, 256 + 256);

  // w1 is read inside a branch from the enclosing graph: an (implicit) input, hence a weight of the
  // If node; w2 lives inside the else branch and travels with the node.
  EXPECT_DOUBLE_EQ(node.subgraph_weight_bytes, 512);
  EXPECT_DOUBLE_EQ(m.graph.weightBytes(0), 1024);
  RooflineCostModel roofline;
  auto annotated = annotate(m.graph, *devicePreset(kDefaultDevicePreset), {&roofline});
  ASSERT_TRUE(annotated.hasValue()) << annotated.status().message();
  EXPECT_DOUBLE_EQ(annotated->problem.graph[0].memory, 1024);
}

// Body: Identity (a view) + MatMul {4,8}x{8,8} (256 MACs, 512 FLOPs) + Relu over 32 = 544 FLOPs.
TEST(ControlFlow, LoopWithAConstantTripCountCostsItsBodyThatManyTimes) {
  ScratchDirectory dir("control-flow");
  onnx::ModelProto model = parse(R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[4, 8] x) => (float[4, 8] y) {
      m = Constant <value = int64 {3}> ()
      c = Constant <value = bool {1}> ()
      y = Loop (m, c, x) <body = body_g (int64 i, bool cin, float[4, 8] s) => (bool cout, float[4, 8] s2) {
            cout = Identity(cin)
            h = MatMul(s, w)
            s2 = Relu(h)
          }>
    })");
  addWeight(*model.mutable_graph(), "w", {8, 8});
  const Loaded m = load(dir, model, "loop");
  ASSERT_EQ(m.graph.nodes.size(), 1u);
  EXPECT_EQ(m.graph.nodes[0].body_runs, 3);
  const OpWork w = work(m.graph, "Loop");
  EXPECT_TRUE(w.estimated) << w.note;
  EXPECT_DOUBLE_EQ(w.flops, 3 * 544);
  EXPECT_DOUBLE_EQ(w.macs, 3 * 256);
  // w, read in the body, and the constants m and c are the Loop's weights.
  EXPECT_DOUBLE_EQ(m.graph.weightBytes(0), 256 + 8 + 1);
  EXPECT_FALSE(hasWarning(m.graph, "body counts once"));

  // A trip count only known at run time: the body counts once, with a warning and a note.
  onnx::ModelProto dynamic = model;
  dynamic.mutable_graph()->mutable_node(0)->set_op_type("Identity");
  dynamic.mutable_graph()->mutable_node(0)->clear_attribute();
  dynamic.mutable_graph()->mutable_node(0)->add_input("m_in");
  onnx::ValueInfoProto* m_in = dynamic.mutable_graph()->add_input();
  m_in->set_name("m_in");
  m_in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  m_in->mutable_type()->mutable_tensor_type()->mutable_shape();
  const Loaded d = load(dir, dynamic, "loop-dynamic");
  ASSERT_EQ(d.graph.nodes.size(), 2u);
  EXPECT_FALSE(d.graph.nodes[1].body_runs.has_value());
  const OpWork once = work(d.graph, "Loop");
  EXPECT_DOUBLE_EQ(once.flops, 544);
  EXPECT_FALSE(once.estimated);
  EXPECT_NE(once.note.find("Loop: trip count unknown, body counted once"), std::string::npos) << once.note;
  EXPECT_TRUE(hasWarning(d.graph, "its trip count M is not a constant; its body counts once"));
}

// A body computing a shape at run time, in a way libonnx's data propagation does not follow (Shape,
// Cast to float, Mul, Cast back): the loader folds it inside the body too, so the body's Reshape and
// MatMul get static shapes and the Loop an exact cost: 3 runs x {2,16}x{16,8} = 3 x 256 MACs.
TEST(ControlFlow, ConstantComputationsInsideBodiesAreFolded) {
  ScratchDirectory dir("control-flow");
  onnx::ModelProto model = parse(R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[4, 8] x) => (float[4, 8] y, float[3, 2, 8] ys) {
      m = Constant <value = int64 {3}> ()
      c = Constant <value = bool {1}> ()
      y, ys = Loop (m, c, x) <body = body_g (int64 i, bool cin, float[4, 8] s) => (bool cout, float[4, 8] s2,
                                                                                   float[2, 8] k) {
            cout = Identity(cin)
            s2 = Identity(s)
            sh = Shape(s)
            shf = Cast <to = 1> (sh)
            sc = Constant <value = float[2] {0.5, 2.0}> ()
            half = Mul(shf, sc)
            shi = Cast <to = 7> (half)
            r = Reshape(s, shi)
            k = MatMul(r, w)
          }>
    })");
  addWeight(*model.mutable_graph(), "w", {16, 8});
  const Loaded m = load(dir, model, "loop-folded-body");
  const OpWork w = work(m.graph, "Loop");
  EXPECT_TRUE(w.estimated) << w.note;
  EXPECT_DOUBLE_EQ(w.macs, 3 * 256);
  EXPECT_FALSE(hasWarning(m.graph, "inside If/Loop/Scan bodies have no static shape"));
  // The folded nodes are constants of the body, not its operators: Identity x2, Reshape, MatMul remain.
  ASSERT_EQ(m.graph.nodes.size(), 1u);
  ASSERT_EQ(m.graph.nodes[0].subgraphs.size(), 1u);
  std::vector<std::string> ops;
  for (const OnnxNode& inner : m.graph.nodes[0].subgraphs[0].nodes)
    ops.push_back(inner.op_type);
  EXPECT_EQ(ops, (std::vector<std::string>{"Identity", "Identity", "Reshape", "MatMul"}));

  // A body that redefines a name of the enclosing scope (here `shi`, which ONNX forbids): values are
  // looked up by name, so nothing inside the bodies folds; the model still loads, costed with the
  // fallback where shapes stay unknown.
  onnx::ModelProto shadowed = model;
  onnx::NodeProto* outer = shadowed.mutable_graph()->add_node();
  outer->set_op_type("Constant");
  outer->add_output("shi");
  onnx::AttributeProto* value = outer->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  value->mutable_t()->add_dims(2);
  value->mutable_t()->add_int64_data(4);
  value->mutable_t()->add_int64_data(8);
  *shadowed.mutable_graph()->add_output() = shadowed.graph().input(0);
  shadowed.mutable_graph()->mutable_output()->rbegin()->set_name("shi");
  shadowed.mutable_graph()->mutable_output()->rbegin()->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::INT64);
  shadowed.mutable_graph()->mutable_output()->rbegin()->mutable_type()->mutable_tensor_type()->clear_shape();
  const Loaded s = load(dir, shadowed, "loop-shadowed-body");
  const OpWork unfolded = work(s.graph, "Loop");
  EXPECT_FALSE(unfolded.estimated) << unfolded.note;
  EXPECT_TRUE(hasWarning(s.graph, "inside If/Loop/Scan bodies have no static shape"));
}

// Loop (trip count 2, an initializer) whose body holds an If: then MatMul {4,8}x{8,8} = 512 FLOPs,
// else Relu = 32 FLOPs; then Add over 32. Body = max(512, 32) + 32 = 544; the Loop 2 × 544.
TEST(ControlFlow, NestedControlFlowIsCostedRecursively) {
  ScratchDirectory dir("control-flow");
  onnx::ModelProto model = parse(R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[4, 8] x, bool c) => (float[4, 8] y) {
      y = Loop (m, c, x) <body = body_g (int64 i, bool cin, float[4, 8] s) => (bool cout, float[4, 8] s2) {
            cout = Identity(cin)
            r = If (cin) <then_branch = then_g () => (float[4, 8] t) { t = MatMul(s, w) },
                          else_branch = else_g () => (float[4, 8] e) { e = Relu(s) }>
            s2 = Add(r, s)
          }>
    })");
  addWeight(*model.mutable_graph(), "w", {8, 8});
  onnx::TensorProto* m_init = model.mutable_graph()->add_initializer();
  m_init->set_name("m");
  m_init->set_data_type(onnx::TensorProto::INT64);
  m_init->add_int64_data(2);
  const Loaded m = load(dir, model, "nested");
  ASSERT_EQ(m.graph.nodes.size(), 1u);
  const OnnxNode& loop = m.graph.nodes[0];
  EXPECT_EQ(loop.body_runs, 2);
  ASSERT_EQ(loop.subgraphs.size(), 1u);
  ASSERT_EQ(loop.subgraphs[0].nodes.size(), 3u);
  EXPECT_EQ(loop.subgraphs[0].nodes[1].subgraphs.size(), 2u) << "the If inside the body keeps its branches";
  const OpWork w = work(m.graph, "Loop");
  EXPECT_TRUE(w.estimated) << w.note;
  EXPECT_DOUBLE_EQ(w.flops, 2 * 544);
  EXPECT_DOUBLE_EQ(w.macs, 2 * 256);
  EXPECT_DOUBLE_EQ(m.graph.weightBytes(0), 256 + 8) << "w and the trip count are the Loop's";
  for (const std::string& warning : m.graph.warnings)
    EXPECT_EQ(warning.find("no static shape"), std::string::npos) << warning;
}

// Scan over 5 rows of {5, 4}: per step MatMul {4}x{4,4} (16 MACs, 32 FLOPs) + Add over 4 = 36 FLOPs.
TEST(ControlFlow, ScanCostsItsBodyTimesTheScanLength) {
  ScratchDirectory dir("control-flow");
  onnx::ModelProto model = parse(R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[4] s0, float[5, 4] xs) => (float[4] sn, float[5, 4] ys) {
      sn, ys = Scan (s0, xs) <num_scan_inputs = 1,
                              body = body_g (float[4] s, float[4] xi) => (float[4] s2, float[4] yi) {
                                p = MatMul(xi, w)
                                s2 = Add(s, p)
                                yi = Identity(s2)
                              }>
    })");
  addWeight(*model.mutable_graph(), "w", {4, 4});
  const Loaded m = load(dir, model, "scan");
  ASSERT_EQ(m.graph.nodes.size(), 1u);
  EXPECT_EQ(m.graph.nodes[0].body_runs, 5);
  const OpWork w = work(m.graph, "Scan");
  EXPECT_TRUE(w.estimated) << w.note;
  EXPECT_DOUBLE_EQ(w.flops, 5 * 36);
  EXPECT_DOUBLE_EQ(w.macs, 5 * 16);

  // Scanning along axis 1 of a {4, 3} input: 3 steps.
  onnx::ModelProto columns = parse(R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[4] s0, float[4, 3] xs) => (float[4] sn) {
      sn = Scan (s0, xs) <num_scan_inputs = 1, scan_input_axes = [1],
                          body = body_g (float[4] s, float[4] xi) => (float[4] s2) { s2 = Add(s, xi) }>
    })");
  const Loaded c = load(dir, columns, "scan-columns");
  ASSERT_EQ(c.graph.nodes.size(), 1u);
  EXPECT_EQ(c.graph.nodes[0].body_runs, 3);
  EXPECT_DOUBLE_EQ(work(c.graph, "Scan").flops, 3 * 4);
}

// Control flow between ordinary operators: the roofline gives every node finite times, the DP places
// the model, and the annotated model and the stages (from the DP, and cut by hand so the control
// flow nodes land in different stages than their neighbours) pass the checker and re-load to the same
// operators.
TEST(ControlFlow, ModelsWithControlFlowPlaceEndToEnd) {
  ScratchDirectory dir("control-flow");
  onnx::ModelProto model = parse(R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[4, 8] x, bool c) => (float[4, 8] y, float[4, 16] z) {
      a = Relu(x)
      m = Constant <value = int64 {3}> ()
      l = Loop (m, c, a) <body = body_g (int64 i, bool cin, float[4, 8] s) => (bool cout, float[4, 8] s2) {
            cout = Identity(cin)
            r = If (cin) <then_branch = then_g () => (float[4, 8] t) { t = MatMul(s, w) },
                          else_branch = else_g () => (float[4, 8] e) { e = Relu(s) }>
            s2 = Add(r, s)
          }>
      y = Sigmoid(l)
      z = If (c) <then_branch = then_z () => (float[4, 16] tz) { tz = MatMul(y, w1) },
                  else_branch = else_z () => (float[4, 16] ez) { ez = MatMul(a, w2) }>
    })");
  addWeight(*model.mutable_graph(), "w", {8, 8});
  addWeight(*model.mutable_graph(), "w1", {8, 16});
  addWeight(body(*model.mutable_graph(), "If", "else_branch"), "w2", {8, 16});
  const Loaded m = load(dir, model, "placed");
  ASSERT_EQ(m.graph.nodes.size(), 4u);
  // The Loop's output keeps the static shape its body gives back (ONNX's inference drops it).
  EXPECT_EQ(m.graph.tensors[m.graph.tensor_index.at("l")].shape, (Shape{4, 8}));
  for (const std::string& warning : m.graph.warnings)
    EXPECT_EQ(warning.find("no static shape"), std::string::npos) << warning;
  DeviceSpec devices = *devicePreset(kDefaultDevicePreset);
  devices.accelerators.count = 3;
  const PlacementPlan plan = placeWithDp(m.graph, devices, "control flow");
  ASSERT_EQ(plan.stage_of_node.size(), m.graph.nodes.size());
  expectWritesValidModels(m.path, m.graph, plan, "control flow, dp");
  for (int k : {2, 4})
    expectWritesValidModels(m.path, m.graph, chunkPlan(m.graph, k),
                            "control flow, " + std::to_string(k) + " chunks");
}

}  // namespace control_flow_test
}  // namespace placer::testing
