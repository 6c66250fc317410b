// Tests for the roofline operator costs (cost_model/roofline.h). Every expected value is worked out
// by hand in the comment beside it, from the formulas in cost_model/README.md; float32 tensors are 4
// bytes per element unless a test says otherwise.
#include "cost_model/roofline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace placer::testing {
namespace roofline_test {

// An op with float32 tensors, none of them marked as weights.
OpShapeInfo makeOp(std::string op_type, std::vector<std::optional<Shape>> inputs,
                   std::vector<std::optional<Shape>> outputs) {
  OpShapeInfo op;
  op.op_type = std::move(op_type);
  op.input_element_bytes.assign(inputs.size(), 4);
  op.output_element_bytes.assign(outputs.size(), 4);
  op.input_is_weight.assign(inputs.size(), false);
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  return op;
}

TEST(RooflineConv, ResNet3x3) {
  OpShapeInfo op = makeOp("Conv", {Shape{1, 64, 56, 56}, Shape{64, 64, 3, 3}}, {Shape{1, 64, 56, 56}});
  op.int_attributes = {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}, {"group", {1}}};
  op.input_is_weight = {false, true};
  OpWork work = estimateWork(op);
  // MACs = N·Cout·H·W·(Cin/group)·kh·kw = 1·64·56·56·64·9 = 200,704·576 = 115,605,504.
  EXPECT_DOUBLE_EQ(work.macs, 115'605'504);
  EXPECT_DOUBLE_EQ(work.flops, 231'211'008);  // 2·MACs, no bias
  // Read X (1·64·56·56 = 200,704) and W (64·64·9 = 36,864): 237,568·4 = 950,272 bytes.
  EXPECT_DOUBLE_EQ(work.bytes_read, 950'272);
  EXPECT_DOUBLE_EQ(work.bytes_written, 802'816);  // 200,704·4
  EXPECT_TRUE(work.estimated);
  EXPECT_EQ(work.note, "");
}

TEST(RooflineConv, Depthwise) {
  // MobileNet depthwise 3x3: group = Cin = Cout = 32, W = {32, 1, 3, 3}.
  OpShapeInfo op = makeOp("Conv", {Shape{1, 32, 112, 112}, Shape{32, 1, 3, 3}}, {Shape{1, 32, 112, 112}});
  op.int_attributes = {{"kernel_shape", {3, 3}}, {"group", {32}}};
  OpWork work = estimateWork(op);
  // MACs = 1·32·112·112·(32/32)·9 = 401,408·9 = 3,612,672.
  EXPECT_DOUBLE_EQ(work.macs, 3'612'672);
  EXPECT_DOUBLE_EQ(work.flops, 7'225'344);
}

TEST(RooflineConv, Grouped) {
  // Cin = 64, group = 4, so W = {Cout = 128, Cin/group = 16, 3, 3}.
  OpShapeInfo op = makeOp("Conv", {Shape{1, 64, 28, 28}, Shape{128, 16, 3, 3}}, {Shape{1, 128, 28, 28}});
  op.int_attributes = {{"kernel_shape", {3, 3}}, {"group", {4}}};
  OpWork work = estimateWork(op);
  // MACs = 1·128·28·28·16·9 = 100,352·144 = 14,450,688.
  EXPECT_DOUBLE_EQ(work.macs, 14'450'688);
  EXPECT_DOUBLE_EQ(work.flops, 28'901'376);
}

TEST(RooflineConv, WithBias) {
  // ResNet stem: 7x7 stride 2, 3 -> 64 channels, 224x224 -> 112x112, bias {64}.
  OpShapeInfo op =
      makeOp("Conv", {Shape{1, 3, 224, 224}, Shape{64, 3, 7, 7}, Shape{64}}, {Shape{1, 64, 112, 112}});
  OpWork work = estimateWork(op);
  // MACs = 1·64·112·112·3·49 = 802,816·147 = 118,013,952.
  EXPECT_DOUBLE_EQ(work.macs, 118'013'952);
  // FLOPs = 2·118,013,952 + 802,816 (one bias add per output element) = 236,830,720.
  EXPECT_DOUBLE_EQ(work.flops, 236'830'720);
  // Read 3·224·224 + 64·3·49 + 64 = 150,528 + 9,408 + 64 = 160,000 elements = 640,000 bytes.
  EXPECT_DOUBLE_EQ(work.bytes_read, 640'000);
  EXPECT_DOUBLE_EQ(work.bytes_written, 3'211'264);  // 802,816·4
}

TEST(RooflineConv, TransposeWithBias) {
  // U-Net up-convolution: Cin = 256 -> Cout = 128, 2x2 stride 2, 14x14 -> 28x28; W = {Cin, Cout/group, 2, 2}.
  OpShapeInfo op = makeOp("ConvTranspose", {Shape{1, 256, 14, 14}, Shape{256, 128, 2, 2}, Shape{128}},
                          {Shape{1, 128, 28, 28}});
  op.int_attributes = {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}};
  OpWork work = estimateWork(op);
  // MACs = N·Cin·H·W·(Cout/group)·kh·kw = 1·256·14·14·128·4 = 50,176·512 = 25,690,112.
  EXPECT_DOUBLE_EQ(work.macs, 25'690'112);
  // FLOPs = 2·25,690,112 + 128·28·28 (bias) = 51,380,224 + 100,352 = 51,480,576.
  EXPECT_DOUBLE_EQ(work.flops, 51'480'576);
  EXPECT_TRUE(work.estimated);
}

TEST(RooflineGemm, TransBWithBias) {
  // Classifier head: A {8, 512}, B {1000, 512} with transB = 1, C {1000} -> Y {8, 1000}.
  OpShapeInfo op = makeOp("Gemm", {Shape{8, 512}, Shape{1000, 512}, Shape{1000}}, {Shape{8, 1000}});
  op.int_attributes = {{"transB", {1}}};
  OpWork work = estimateWork(op);
  // MACs = M·N·K = 8·1000·512 = 4,096,000.
  EXPECT_DOUBLE_EQ(work.macs, 4'096'000);
  // FLOPs = 2·4,096,000 + 8·1000 (C) = 8,200,000.
  EXPECT_DOUBLE_EQ(work.flops, 8'200'000);
  // Read 8·512 + 1000·512 + 1000 = 4,096 + 512,000 + 1,000 = 517,096 elements = 2,068,384 bytes.
  EXPECT_DOUBLE_EQ(work.bytes_read, 2'068'384);
  EXPECT_DOUBLE_EQ(work.bytes_written, 32'000);  // 8,000·4
}

TEST(RooflineGemm, TransA) {
  // A {512, 8} with transA = 1 is 8x512; B {512, 1000}; no C.
  OpShapeInfo op = makeOp("Gemm", {Shape{512, 8}, Shape{512, 1000}}, {Shape{8, 1000}});
  op.int_attributes = {{"transA", {1}}, {"transB", {0}}};
  OpWork work = estimateWork(op);
  EXPECT_DOUBLE_EQ(work.macs, 4'096'000);  // 8·1000·512
  EXPECT_DOUBLE_EQ(work.flops, 8'192'000);
}

TEST(RooflineMatMul, TwoD) {
  // BERT-base FFN: {128, 768} × {768, 3072}.
  OpWork work = estimateWork(makeOp("MatMul", {Shape{128, 768}, Shape{768, 3072}}, {Shape{128, 3072}}));
  // MACs = 128·3072·768 = 393,216·768 = 301,989,888.
  EXPECT_DOUBLE_EQ(work.macs, 301'989'888);
  EXPECT_DOUBLE_EQ(work.flops, 603'979'776);
}

TEST(RooflineMatMul, BatchedBroadcast) {
  // {2,1,4,5} × {3,5,6}: batch dims {2,1} and {3} broadcast to {2,3}; Y = {2,3,4,6}.
  OpWork work = estimateWork(makeOp("MatMul", {Shape{2, 1, 4, 5}, Shape{3, 5, 6}}, {Shape{2, 3, 4, 6}}));
  // MACs = (2·3)·M·N·K = 6·4·6·5 = 720.
  EXPECT_DOUBLE_EQ(work.macs, 720);
  EXPECT_DOUBLE_EQ(work.flops, 1'440);
  EXPECT_DOUBLE_EQ(work.bytes_read, 520);     // (40 + 90)·4
  EXPECT_DOUBLE_EQ(work.bytes_written, 576);  // 144·4
  EXPECT_TRUE(work.estimated);
}

TEST(RooflineMatMul, OneDOperands) {
  // {5} × {5,6}: A becomes {1,5}, Y = {6}; MACs = 1·6·5 = 30.
  EXPECT_DOUBLE_EQ(estimateWork(makeOp("MatMul", {Shape{5}, Shape{5, 6}}, {Shape{6}})).macs, 30);
  // {4,5} × {5}: B becomes {5,1}, Y = {4}; MACs = 4·1·5 = 20.
  EXPECT_DOUBLE_EQ(estimateWork(makeOp("MatMul", {Shape{4, 5}, Shape{5}}, {Shape{4}})).macs, 20);
  // {5} × {5}: a dot product, Y = {}; MACs = 5.
  OpWork dot = estimateWork(makeOp("MatMul", {Shape{5}, Shape{5}}, {Shape{}}));
  EXPECT_DOUBLE_EQ(dot.macs, 5);
  EXPECT_DOUBLE_EQ(dot.flops, 10);
  EXPECT_DOUBLE_EQ(dot.bytes_written, 4);  // a scalar is one element
  // {2,5,3} × {3}: B becomes {3,1}, batch 2, Y = {2,5}; MACs = 2·5·1·3 = 30.
  EXPECT_DOUBLE_EQ(estimateWork(makeOp("MatMul", {Shape{2, 5, 3}, Shape{3}}, {Shape{2, 5}})).macs, 30);
}

TEST(RooflineMatMul, IncompatibleShapesFallBack) {
  // K = 3 vs 4 cannot multiply: 1 FLOP per output element (2·5 = 10), flagged.
  OpWork work = estimateWork(makeOp("MatMul", {Shape{2, 3}, Shape{4, 5}}, {Shape{2, 5}}));
  EXPECT_DOUBLE_EQ(work.macs, 0);
  EXPECT_DOUBLE_EQ(work.flops, 10);
  EXPECT_FALSE(work.estimated);
  EXPECT_NE(work.note.find("do not broadcast"), std::string::npos);
}

TEST(RooflinePool, MaxAverageGlobal) {
  // ResNet max pool 3x3 stride 2: 112x112 -> 56x56, 64 channels.
  OpShapeInfo max_pool = makeOp("MaxPool", {Shape{1, 64, 112, 112}}, {Shape{1, 64, 56, 56}});
  max_pool.int_attributes = {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}};
  // FLOPs = output elements · ∏kernel = 200,704·9 = 1,806,336.
  EXPECT_DOUBLE_EQ(estimateWork(max_pool).flops, 1'806'336);
  EXPECT_DOUBLE_EQ(estimateWork(max_pool).macs, 0);

  OpShapeInfo average = makeOp("AveragePool", {Shape{1, 8, 4, 4}}, {Shape{1, 8, 2, 2}});
  average.int_attributes = {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}};
  EXPECT_DOUBLE_EQ(estimateWork(average).flops, 128);  // (8·2·2)·(2·2) = 32·4

  // Global pooling reads every input element once: 1·2048·7·7 = 100,352.
  OpWork global = estimateWork(makeOp("GlobalAveragePool", {Shape{1, 2048, 7, 7}}, {Shape{1, 2048, 1, 1}}));
  EXPECT_DOUBLE_EQ(global.flops, 100'352);
  EXPECT_DOUBLE_EQ(global.bytes_read, 401'408);   // 100,352·4
  EXPECT_DOUBLE_EQ(global.bytes_written, 8'192);  // 2,048·4
}

TEST(RooflinePool, MissingKernelShapeFallsBack) {
  OpWork work = estimateWork(makeOp("MaxPool", {Shape{1, 64, 112, 112}}, {Shape{1, 64, 56, 56}}));
  EXPECT_DOUBLE_EQ(work.flops, 200'704);  // 1 per output element: 64·56·56
  EXPECT_FALSE(work.estimated);
  EXPECT_NE(work.note.find("kernel_shape"), std::string::npos);
}

TEST(RooflineNormalization, BatchNormInference) {
  OpWork work = estimateWork(makeOp("BatchNormalization",
                                    {Shape{1, 64, 56, 56}, Shape{64}, Shape{64}, Shape{64}, Shape{64}},
                                    {Shape{1, 64, 56, 56}}));
  // Scale and shift per element: 2·200,704 = 401,408.
  EXPECT_DOUBLE_EQ(work.flops, 401'408);
  EXPECT_DOUBLE_EQ(work.macs, 0);
  // Read X (200,704) and four {64} parameters (256): 200,960·4 = 803,840 bytes.
  EXPECT_DOUBLE_EQ(work.bytes_read, 803'840);
  EXPECT_DOUBLE_EQ(work.bytes_written, 802'816);
}

TEST(RooflineNormalization, LayerAndInstanceNorm) {
  // BERT LayerNorm over {1,128,768} = 98,304 elements.
  OpWork with_bias = estimateWork(
      makeOp("LayerNormalization", {Shape{1, 128, 768}, Shape{768}, Shape{768}}, {Shape{1, 128, 768}}));
  EXPECT_DOUBLE_EQ(with_bias.flops, 786'432);  // 8·98,304
  OpWork no_bias =
      estimateWork(makeOp("LayerNormalization", {Shape{1, 128, 768}, Shape{768}}, {Shape{1, 128, 768}}));
  EXPECT_DOUBLE_EQ(no_bias.flops, 688'128);  // 7·98,304
  OpWork instance = estimateWork(
      makeOp("InstanceNormalization", {Shape{2, 16, 8, 8}, Shape{16}, Shape{16}}, {Shape{2, 16, 8, 8}}));
  EXPECT_DOUBLE_EQ(instance.flops, 16'384);  // 8·(2·16·8·8 = 2,048)
}

TEST(RooflineNormalization, DecomposedLayerNormIsTheSumOfItsOps) {
  // ReduceMean, Sub, Pow, ReduceMean, Add(eps), Sqrt, Div, Mul(scale), Add(bias) over {1,128,768}:
  // the two ReduceMeans read 98,304 elements each, Sub/Pow/Div/Mul/Add(bias) write 98,304 each, and
  // Add(eps)/Sqrt work on the 128 row statistics: 7·98,304 + 2·128 = 688,384.
  Shape full{1, 128, 768}, row{1, 128, 1}, channel{768};
  double total = 0;
  total += estimateWork(makeOp("ReduceMean", {full}, {row})).flops;
  total += estimateWork(makeOp("Sub", {full, row}, {full})).flops;
  total += estimateWork(makeOp("Pow", {full, Shape{}}, {full})).flops;
  total += estimateWork(makeOp("ReduceMean", {full}, {row})).flops;
  total += estimateWork(makeOp("Add", {row, Shape{}}, {row})).flops;
  total += estimateWork(makeOp("Sqrt", {row}, {row})).flops;
  total += estimateWork(makeOp("Div", {full, row}, {full})).flops;
  total += estimateWork(makeOp("Mul", {full, channel}, {full})).flops;
  total += estimateWork(makeOp("Add", {full, channel}, {full})).flops;
  EXPECT_DOUBLE_EQ(total, 688'384);
}

TEST(RooflineElementwise, SoftmaxAndActivations) {
  // Attention scores {1,12,128,128} = 196,608 elements; Softmax counts 8 per element.
  Shape scores{1, 12, 128, 128};
  EXPECT_DOUBLE_EQ(estimateWork(makeOp("Softmax", {scores}, {scores})).flops, 1'572'864);
  EXPECT_DOUBLE_EQ(estimateWork(makeOp("LogSoftmax", {scores}, {scores})).flops, 1'572'864);
  Shape x{1, 64, 56, 56};  // 200,704 elements
  EXPECT_DOUBLE_EQ(estimateWork(makeOp("Relu", {x}, {x})).flops, 200'704);
  EXPECT_DOUBLE_EQ(estimateWork(makeOp("Clip", {x, Shape{}, Shape{}}, {x})).flops, 200'704);
  EXPECT_DOUBLE_EQ(estimateWork(makeOp("LeakyRelu", {x}, {x})).flops, 401'408);   // 2 per element
  EXPECT_DOUBLE_EQ(estimateWork(makeOp("Sigmoid", {x}, {x})).flops, 802'816);     // 4 per element
  EXPECT_DOUBLE_EQ(estimateWork(makeOp("HardSwish", {x}, {x})).flops, 802'816);   // 3 + 1
  EXPECT_DOUBLE_EQ(estimateWork(makeOp("Softplus", {x}, {x})).flops, 1'806'336);  // 4 + 1 + 4
  OpWork cast = estimateWork(makeOp("Cast", {Shape{10}}, {Shape{10}}));
  EXPECT_DOUBLE_EQ(cast.flops, 10);
}

TEST(RooflineElementwise, BroadcastAndVariadic) {
  // Add {1,128,768} + {768}: one FLOP per output element = 98,304.
  OpWork add = estimateWork(makeOp("Add", {Shape{1, 128, 768}, Shape{768}}, {Shape{1, 128, 768}}));
  EXPECT_DOUBLE_EQ(add.flops, 98'304);
  EXPECT_DOUBLE_EQ(add.bytes_read, 396'288);  // (98,304 + 768)·4
  EXPECT_DOUBLE_EQ(estimateWork(makeOp("Where", {Shape{4, 1}, Shape{1, 3}, Shape{}}, {Shape{4, 3}})).flops,
                   12);
  // Sum of 3 inputs: 2 adds per output element = 2·4; Mean of 2: 1 add + 1 divide = 2·4.
  EXPECT_DOUBLE_EQ(estimateWork(makeOp("Sum", {Shape{4}, Shape{4}, Shape{4}}, {Shape{4}})).flops, 8);
  EXPECT_DOUBLE_EQ(estimateWork(makeOp("Mean", {Shape{4}, Shape{4}}, {Shape{4}})).flops, 8);
  EXPECT_DOUBLE_EQ(estimateWork(makeOp("Max", {Shape{4}, Shape{1}}, {Shape{4}})).flops, 4);
}

TEST(RooflineReduce, PerInputElement) {
  // ReduceMean over the last axis of {1,128,768}: one FLOP per input element = 98,304.
  OpShapeInfo mean = makeOp("ReduceMean", {Shape{1, 128, 768}}, {Shape{1, 128, 1}});
  mean.int_attributes = {{"axes", {-1}}, {"keepdims", {1}}};
  OpWork work = estimateWork(mean);
  EXPECT_DOUBLE_EQ(work.flops, 98'304);
  EXPECT_DOUBLE_EQ(work.bytes_read, 393'216);  // 98,304·4
  EXPECT_DOUBLE_EQ(work.bytes_written, 512);   // 128·4
  // Square and add: 2 per input element.
  EXPECT_DOUBLE_EQ(estimateWork(makeOp("ReduceSumSquare", {Shape{1, 128, 768}}, {Shape{1, 128, 1}})).flops,
                   196'608);
  EXPECT_DOUBLE_EQ(estimateWork(makeOp("ReduceMax", {Shape{6, 7}}, {Shape{}})).flops, 42);
}

TEST(RooflineResize, PerOutputElement) {
  OpWork work =
      estimateWork(makeOp("Resize", {Shape{1, 3, 8, 8}, std::nullopt, Shape{4}}, {Shape{1, 3, 16, 16}}));
  EXPECT_DOUBLE_EQ(work.flops, 768);  // 3·16·16
  EXPECT_TRUE(work.estimated);        // the omitted roi input is not a missing shape
}

TEST(RooflineDataMovement, ZeroFlopsBytesOnly) {
  // Transpose {1,12,128,64}: 98,304 elements read and written.
  OpWork transpose = estimateWork(makeOp("Transpose", {Shape{1, 12, 128, 64}}, {Shape{1, 128, 12, 64}}));
  EXPECT_DOUBLE_EQ(transpose.flops, 0);
  EXPECT_DOUBLE_EQ(transpose.bytes_read, 393'216);
  EXPECT_DOUBLE_EQ(transpose.bytes_written, 393'216);
  EXPECT_TRUE(transpose.estimated);

  OpWork concat = estimateWork(makeOp("Concat", {Shape{1, 2}, Shape{1, 3}}, {Shape{1, 5}}));
  EXPECT_DOUBLE_EQ(concat.flops, 0);
  EXPECT_DOUBLE_EQ(concat.bytes_read, 20);  // (2 + 3)·4
  EXPECT_DOUBLE_EQ(concat.bytes_written, 20);

  // Embedding lookup: only the 128 gathered rows of the {30522, 768} table are read, plus the int64
  // indices: 128·768·4 + 128·8 = 393,216 + 1,024 = 394,240 bytes.
  OpShapeInfo gather = makeOp("Gather", {Shape{30522, 768}, Shape{1, 128}}, {Shape{1, 128, 768}});
  gather.input_element_bytes = {4, 8};
  gather.input_is_weight = {true, false};
  OpWork gathered = estimateWork(gather);
  EXPECT_DOUBLE_EQ(gathered.flops, 0);
  EXPECT_DOUBLE_EQ(gathered.bytes_read, 394'240);
  EXPECT_DOUBLE_EQ(gathered.bytes_written, 393'216);

  // Shape reads only metadata and writes 3 int64s.
  OpShapeInfo shape = makeOp("Shape", {Shape{1, 128, 768}}, {Shape{3}});
  shape.output_element_bytes = {8};
  OpWork shape_work = estimateWork(shape);
  EXPECT_DOUBLE_EQ(shape_work.bytes_read, 0);
  EXPECT_DOUBLE_EQ(shape_work.bytes_written, 24);
}

TEST(RooflineDataMovement, ViewsCostNothing) {
  for (const char* op_type : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout"}) {
    OpWork work = estimateWork(makeOp(op_type, {Shape{1, 128, 768}, Shape{2}}, {Shape{128, 768}}));
    EXPECT_DOUBLE_EQ(work.flops, 0) << op_type;
    EXPECT_DOUBLE_EQ(work.bytes_read, 0) << op_type;
    EXPECT_DOUBLE_EQ(work.bytes_written, 0) << op_type;
    EXPECT_TRUE(work.estimated) << op_type;
  }
  // A view costs nothing even when its shapes are unknown.
  EXPECT_TRUE(estimateWork(makeOp("Reshape", {std::nullopt, std::nullopt}, {std::nullopt})).estimated);
}

TEST(RooflineDataMovement, AViewWritingAGraphOutputCopies) {
  for (const char* op_type : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout"}) {
    OpShapeInfo op = makeOp(op_type, {Shape{1, 128, 768}}, {Shape{128, 768}});
    op.view_copies = true;
    OpWork work = estimateWork(op);
    EXPECT_DOUBLE_EQ(work.flops, 0) << op_type;
    EXPECT_DOUBLE_EQ(work.bytes_read, 128 * 768 * 4) << op_type;
    EXPECT_DOUBLE_EQ(work.bytes_written, 128 * 768 * 4) << op_type;
  }
}

TEST(RooflineFallback, UnknownOpType) {
  OpWork work = estimateWork(makeOp("MyCustomOp", {Shape{2, 3}}, {Shape{2, 3}}));
  EXPECT_DOUBLE_EQ(work.flops, 6);  // 1 per output element
  EXPECT_DOUBLE_EQ(work.bytes_read, 24);
  EXPECT_DOUBLE_EQ(work.bytes_written, 24);
  EXPECT_FALSE(work.estimated);
  EXPECT_EQ(work.note, "no formula for MyCustomOp");
}

TEST(RooflineFallback, Domains) {
  OpShapeInfo relu = makeOp("Relu", {Shape{5}}, {Shape{5}});
  relu.domain = "ai.onnx";
  EXPECT_TRUE(estimateWork(relu).estimated);
  // An op of another domain with a default-domain name is not assumed to mean the same thing.
  OpShapeInfo other = makeOp("Relu", {Shape{5}}, {Shape{5}});
  other.domain = "com.example";
  OpWork work = estimateWork(other);
  EXPECT_DOUBLE_EQ(work.flops, 5);
  EXPECT_FALSE(work.estimated);
  EXPECT_EQ(work.note, "no formula for Relu (domain com.example)");
  // ONNX Runtime's contrib Gelu has its own formula (cost_model/extended_work.h): 4 per element.
  OpShapeInfo contrib = makeOp("Gelu", {Shape{5}}, {Shape{5}});
  contrib.domain = "com.microsoft";
  EXPECT_TRUE(estimateWork(contrib).estimated);
  EXPECT_DOUBLE_EQ(estimateWork(contrib).flops, 20);
}

TEST(RooflineFallback, MissingOutputShape) {
  OpWork work = estimateWork(makeOp("Conv", {Shape{1, 64, 56, 56}, Shape{64, 64, 3, 3}}, {std::nullopt}));
  EXPECT_DOUBLE_EQ(work.flops, 0);
  EXPECT_DOUBLE_EQ(work.bytes_read, 950'272);  // the known inputs still count
  EXPECT_DOUBLE_EQ(work.bytes_written, 0);
  EXPECT_FALSE(work.estimated);
  EXPECT_EQ(work.note, "output shape unknown");
  // Shape-preserving and broadcasting ops count from their inputs instead.
  OpWork sigmoid = estimateWork(makeOp("Sigmoid", {Shape{10}}, {std::nullopt}));
  EXPECT_DOUBLE_EQ(sigmoid.flops, 40);  // 4·10
  EXPECT_FALSE(sigmoid.estimated);
  OpWork add = estimateWork(makeOp("Add", {Shape{3, 1}, Shape{4}}, {std::nullopt}));
  EXPECT_DOUBLE_EQ(add.flops, 12);  // broadcast {3,4}
  EXPECT_FALSE(add.estimated);
  OpWork unknown = estimateWork(makeOp("MyCustomOp", {Shape{2}}, {}));
  EXPECT_DOUBLE_EQ(unknown.flops, 0);
  EXPECT_EQ(unknown.note, "output shape unknown; no formula for MyCustomOp");
}

TEST(RooflineFallback, MissingInputShapes) {
  // Conv without the weight shape: kernel_shape and Cin/group from X give the same MACs as
  // ResNet3x3 (115,605,504), flagged because W's bytes are missing.
  OpShapeInfo conv = makeOp("Conv", {Shape{1, 64, 56, 56}, std::nullopt}, {Shape{1, 64, 56, 56}});
  conv.int_attributes = {{"kernel_shape", {3, 3}}};
  OpWork work = estimateWork(conv);
  EXPECT_DOUBLE_EQ(work.macs, 115'605'504);
  EXPECT_FALSE(work.estimated);
  // Without kernel_shape either: 1 FLOP per output element (64·56·56 = 200,704).
  conv.int_attributes.clear();
  work = estimateWork(conv);
  EXPECT_DOUBLE_EQ(work.macs, 0);
  EXPECT_DOUBLE_EQ(work.flops, 200'704);
  EXPECT_FALSE(work.estimated);
  // MatMul with one operand unknown: MACs = output elements · K = (128·3072)·768 = 301,989,888.
  OpWork matmul = estimateWork(makeOp("MatMul", {std::nullopt, Shape{768, 3072}}, {Shape{128, 3072}}));
  EXPECT_DOUBLE_EQ(matmul.macs, 301'989'888);
  EXPECT_FALSE(matmul.estimated);
  // Gemm with B unknown: N from Y; MACs = 8·1000·512 = 4,096,000.
  OpShapeInfo gemm = makeOp("Gemm", {Shape{8, 512}, std::nullopt}, {Shape{8, 1000}});
  gemm.int_attributes = {{"transB", {1}}};
  EXPECT_DOUBLE_EQ(estimateWork(gemm).macs, 4'096'000);
  // Reduce with its input unknown: 1 per output element.
  OpWork reduce = estimateWork(makeOp("ReduceSum", {std::nullopt}, {Shape{1, 128, 1}}));
  EXPECT_DOUBLE_EQ(reduce.flops, 128);
  EXPECT_FALSE(reduce.estimated);
  // Negative (symbolic) dims make a shape unknown.
  OpWork symbolic = estimateWork(makeOp("Relu", {Shape{-1, 10}}, {Shape{-1, 10}}));
  EXPECT_DOUBLE_EQ(symbolic.flops, 0);
  EXPECT_FALSE(symbolic.estimated);
}

TEST(RooflineFallback, MissingElementSize) {
  OpShapeInfo op = makeOp("Relu", {Shape{10}}, {Shape{10}});
  op.output_element_bytes.clear();
  OpWork work = estimateWork(op);
  EXPECT_DOUBLE_EQ(work.bytes_read, 40);
  EXPECT_DOUBLE_EQ(work.bytes_written, 0);
  EXPECT_FALSE(work.estimated);
  EXPECT_EQ(work.note, "element size of output 0 unknown");
}

// If: then = MatMul {4,8}x{8,8} (512 FLOPs; reads 128 + 256 B, writes 128 B), else = Relu over {4,8}
// (32 FLOPs; 128 B each way): the then branch, in FLOPs and bytes. Then a branch with more FLOPs and
// a branch moving more bytes: FLOPs from one, bytes from the other, and on any device the time is the
// slower branch's.
TEST(RooflineControlFlow, IfTakesTheCostlierBranch) {
  OpShapeInfo op = makeOp("If", {Shape{}}, {Shape{4, 8}});
  op.subgraphs = {{"then_branch", {makeOp("MatMul", {Shape{4, 8}, Shape{8, 8}}, {Shape{4, 8}})}},
                  {"else_branch", {makeOp("Relu", {Shape{4, 8}}, {Shape{4, 8}})}}};
  OpWork work = estimateWork(op);
  EXPECT_TRUE(work.estimated) << work.note;
  EXPECT_DOUBLE_EQ(work.flops, 512);
  EXPECT_DOUBLE_EQ(work.macs, 256);
  EXPECT_DOUBLE_EQ(work.bytes_read, 128 + 256);
  EXPECT_DOUBLE_EQ(work.bytes_written, 128);

  // Relu over {64, 64}: 4096 FLOPs, 16384 B each way. Concat of two {128, 64} into {128, 128}:
  // 0 FLOPs, 65536 B each way.
  op.subgraphs = {{"then_branch", {makeOp("Relu", {Shape{64, 64}}, {Shape{64, 64}})}},
                  {"else_branch", {makeOp("Concat", {Shape{128, 64}, Shape{128, 64}}, {Shape{128, 128}})}}};
  work = estimateWork(op);
  EXPECT_DOUBLE_EQ(work.flops, 4096);
  EXPECT_DOUBLE_EQ(work.bytes_read, 65536);
  EXPECT_DOUBLE_EQ(work.bytes_written, 65536);
  for (RooflineDevice device : {RooflineDevice{1e9, 1e12}, RooflineDevice{1e12, 1e9}}) {
    double slower = 0;
    for (const SubgraphShapeInfo& branch : op.subgraphs)
      slower = std::max(slower, rooflineSeconds(estimateWork(branch.nodes[0]), device));
    EXPECT_DOUBLE_EQ(rooflineSeconds(work, device), slower);
  }
}

// Loop and Scan: the body (Relu over 32 elements, 32 FLOPs, 128 B in and out) times body_runs; once,
// with a note, when it is unknown. Notes from inside the body keep their attribute.
TEST(RooflineControlFlow, LoopAndScanRunTheirBody) {
  for (const char* op_type : {"Loop", "Scan"}) {
    OpShapeInfo op = makeOp(op_type, {}, {Shape{4, 8}});
    op.subgraphs = {{"body", {makeOp("Relu", {Shape{4, 8}}, {Shape{4, 8}})}}};
    op.body_runs = 5;
    OpWork work = estimateWork(op);
    EXPECT_TRUE(work.estimated) << work.note;
    EXPECT_DOUBLE_EQ(work.flops, 5 * 32);
    EXPECT_DOUBLE_EQ(work.bytes_read, 5 * 128);
    EXPECT_DOUBLE_EQ(work.bytes_written, 5 * 128);
    op.body_runs.reset();
    work = estimateWork(op);
    EXPECT_DOUBLE_EQ(work.flops, 32);
    EXPECT_FALSE(work.estimated);
    EXPECT_EQ(work.note, std::string(op_type) +
                             (std::string(op_type) == "Loop" ? ": trip count" : ": scan length") +
                             " unknown, body counted once");
  }
  OpShapeInfo loop = makeOp("Loop", {}, {std::nullopt});
  loop.subgraphs = {
      {"body",
       {makeOp("Relu", {Shape{4, 8}}, {std::nullopt}), makeOp("Tanh", {std::nullopt}, {std::nullopt})}}};
  loop.body_runs = 2;
  const OpWork work = estimateWork(loop);
  EXPECT_DOUBLE_EQ(work.flops, 2 * 32);
  EXPECT_EQ(work.note, "body: output shape unknown");

  // Without its bodies a Loop is an op type without a formula.
  EXPECT_EQ(estimateWork(makeOp("Loop", {}, {Shape{4}})).note, "no formula for Loop");
}

TEST(RooflineSeconds, ComputeBound) {
  OpWork work;
  work.flops = 8e12;
  work.bytes_read = 6e8;
  work.bytes_written = 4e8;
  RooflineDevice device{4e12, 1e12};  // 4 TFLOP/s, 1 TB/s
  // max(8e12 / 4e12 = 2 s, 1e9 / 1e12 = 0.001 s) = 2 s.
  EXPECT_DOUBLE_EQ(rooflineSeconds(work, device), 2);
}

TEST(RooflineSeconds, MemoryBound) {
  OpWork work;
  work.flops = 1e6;
  work.bytes_read = 2e9;
  work.bytes_written = 1e9;
  RooflineDevice device{1e12, 1.5e12};
  // max(1e6 / 1e12 = 1e-6 s, 3e9 / 1.5e12 = 0.002 s) = 0.002 s.
  EXPECT_DOUBLE_EQ(rooflineSeconds(work, device), 0.002);
}

TEST(RooflineSeconds, ResNetConvOnAnAccelerator) {
  OpShapeInfo op = makeOp("Conv", {Shape{1, 64, 56, 56}, Shape{64, 64, 3, 3}}, {Shape{1, 64, 56, 56}});
  // 231,211,008 FLOPs at 231,211,008e3 FLOP/s = 1 ms; 1,753,088 bytes at 1e12 B/s = 1.753 µs.
  EXPECT_DOUBLE_EQ(rooflineSeconds(estimateWork(op), RooflineDevice{231'211'008e3, 1e12}), 1e-3);
}

TEST(RooflineSeconds, NoComputeOrBandwidthIsInfinite) {
  OpWork work;
  work.flops = 1;
  work.bytes_read = 1;
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(rooflineSeconds(work, RooflineDevice{1e12, 0}), inf);
  EXPECT_EQ(rooflineSeconds(work, RooflineDevice{0, 1e12}), inf);
  EXPECT_EQ(rooflineSeconds(OpWork{}, RooflineDevice{0, 0}), inf);
  EXPECT_DOUBLE_EQ(rooflineSeconds(OpWork{}, RooflineDevice{1e12, 1e12}), 0);
}

}  // namespace roofline_test
}  // namespace placer::testing

namespace placer::testing {
namespace roofline_test {

// DFT (cost_model/extended_work.h): a dense DFT of length n per output frequency, 2 real MACs per
// term for a real input. DFT-20 takes its axis from input 2 (the loader gives an omitted one its
// default, -2); DFT-17 from its attribute (default 1).
TEST(ExtendedWork, DftCountsTheTransformedAxis) {
  OpShapeInfo dft20 = makeOp("DFT", {Shape{1, 4, 16, 1}}, {Shape{1, 4, 9, 2}});
  dft20.constant_inputs[2] = {-2};
  EXPECT_DOUBLE_EQ(estimateWork(dft20).macs, 4.0 * 9 * 16 * 2) << "axis -2: 16 terms per frequency";
  OpShapeInfo dft17 = makeOp("DFT", {Shape{1, 4, 16, 1}}, {Shape{1, 3, 16, 2}});
  EXPECT_DOUBLE_EQ(estimateWork(dft17).macs, 3.0 * 16 * 4 * 2) << "axis 1: 4 terms per frequency";
  dft17.outputs[0] = Shape{1, 4, 16, 2};
  dft17.inputs[0] = Shape{1, 4, 16, 2};  // complex input: 4 real MACs per term
  EXPECT_DOUBLE_EQ(estimateWork(dft17).macs, 4.0 * 16 * 4 * 4);
  EXPECT_TRUE(estimateWork(dft17).estimated);
}

// LSTM, GRU and RNN (cost_model/sequence_work.h): seq·batch steps per direction, gates·H·(input + H)
// MACs each, and 32, 22 or 6 FLOPs per hidden unit and step.
TEST(SequenceWork, RecurrentLayers) {
  // LSTM: seq 5, batch 2, input 10, H 8 (4 gates: 32 rows), with a bias [1, 64].
  OpShapeInfo lstm = makeOp("LSTM", {Shape{5, 2, 10}, Shape{1, 32, 10}, Shape{1, 32, 8}, Shape{1, 64}},
                            {Shape{5, 1, 2, 8}});
  OpWork work = estimateWork(lstm);
  EXPECT_DOUBLE_EQ(work.macs, 10.0 * 32 * (10 + 8));             // 5,760
  EXPECT_DOUBLE_EQ(work.flops, 2 * 5760.0 + 10.0 * 8 * 32);      // + 2,560 per-unit FLOPs
  EXPECT_DOUBLE_EQ(work.bytes_read, (100.0 + 320 + 256 + 64) * 4);  // X, W, R, B
  EXPECT_DOUBLE_EQ(work.bytes_written, 80.0 * 4);
  EXPECT_TRUE(work.estimated) << work.note;
  // Bidirectional GRU: seq 3, batch 1, input 4, H 6 (3 gates: 18 rows).
  OpShapeInfo gru = makeOp("GRU", {Shape{3, 1, 4}, Shape{2, 18, 4}, Shape{2, 18, 6}}, {Shape{3, 2, 1, 6}});
  EXPECT_DOUBLE_EQ(estimateWork(gru).macs, 3.0 * 2 * 18 * (4 + 6));               // 1,080
  EXPECT_DOUBLE_EQ(estimateWork(gru).flops, 2 * 1080.0 + 3.0 * 2 * 6 * 22);       // + 792
  // RNN with layout 1 (X [batch 2, seq 7, input 3]), H 5: the same 14 steps.
  OpShapeInfo rnn = makeOp("RNN", {Shape{2, 7, 3}, Shape{1, 5, 3}, Shape{1, 5, 5}}, {Shape{2, 7, 1, 5}});
  rnn.int_attributes = {{"layout", {1}}};
  EXPECT_DOUBLE_EQ(estimateWork(rnn).macs, 14.0 * 5 * (3 + 5));                  // 560
  EXPECT_DOUBLE_EQ(estimateWork(rnn).flops, 2 * 560.0 + 14.0 * 5 * 6);           // + 420
  // W unknown: no MACs, and the note says why.
  rnn.inputs[1] = std::nullopt;
  EXPECT_FALSE(estimateWork(rnn).estimated);
  EXPECT_EQ(estimateWork(rnn).note, "RNN: the shapes of X, W or R unknown");
}

// Einsum: the loop nest over every index of its equation, a MAC per point for two operands.
TEST(SequenceWork, EinsumCountsItsLoopNest) {
  auto einsum = [](std::string equation, std::vector<std::optional<Shape>> inputs, Shape output) {
    OpShapeInfo op = makeOp("Einsum", std::move(inputs), {std::move(output)});
    op.string_attributes["equation"] = std::move(equation);
    return estimateWork(op);
  };
  // A batched MatMul: b 2, i 3, j 4, k 5.
  OpWork batched = einsum("bij,bjk->bik", {Shape{2, 3, 4}, Shape{2, 4, 5}}, Shape{2, 3, 5});
  EXPECT_DOUBLE_EQ(batched.macs, 120);
  EXPECT_DOUBLE_EQ(batched.flops, 240);
  EXPECT_DOUBLE_EQ(batched.bytes_read, (24.0 + 40) * 4);
  EXPECT_TRUE(batched.estimated) << batched.note;
  // "..." as extra indices: [6, 2] before ij, broadcast against nothing; spaces are ignored.
  EXPECT_DOUBLE_EQ(einsum("...ij, jk -> ...ik", {Shape{6, 2, 3, 4}, Shape{4, 5}}, Shape{6, 2, 3, 5}).macs,
                   12.0 * 3 * 4 * 5);
  // A 1 broadcasts: the ellipsis is [7].
  EXPECT_DOUBLE_EQ(einsum("...ij,...jk", {Shape{1, 3, 4}, Shape{7, 4, 5}}, Shape{7, 3, 5}).macs, 420);
  // One operand (a trace) reads each point once; three are one loop nest with two MACs per point.
  OpWork trace = einsum("ii->", {Shape{4, 4}}, Shape{});
  EXPECT_DOUBLE_EQ(trace.macs, 0);
  EXPECT_DOUBLE_EQ(trace.flops, 4);
  OpWork chain = einsum("ij,jk,kl->il", {Shape{2, 3}, Shape{3, 4}, Shape{4, 5}}, Shape{2, 5});
  EXPECT_DOUBLE_EQ(chain.macs, 240);
  EXPECT_FALSE(chain.estimated);
  // A term that does not fit its operand: one FLOP per output element, and the reason.
  OpWork wrong = einsum("ij,jk->ik", {Shape{2, 3, 4}, Shape{3, 5}}, Shape{2, 5});
  EXPECT_DOUBLE_EQ(wrong.flops, 10);
  EXPECT_EQ(wrong.note, "Einsum: the equation or an operand's shape unknown, or they disagree");
}

// NonMaxSuppression: per batch and class, a sort of n scores and 15 FLOPs per pair of boxes.
TEST(SequenceWork, NonMaxSuppressionComparesEveryPairOfBoxes) {
  OpShapeInfo op = makeOp("NonMaxSuppression", {Shape{1, 8, 4}, Shape{1, 2, 8}}, {std::nullopt});
  OpWork work = estimateWork(op);
  EXPECT_DOUBLE_EQ(work.flops, 2 * (8 * 3.0 + 15 * 28.0));  // 2 lists; log2 8 = 3; 28 pairs
  EXPECT_TRUE(work.estimated) << work.note;  // its output's length is known only at run time
  op.inputs[1] = std::nullopt;
  EXPECT_EQ(estimateWork(op).note, "NonMaxSuppression: the scores' shape unknown");
}

// The operators added to the formula table with them: per output element, per input element, or
// data movement.
TEST(RooflineElementwise, LessCommonOperatorsHaveFormulas) {
  EXPECT_DOUBLE_EQ(estimateWork(makeOp("Celu", {Shape{2, 5}}, {Shape{2, 5}})).flops, 80);
  EXPECT_DOUBLE_EQ(estimateWork(makeOp("RoiAlign", {Shape{1, 4, 8, 8}, Shape{3, 4}, Shape{3}}, {Shape{3, 4, 2, 2}})).flops,
                   48 * 40.0);
  EXPECT_DOUBLE_EQ(estimateWork(makeOp("NonZero", {Shape{6, 7}}, {std::nullopt})).flops, 42);
  OpWork one_hot = estimateWork(makeOp("OneHot", {Shape{5}, Shape{}, Shape{2}}, {Shape{5, 10}}));
  EXPECT_DOUBLE_EQ(one_hot.flops, 0);
  EXPECT_DOUBLE_EQ(one_hot.bytes_written, 200);
  for (const char* op : {"Celu", "ThresholdedRelu", "Shrink", "Hardmax", "LpNormalization", "MeanVarianceNormalization",
                         "GridSample", "RoiAlign", "RandomNormalLike", "RandomUniformLike", "Bernoulli", "NonZero",
                         "Compress", "OneHot", "Range", "EyeLike", "ReverseSequence", "MaxUnpool", "Scatter"}) {
    const OpWork work = estimateWork(makeOp(op, {Shape{4, 4}}, {Shape{4, 4}}));
    EXPECT_TRUE(work.estimated) << op << ": " << work.note;
  }
}

// TopK: log2(k) comparisons per input element.
TEST(SequenceWork, TopKIsAPartialSort) {
  OpShapeInfo op = makeOp("TopK", {Shape{2, 100}, Shape{1}}, {Shape{2, 10}, Shape{2, 10}});
  op.output_element_bytes = {4, 8};  // values float32, indices int64
  OpWork work = estimateWork(op);
  EXPECT_DOUBLE_EQ(work.flops, 200 * std::log2(10.0));
  EXPECT_DOUBLE_EQ(work.bytes_written, 20.0 * 4 + 20.0 * 8);
  EXPECT_TRUE(work.estimated) << work.note;
  op.int_attributes = {{"axis", {0}}};  // along the first axis: k = 2
  EXPECT_DOUBLE_EQ(estimateWork(op).flops, 200);
}

}  // namespace roofline_test
}  // namespace placer::testing
