// Tests for precision-aware roofline times (cost_model/README.md, "Compute types"): which compute
// type an operator gets from its element types, which peak rate a device gives each type, and the
// bundled presets' tensor-core rates reaching the time of a compute-bound MatMul.
#include <gtest/gtest.h>

#include <limits>

#include "cost_model/cost_model.h"
#include "cost_model/device_spec.h"
#include "cost_model/roofline.h"

namespace placer::testing {
namespace compute_type_test {

// ONNX TensorProto.DataType numbers.
constexpr int kFloat = 1, kUint8 = 2, kInt8 = 3, kInt32 = 6, kFloat16 = 10, kDouble = 11, kBfloat16 = 16,
              kFloat8E4M3 = 17, kUint4 = 21, kInt4 = 22;

double elementSize(int type) {
  switch (type) {
    case kUint8:
    case kInt8:
    case kFloat8E4M3:
      return 1;
    case kFloat16:
    case kBfloat16:
      return 2;
    case kDouble:
      return 8;
    case kUint4:
    case kInt4:
      return 0.5;
    default:
      return 4;
  }
}

// An op whose inputs and outputs have the given element types.
OpShapeInfo makeOp(std::string op_type, std::vector<Shape> inputs, std::vector<int> input_types, Shape output,
                   int output_type, std::string domain = "") {
  OpShapeInfo op;
  op.op_type = std::move(op_type);
  op.domain = std::move(domain);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    op.inputs.push_back(inputs[i]);
    op.input_element_types.push_back(input_types[i]);
    op.input_element_bytes.push_back(elementSize(input_types[i]));
    op.input_is_weight.push_back(false);
  }
  op.outputs = {output};
  op.output_element_types = {output_type};
  op.output_element_bytes = {elementSize(output_type)};
  return op;
}

OpShapeInfo matMul(int type, std::int64_t n = 4, std::string domain = "") {
  return makeOp(domain.empty() ? "MatMul" : "FusedMatMul", {{n, n}, {n, n}}, {type, type}, {n, n}, type,
                domain);
}

TEST(ComputeType, NamesAreTheSpecificationKeys) {
  for (ComputeType type : {ComputeType::FP32, ComputeType::TF32, ComputeType::FP16, ComputeType::BF16,
                           ComputeType::FP8, ComputeType::INT8, ComputeType::INT4}) {
    EXPECT_EQ(computeTypeNamed(computeTypeName(type)), type) << computeTypeName(type);
  }
  EXPECT_EQ(computeTypeName(ComputeType::FP16), "fp16");
  EXPECT_EQ(computeTypeName(ComputeType::INT4), "int4");
  EXPECT_EQ(computeTypeNamed("FP16"), std::nullopt);
  EXPECT_EQ(computeTypeNamed("fp64"), std::nullopt);
}

TEST(ComputeType, MatrixOperatorsRunInTheirOperandsFormat) {
  EXPECT_EQ(computeType(matMul(kFloat16)), ComputeType::FP16);
  EXPECT_EQ(computeType(matMul(kBfloat16)), ComputeType::BF16);
  EXPECT_EQ(computeType(matMul(kFloat)), ComputeType::TF32);  // peak_flops where there is no tf32 rate
  EXPECT_EQ(computeType(matMul(kDouble)), ComputeType::FP32);
  EXPECT_EQ(computeType(matMul(0)), ComputeType::FP32);  // unknown element type
  EXPECT_EQ(computeType(matMul(kFloat16, 4, "com.microsoft")), ComputeType::FP16);
  EXPECT_EQ(computeType(matMul(kFloat16, 4, "ai.onnx.ml")), ComputeType::FP32);  // no such matrix op there

  // A Conv whose data and weight are 8-bit integers (what a QDQ group becomes, cost_model/qdq.h).
  OpShapeInfo conv =
      makeOp("Conv", {{1, 8, 8, 8}, {8, 8, 3, 3}, {8}}, {kUint8, kInt8, kInt32}, {1, 8, 6, 6}, kUint8);
  EXPECT_EQ(computeType(conv), ComputeType::INT8);
  EXPECT_EQ(computeType(makeOp("MatMul", {{4, 4}, {4, 4}}, {kInt4, kUint4}, {4, 4}, kInt32)),
            ComputeType::INT4);
  EXPECT_EQ(computeType(makeOp("MatMul", {{4, 4}, {4, 4}}, {kUint8, kInt4}, {4, 4}, kInt32)),
            ComputeType::INT8);

  // Attention runs in its activations' format.
  OpShapeInfo attention = makeOp("Attention", {{2, 8, 32}, {32, 96}, {96}}, {kFloat16, kFloat16, kFloat16},
                                 {2, 8, 32}, kFloat16, "com.microsoft");
  EXPECT_EQ(computeType(attention), ComputeType::FP16);
}

TEST(ComputeType, IntegerOperatorsRunInInt8) {
  EXPECT_EQ(computeType(makeOp("MatMulInteger", {{4, 4}, {4, 4}}, {kUint8, kInt8}, {4, 4}, kInt32)),
            ComputeType::INT8);
  EXPECT_EQ(computeType(
                makeOp("ConvInteger", {{1, 4, 8, 8}, {4, 4, 3, 3}}, {kUint8, kUint8}, {1, 4, 6, 6}, kInt32)),
            ComputeType::INT8);
  // Integer whatever the recorded types (unknown here), float8 operands of QLinearMatMul-21 aside.
  EXPECT_EQ(computeType(makeOp("QLinearConv", {{1, 4, 8, 8}}, {0}, {1, 4, 6, 6}, 0)), ComputeType::INT8);
  EXPECT_EQ(computeType(makeOp("QLinearMatMul", {{4, 4}}, {kFloat8E4M3}, {4, 4}, kFloat8E4M3)),
            ComputeType::FP8);
  EXPECT_EQ(computeType(makeOp("DynamicQuantizeMatMul", {{4, 4}, {4, 4}}, {kFloat, kInt8}, {4, 4}, kFloat,
                               "com.microsoft")),
            ComputeType::INT8);
  EXPECT_EQ(computeType(makeOp("QGemm", {{4, 4}}, {kUint8}, {4, 4}, kUint8, "com.microsoft")),
            ComputeType::INT8);
}

TEST(ComputeType, MatMulNBitsMultipliesInItsActivationsFormat) {
  // 4-bit weights are unpacked: to A's format, or with A to int8 at accuracy_level 4.
  OpShapeInfo op = makeOp("MatMulNBits", {{1, 32}, {32, 2, 8}, {32, 2}}, {kFloat16, kUint8, kFloat16},
                          {1, 32}, kFloat16, "com.microsoft");
  op.int_attributes = {{"bits", {4}}, {"block_size", {16}}, {"K", {32}}, {"N", {32}}};
  EXPECT_EQ(computeType(op), ComputeType::FP16);
  op.input_element_types[0] = kFloat;
  EXPECT_EQ(computeType(op), ComputeType::TF32);
  op.int_attributes["accuracy_level"] = {4};
  EXPECT_EQ(computeType(op), ComputeType::INT8);
}

TEST(ComputeType, OtherOperatorsRunAtTheVectorRate) {
  EXPECT_EQ(computeType(makeOp("Add", {{4, 4}, {4, 4}}, {kFloat16, kFloat16}, {4, 4}, kFloat16)),
            ComputeType::FP32);
  EXPECT_EQ(computeType(makeOp("Softmax", {{4, 4}}, {kBfloat16}, {4, 4}, kBfloat16)), ComputeType::FP32);
  EXPECT_EQ(computeType(makeOp("Relu", {{4, 4}}, {kInt8}, {4, 4}, kInt8)), ComputeType::FP32);
}

TEST(RooflineDevicePeaks, TypesWithoutAnEntryRunAtPeakFlops) {
  RooflineDevice device{1e12, 1e12, {{ComputeType::FP16, 8e12}, {ComputeType::INT8, 16e12}}};
  EXPECT_EQ(device.peakFlops(ComputeType::FP32), 1e12);
  EXPECT_EQ(device.peakFlops(ComputeType::FP16), 8e12);
  EXPECT_EQ(device.peakFlops(ComputeType::BF16), 1e12);
  EXPECT_EQ(device.peakFlops(ComputeType::TF32), 1e12);
  EXPECT_EQ(device.peakFlops(ComputeType::FP8), 1e12);
  EXPECT_EQ(device.peakFlops(ComputeType::INT4), 16e12) << "int4 unpacked to int8 where int8 has a rate";
  device.peak_flops_by_type.erase(ComputeType::INT8);
  EXPECT_EQ(device.peakFlops(ComputeType::INT4), 1e12);
  device.peak_flops_by_type[ComputeType::FP32] = 5e12;  // never read: FP32 is peak_flops
  EXPECT_EQ(device.peakFlops(ComputeType::FP32), 1e12);

  OpWork work;
  work.flops = 8e12;
  EXPECT_DOUBLE_EQ(rooflineSeconds(work, device), 8);  // FP32 by default
  EXPECT_DOUBLE_EQ(rooflineSeconds(work, device, ComputeType::FP16), 1);
  EXPECT_DOUBLE_EQ(rooflineSeconds(work, device, ComputeType::BF16), 8);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(rooflineSeconds(work, RooflineDevice{0, 1e12, {{ComputeType::FP16, 8e12}}}, ComputeType::FP16),
            inf)
      << "a device without an fp32 rate runs nothing";
}

RooflineDevice acceleratorOf(const std::string& preset) {
  auto spec = devicePreset(preset);
  EXPECT_TRUE(spec) << spec.status().message();
  const AcceleratorSpec& acc = spec->accelerators;
  return {acc.peak_flops, acc.memory_bandwidth, acc.peak_flops_by_type};
}

// A 2048^3 MatMul is compute-bound on a V100 in either format: fp32 moves 3 x 16.8 MB in 56 us
// against 1.23 ms of arithmetic at 14 TFLOP/s, fp16 half the bytes against 153 us at 112 TFLOP/s.
TEST(PrecisionRoofline, Fp16MatMulOnAV100RunsAtTheTensorCoreRate) {
  const RooflineDevice v100 = acceleratorOf("pcie3-4x16gb");
  const OpShapeInfo fp32 = matMul(kFloat, 2048), fp16 = matMul(kFloat16, 2048);
  const double flops = 2.0 * 2048 * 2048 * 2048;
  const double t32 = rooflineSeconds(estimateWork(fp32), v100, computeType(fp32));
  const double t16 = rooflineSeconds(estimateWork(fp16), v100, computeType(fp16));
  EXPECT_DOUBLE_EQ(t32, flops / 14e12) << "float32 at the FP32 rate: a V100 has no tf32";
  EXPECT_DOUBLE_EQ(t16, flops / 112e12);
  EXPECT_DOUBLE_EQ(t32 / t16, 8);
  // An element-wise fp16 op stays at the vector rate (it is memory-bound anyway).
  OpShapeInfo add = makeOp("Add", {{2048, 2048}, {2048, 2048}}, {kFloat16, kFloat16}, {2048, 2048}, kFloat16);
  const OpWork add_work = estimateWork(add);
  EXPECT_DOUBLE_EQ(rooflineSeconds(add_work, v100, computeType(add)),
                   std::max(add_work.flops / 14e12, 3 * 2048.0 * 2048 * 2 / 900e9));
}

TEST(PrecisionRoofline, Float32MatMulOnAnA100RunsAtTheTf32Rate) {
  const RooflineDevice a100 = acceleratorOf("pcie4-2xa100-40gb");
  const OpShapeInfo fp32 = matMul(kFloat, 4096);
  const double flops = 2.0 * 4096 * 4096 * 4096;
  EXPECT_DOUBLE_EQ(rooflineSeconds(estimateWork(fp32), a100, computeType(fp32)), flops / 156e12);
  const OpShapeInfo int8 =
      makeOp("MatMulInteger", {{4096, 4096}, {4096, 4096}}, {kUint8, kInt8}, {4096, 4096}, kInt32);
  OpWork work;
  work.flops = flops;  // the formula for MatMulInteger is not what this test is about
  EXPECT_DOUBLE_EQ(rooflineSeconds(work, a100, computeType(int8)), flops / 624e12);
}

// The whole path: the loader's element types reach the roofline model's times.
TEST(PrecisionRoofline, RooflineCostModelUsesTheElementTypes) {
  OnnxGraph graph;
  for (const char* name : {"a", "b", "y"}) {
    TensorInfo t;
    t.name = name;
    t.element_type = kFloat16;
    t.shape = Shape{1024, 1024};
    graph.tensors.push_back(t);
  }
  graph.tensors[0].is_graph_input = true;
  graph.tensors[1].is_weight = true;
  graph.tensors[2].is_graph_output = true;
  OnnxNode node;
  node.name = "mm";
  node.op_type = "MatMul";
  node.inputs = {0, 1};
  node.outputs = {2};
  graph.nodes.push_back(node);
  graph.tensors[0].consumers = graph.tensors[1].consumers = {0};
  graph.tensors[2].producer = 0;

  const OpShapeInfo info = shapeInfo(graph, 0);
  EXPECT_EQ(info.input_element_types, (std::vector<int>{kFloat16, kFloat16}));
  EXPECT_EQ(info.output_element_types, (std::vector<int>{kFloat16}));
  auto spec = devicePreset("pcie3-4x16gb");
  ASSERT_TRUE(spec);
  const TimeEstimate times = RooflineCostModel().estimate(graph, 0, *spec);
  const double flops = 2.0 * 1024 * 1024 * 1024;  // 19 us at 112 TFLOP/s, 7 us of bytes at 900 GB/s
  EXPECT_DOUBLE_EQ(*times.accelerator, flops / 112e12);
  EXPECT_DOUBLE_EQ(*times.cpu, flops / 7.04e10) << "a Broadwell core has no fp16 rate";
}

}  // namespace compute_type_test
}  // namespace placer::testing
