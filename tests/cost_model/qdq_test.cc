// Tests for QDQ models (cost_model/qdq.h, cost_model/README.md "QDQ models"): which operators form
// ONNX Runtime's integer kernels and cost INT8 and 8-bit bytes, and which DequantizeLinear,
// QuantizeLinear and Relu nodes those kernels absorb (0 time). The fixture's expected groups are the
// ones ONNX Runtime 1.30 (CPU) forms on it: its optimized graph keeps QLinearConv x2, an int8
// MaxPool, QLinearGlobalAveragePool, and a float Gemm behind the Flatten.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "cost_model/cost_model.h"
#include "cost_model/qdq.h"
#include "onnx_io/onnx_model.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace qdq_test {

constexpr int kFloat = 1, kUint8 = 2, kInt8 = 3;

int nodeNamed(const OnnxGraph& graph, const std::string& name) {
  for (int v = 0; v < static_cast<int>(graph.nodes.size()); ++v) {
    if (graph.nodes[v].name == name) return v;
  }
  ADD_FAILURE() << "no node " << name;
  return -1;
}

// Compute-bound on both kinds of device: 1 GFLOP/s at fp32, 8 GOPS at int8, no memory limit.
DeviceSpec computeBound() {
  DeviceSpec spec;
  spec.accelerators = {1, 1e9, 1e9, 1e18};
  spec.accelerators.peak_flops_by_type = {{ComputeType::INT8, 8e9}};
  spec.cpus = {1, 1e9, 1e18};
  spec.cpus.peak_flops_by_type = {{ComputeType::INT8, 8e9}};
  spec.link = {1e10, 0};
  return spec;
}

class QdqFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = loadOnnx(dataPath("fidelity/qdq_cnn.onnx"));
    ASSERT_TRUE(loaded.hasValue()) << loaded.status().message();
    graph_ = std::move(*loaded);
  }
  QdqRole role(const std::string& name) const { return qdqRole(graph_, nodeNamed(graph_, name)); }
  TimeEstimate times(const std::string& name) const {
    return RooflineCostModel().estimate(graph_, nodeNamed(graph_, name), computeBound());
  }
  OnnxGraph graph_;
};

TEST_F(QdqFixture, ConvolutionsAreInt8KernelsAndTheGemmBehindTheFlattenIsNot) {
  for (const char* conv : {"conv1", "conv2"}) {
    EXPECT_EQ(role(conv), QdqRole::Quantized) << conv;
    const int v = nodeNamed(graph_, conv);
    const OpShapeInfo info = costedShapeInfo(graph_, v);
    EXPECT_EQ(computeType(info), ComputeType::INT8) << conv;
    const OpWork work = estimateWork(info);
    EXPECT_DOUBLE_EQ(*times(conv).accelerator, work.flops / 8e9) << conv;
    EXPECT_DOUBLE_EQ(*times(conv).cpu, work.flops / 8e9) << conv;
  }
  // ONNX Runtime fuses DQ -> Gemm only when the DQ feeds the Gemm directly; here a Flatten is between,
  // and its optimized graph keeps a float Gemm.
  EXPECT_EQ(role("fc"), QdqRole::None);
  const OpShapeInfo fc = costedShapeInfo(graph_, nodeNamed(graph_, "fc"));
  EXPECT_EQ(computeType(fc), ComputeType::TF32);  // peak_flops here: no tf32 rate
  EXPECT_DOUBLE_EQ(*times("fc").accelerator, estimateWork(fc).flops / 1e9);
}

TEST_F(QdqFixture, TheKernelsReadAndWriteEightBitTensors) {
  // conv1: X [1,3,32,32] uint8, W [8,3,3,3] int8 (a DQ of a constant, folded by the loader), bias [8]
  // int32 in; Y [1,8,32,32] written as the uint8 of relu1's QuantizeLinear.
  const OpWork conv1 = estimateWork(costedShapeInfo(graph_, nodeNamed(graph_, "conv1")));
  EXPECT_DOUBLE_EQ(conv1.bytes_read, 3072 + 216 + 8 * 4);
  EXPECT_DOUBLE_EQ(conv1.bytes_written, 8192);
  EXPECT_DOUBLE_EQ(conv1.macs, 221184);  // expected.json's figure: the arithmetic does not change
  // The int8 MaxPool reads [1,16,16,16] and writes [1,16,8,8], one byte each.
  EXPECT_EQ(role("maxpool"), QdqRole::Quantized);
  const OpWork pool = estimateWork(costedShapeInfo(graph_, nodeNamed(graph_, "maxpool")));
  EXPECT_DOUBLE_EQ(pool.bytes_read, 4096);
  EXPECT_DOUBLE_EQ(pool.bytes_written, 1024);
  EXPECT_EQ(role("global_avg_pool"), QdqRole::Quantized);
}

TEST_F(QdqFixture, TheirDequantizeAndQuantizeNeighboursCostNothing) {
  for (const char* name : {"input_qdq_dequantize", "relu1", "relu1_qdq_quantize", "relu1_qdq_dequantize",
                           "relu2", "relu2_qdq_quantize", "relu2_qdq_dequantize", "maxpool_qdq_quantize",
                           "maxpool_qdq_dequantize", "gap_qdq_quantize"}) {
    EXPECT_EQ(role(name), QdqRole::Absorbed) << name;
    EXPECT_EQ(*times(name).accelerator, 0) << name;
    EXPECT_EQ(*times(name).cpu, 0) << name;
  }
  // Quantizing the float input, dequantizing for the float Gemm and the output's Q/DQ run as they are.
  for (const char* name : {"input_qdq_quantize", "gap_qdq_dequantize", "flatten", "output_qdq_quantize",
                           "output_qdq_dequantize", "logits"}) {
    EXPECT_EQ(role(name), QdqRole::None) << name;
  }
  EXPECT_GT(*times("input_qdq_quantize").accelerator, 0);
}

// A hand-built graph: tensors and nodes with producers and consumers, for the cases the fixture lacks.
class GraphMaker {
 public:
  int tensor(const std::string& name, int type, Shape shape, bool weight = false) {
    TensorInfo t;
    t.name = name;
    t.element_type = type;
    t.shape = std::move(shape);
    t.is_weight = weight;
    graph.tensors.push_back(t);
    return static_cast<int>(graph.tensors.size()) - 1;
  }
  int node(const std::string& op, std::vector<int> inputs, std::vector<int> outputs) {
    const int v = static_cast<int>(graph.nodes.size());
    OnnxNode n;
    n.name = op + std::to_string(v);
    n.op_type = op;
    n.inputs = inputs;
    n.outputs = outputs;
    for (int t : inputs)
      graph.tensors[t].consumers.push_back(v);
    for (int t : outputs)
      graph.tensors[t].producer = v;
    graph.nodes.push_back(n);
    return v;
  }
  // q -> DequantizeLinear -> a float tensor of the same shape.
  int dequantize(int q, const Shape& shape) {
    const int scale = tensor("scale" + std::to_string(q), kFloat, {}, true);
    const int out = tensor("dq" + std::to_string(q), kFloat, shape);
    node("DequantizeLinear", {q, scale}, {out});
    return out;
  }
  OnnxGraph graph;
};

TEST(Qdq, MatMulWithoutAQuantizeLinearIsAnInt8KernelWritingFloat) {
  // MatMulIntegerToFloat: DQ(uint8 activation) x DQ(int8 activation) -> float.
  GraphMaker g;
  const int a = g.dequantize(g.tensor("a", kUint8, {64, 64}), {64, 64});
  const int b = g.dequantize(g.tensor("b", kInt8, {64, 64}), {64, 64});
  const int y = g.tensor("y", kFloat, {64, 64});
  const int mm = g.node("MatMul", {a, b}, {y});
  g.graph.tensors[y].is_graph_output = true;
  EXPECT_EQ(qdqRole(g.graph, mm), QdqRole::Quantized);
  EXPECT_EQ(qdqRole(g.graph, 0), QdqRole::Absorbed);
  EXPECT_EQ(qdqRole(g.graph, 1), QdqRole::Absorbed);
  const OpShapeInfo info = quantizedShapeInfo(g.graph, mm, shapeInfo(g.graph, mm));
  EXPECT_EQ(info.input_element_types, (std::vector<int>{kUint8, kInt8}));
  EXPECT_EQ(info.output_element_types, (std::vector<int>{kFloat}));
  EXPECT_EQ(computeType(info), ComputeType::INT8);
}

TEST(Qdq, ConvWithoutAQuantizeLinearStaysFloat) {
  // ONNX Runtime's Conv rule needs the Q: without it nothing fuses, and the DQs run.
  GraphMaker g;
  const int x = g.dequantize(g.tensor("x", kUint8, {1, 4, 8, 8}), {1, 4, 8, 8});
  const int w = g.dequantize(g.tensor("w", kInt8, {4, 4, 3, 3}, true), {4, 4, 3, 3});
  const int y = g.tensor("y", kFloat, {1, 4, 6, 6});
  const int conv = g.node("Conv", {x, w}, {y});
  g.graph.tensors[y].is_graph_output = true;
  EXPECT_EQ(qdqRole(g.graph, conv), QdqRole::None);
  EXPECT_EQ(qdqRole(g.graph, 0), QdqRole::None);
  EXPECT_EQ(computeType(costedShapeInfo(g.graph, conv)), ComputeType::TF32);
}

TEST(Qdq, ADequantizeLinearAlsoReadByAFloatOperatorStays) {
  GraphMaker g;
  const int a = g.dequantize(g.tensor("a", kUint8, {64, 64}), {64, 64});
  const int b = g.dequantize(g.tensor("b", kInt8, {64, 64}), {64, 64});
  const int y = g.tensor("y", kFloat, {64, 64}), z = g.tensor("z", kFloat, {64, 64});
  const int mm = g.node("MatMul", {a, b}, {y});
  g.node("Sigmoid", {a}, {z});  // reads the float activation: no Q after it, so not a group
  EXPECT_EQ(qdqRole(g.graph, mm), QdqRole::Quantized);
  EXPECT_EQ(qdqRole(g.graph, 0), QdqRole::None) << "the Sigmoid still needs the float tensor";
  EXPECT_EQ(qdqRole(g.graph, 1), QdqRole::Absorbed);
}

// The integer operators of qlinear_ops.onnx cost INT8 through the roofline model.
TEST(Qdq, MatMulIntegerRunsAtTheInt8Rate) {
  auto loaded = loadOnnx(dataPath("fidelity/qlinear_ops.onnx"));
  ASSERT_TRUE(loaded.hasValue()) << loaded.status().message();
  const OnnxGraph& graph = *loaded;
  const DeviceSpec spec = computeBound();
  int checked = 0;
  for (int v = 0; v < static_cast<int>(graph.nodes.size()); ++v) {
    const std::string& op = graph.nodes[v].op_type;
    if (op != "MatMulInteger" && op != "ConvInteger" && op != "QLinearMatMul" && op != "QLinearConv")
      continue;
    const OpShapeInfo info = costedShapeInfo(graph, v);
    EXPECT_EQ(computeType(info), ComputeType::INT8) << op;
    const TimeEstimate times = RooflineCostModel().estimate(graph, v, spec);
    EXPECT_DOUBLE_EQ(*times.accelerator, estimateWork(info).flops / 8e9) << op;
    ++checked;
  }
  EXPECT_EQ(checked, 4);
}

}  // namespace qdq_test
}  // namespace placer::testing
