// The loader's constant folding on untrusted values: checked arithmetic, numpy broadcasting, every
// opset form of the layout operators, values rounded to their element type, and tensors whose data
// disagrees with their dims. Anything it cannot evaluate exactly is nullopt (left to shape
// inference), never a trap or a read out of bounds. Expected values are worked out by hand (numpy
// semantics, as ONNX specifies them).
#include "onnx_io/constant_folding.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace placer::testing {
namespace constant_folding_test {

using TP = onnx::TensorProto;
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

onnx::NodeProto node(const std::string& op, std::vector<std::string> inputs, int outputs = 1) {
  onnx::NodeProto n;
  n.set_op_type(op);
  for (const std::string& i : inputs)
    n.add_input(i);
  for (int k = 0; k < outputs; ++k)
    n.add_output("out" + std::to_string(k));
  return n;
}

void setInt(onnx::NodeProto& n, const std::string& name, std::int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void setInts(onnx::NodeProto& n, const std::string& name, std::vector<std::int64_t> v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (auto x : v)
    a->add_ints(x);
}

ConstTensor vec(std::vector<std::int64_t> values) {
  return ConstTensor{TP::INT64, {static_cast<std::int64_t>(values.size())}, std::move(values), {}};
}
ConstTensor ints(Shape dims, std::vector<std::int64_t> values, int type = TP::INT64) {
  return ConstTensor{type, std::move(dims), std::move(values), {}};
}
ConstTensor scalar(std::int64_t v) { return ConstTensor{TP::INT64, {}, {v}, {}}; }
ConstTensor floats(Shape dims, std::vector<double> values, int type = TP::FLOAT) {
  return ConstTensor{type, std::move(dims), {}, std::move(values)};
}
ConstTensor bools(Shape dims, std::vector<std::int64_t> values) {
  return ConstTensor{TP::BOOL, std::move(dims), std::move(values), {}};
}

std::optional<ConstTensor> eval(const onnx::NodeProto& n, const std::map<std::string, ConstTensor>& known,
                                const std::map<std::string, Shape>& shapes = {}) {
  auto out = evaluateNode(n, known, shapes);
  if (!out) return std::nullopt;
  EXPECT_EQ(out->size(), 1u);
  return out->front();
}

TEST(ConstantFolding, ArithmeticIsChecked) {
  const onnx::NodeProto div = node("Div", {"a", "b"}), mul = node("Mul", {"a", "b"}),
                        add = node("Add", {"a", "b"}), sub = node("Sub", {"a", "b"});
  EXPECT_FALSE(eval(div, {{"a", vec({kMin})}, {"b", vec({-1})}})) << "INT64_MIN / -1 overflows";
  EXPECT_FALSE(eval(div, {{"a", vec({7})}, {"b", vec({0})}}));
  EXPECT_FALSE(eval(mul, {{"a", vec({kMax})}, {"b", vec({2})}}));
  EXPECT_FALSE(eval(add, {{"a", vec({kMax})}, {"b", vec({1})}}));
  EXPECT_FALSE(eval(sub, {{"a", vec({kMin})}, {"b", vec({1})}}));
  EXPECT_FALSE(eval(add, {{"a", vec({1, 2})}, {"b", vec({1, 2, 3})}})) << "shapes that do not broadcast";
  EXPECT_FALSE(eval(add, {{"a", ints({1}, {2147483647}, TP::INT32)}, {"b", ints({1}, {1}, TP::INT32)}}))
      << "an int32 result out of range";
  EXPECT_FALSE(eval(add, {{"a", vec({1})}, {"b", ints({1}, {1}, TP::INT32)}})) << "mixed types";
  auto ok = eval(div, {{"a", vec({-7, 12})}, {"b", vec({2})}});
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->ints, (std::vector<std::int64_t>{-3, 6})) << "integer Div truncates toward zero";
  auto empty = eval(add, {{"a", vec({})}, {"b", vec({1})}});
  ASSERT_TRUE(empty) << "an empty operand broadcasts to an empty result";
  EXPECT_TRUE(empty->ints.empty());
}

TEST(ConstantFolding, BroadcastingComparisonsAndWhere) {
  // A causal mask as exporters write it: Range, Unsqueeze both ways, Greater, Where.
  auto r = eval(node("Range", {"s", "l", "d"}), {{"s", scalar(0)}, {"l", scalar(3)}, {"d", scalar(1)}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->dims, Shape{3});
  EXPECT_EQ(r->ints, (std::vector<std::int64_t>{0, 1, 2}));
  const ConstTensor col = ints({3, 1}, {0, 1, 2}), row = ints({1, 3}, {0, 1, 2});
  auto mask = eval(node("Greater", {"r", "c"}), {{"r", row}, {"c", col}});
  ASSERT_TRUE(mask);
  EXPECT_EQ(mask->type, TP::BOOL);
  EXPECT_EQ(mask->dims, (Shape{3, 3}));
  EXPECT_EQ(mask->ints, (std::vector<std::int64_t>{0, 1, 1, 0, 0, 1, 0, 0, 0}));
  auto filled = eval(node("Where", {"m", "ninf", "zero"}),
                     {{"m", *mask}, {"ninf", floats({}, {-1e9})}, {"zero", floats({1}, {0.0})}});
  ASSERT_TRUE(filled);
  EXPECT_EQ(filled->dims, (Shape{3, 3}));
  EXPECT_EQ(filled->reals, (std::vector<double>{0, -1e9f, -1e9f, 0, 0, -1e9f, 0, 0, 0}));
  auto equal = eval(node("Equal", {"a", "b"}), {{"a", vec({4, 5})}, {"b", scalar(5)}});
  ASSERT_TRUE(equal);
  EXPECT_EQ(equal->ints, (std::vector<std::int64_t>{0, 1}));
  auto both = eval(node("And", {"a", "b"}), {{"a", bools({2}, {1, 1})}, {"b", *equal}});
  ASSERT_TRUE(both);
  EXPECT_EQ(both->ints, (std::vector<std::int64_t>{0, 1}));
  auto negated = eval(node("Not", {"a"}), {{"a", *both}});
  ASSERT_TRUE(negated);
  EXPECT_EQ(negated->ints, (std::vector<std::int64_t>{1, 0}));
  EXPECT_FALSE(eval(node("And", {"a", "b"}), {{"a", vec({1})}, {"b", vec({1})}})) << "And of int64";
  // Floating results are rounded to float32: 0.1 + 0.2 in float32, not in double.
  auto sum = eval(node("Add", {"a", "b"}), {{"a", floats({}, {0.1f})}, {"b", floats({}, {0.2f})}});
  ASSERT_TRUE(sum);
  EXPECT_EQ(sum->reals[0], static_cast<double>(0.1f + 0.2f));
  EXPECT_FALSE(eval(node("Mul", {"a", "b"}), {{"a", floats({}, {3e38})}, {"b", floats({}, {10.0})}}))
      << "beyond float32: a runtime gives infinity, folding refuses";
  EXPECT_FALSE(eval(node("Div", {"a", "b"}), {{"a", floats({}, {1.0})}, {"b", floats({}, {0.0})}}));
  auto half = eval(node("Div", {"a", "b"}), {{"a", floats({}, {1.0}, TP::FLOAT16)}, {"b", floats({}, {3.0}, TP::FLOAT16)}});
  ASSERT_TRUE(half);
  EXPECT_EQ(half->reals[0], 0.333251953125) << "1/3 in float16";
}

TEST(ConstantFolding, ModFollowsTheDivisorUnlessFmod) {
  onnx::NodeProto mod = node("Mod", {"a", "b"});
  auto m = eval(mod, {{"a", vec({-7, 7, -7})}, {"b", vec({3, -3, -3})}});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->ints, (std::vector<std::int64_t>{2, -2, -1}));
  setInt(mod, "fmod", 1);
  auto c = eval(mod, {{"a", vec({-7, 7, -7})}, {"b", vec({3, -3, -3})}});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->ints, (std::vector<std::int64_t>{-1, 1, -1}));
  EXPECT_FALSE(eval(mod, {{"a", vec({1})}, {"b", vec({0})}}));
}

TEST(ConstantFolding, SliceFormsAndBounds) {
  onnx::NodeProto old_slice = node("Slice", {"x"});  // opset < 10: attributes
  setInts(old_slice, "starts", {1});
  const std::map<std::string, ConstTensor> x{{"x", vec({5, 6, 7, 8})}};
  EXPECT_FALSE(eval(old_slice, x)) << "no ends";
  setInts(old_slice, "ends", {kMax});
  auto sliced = eval(old_slice, x);
  ASSERT_TRUE(sliced);
  EXPECT_EQ(sliced->ints, (std::vector<std::int64_t>{6, 7, 8}));

  const onnx::NodeProto slice = node("Slice", {"x", "s", "e", "", "step"});  // opset >= 10: inputs
  EXPECT_FALSE(eval(slice, {{"x", vec({5, 6})}, {"s", vec({0})}, {"e", vec({})}})) << "empty ends";
  EXPECT_FALSE(eval(slice, {{"x", vec({5, 6})}, {"s", vec({0})}, {"e", vec({2})}, {"step", vec({})}}))
      << "empty steps";
  EXPECT_FALSE(eval(slice, {{"x", vec({5, 6})}, {"s", vec({0})}, {"e", vec({2})}})) << "steps not known";
  EXPECT_FALSE(eval(slice, {{"x", vec({5, 6})}, {"s", vec({0})}, {"e", vec({2})}, {"step", vec({0})}}))
      << "a zero step";
  auto reversed = eval(slice, {{"x", vec({5, 6, 7, 8})}, {"s", vec({-1})}, {"e", vec({kMin})}, {"step", vec({-2})}});
  ASSERT_TRUE(reversed);
  EXPECT_EQ(reversed->ints, (std::vector<std::int64_t>{8, 6}));
  const onnx::NodeProto no_steps = node("Slice", {"x", "s", "e"});
  auto from_end = eval(no_steps, {{"x", vec({5, 6, 7})}, {"s", vec({kMin})}, {"e", vec({-1})}});
  ASSERT_TRUE(from_end);
  EXPECT_EQ(from_end->ints, (std::vector<std::int64_t>{5, 6}));
  // Two axes of a matrix: rows 1.., columns ..2.
  const onnx::NodeProto two = node("Slice", {"x", "s", "e", "a"});
  auto block = eval(two, {{"x", ints({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})}, {"s", vec({1, 0})},
                          {"e", vec({kMax, 2})}, {"a", vec({0, -1})}});
  ASSERT_TRUE(block);
  EXPECT_EQ(block->dims, (Shape{2, 2}));
  EXPECT_EQ(block->ints, (std::vector<std::int64_t>{4, 5, 7, 8}));

  const onnx::NodeProto gather = node("Gather", {"x", "i"});
  EXPECT_FALSE(eval(gather, {{"x", vec({5, 6})}, {"i", vec({kMin})}}));
  EXPECT_FALSE(eval(gather, {{"x", vec({5, 6})}, {"i", vec({2})}}));
}

TEST(ConstantFolding, LayoutOperators) {
  const ConstTensor m = ints({2, 3}, {1, 2, 3, 4, 5, 6});
  onnx::NodeProto gather = node("Gather", {"x", "i"});
  setInt(gather, "axis", 1);
  auto g = eval(gather, {{"x", m}, {"i", vec({2, -3})}});
  ASSERT_TRUE(g);
  EXPECT_EQ(g->dims, (Shape{2, 2}));
  EXPECT_EQ(g->ints, (std::vector<std::int64_t>{3, 1, 6, 4}));

  onnx::NodeProto elements = node("GatherElements", {"x", "i"});
  setInt(elements, "axis", 1);
  auto ge = eval(elements, {{"x", m}, {"i", ints({2, 2}, {2, 0, 1, 1})}});
  ASSERT_TRUE(ge);
  EXPECT_EQ(ge->ints, (std::vector<std::int64_t>{3, 1, 5, 5}));

  auto t = eval(node("Transpose", {"x"}), {{"x", m}});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->dims, (Shape{3, 2}));
  EXPECT_EQ(t->ints, (std::vector<std::int64_t>{1, 4, 2, 5, 3, 6}));

  onnx::NodeProto concat = node("Concat", {"a", "b"});
  setInt(concat, "axis", 1);
  auto c = eval(concat, {{"a", m}, {"b", ints({2, 1}, {7, 8})}});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->dims, (Shape{2, 4}));
  EXPECT_EQ(c->ints, (std::vector<std::int64_t>{1, 2, 3, 7, 4, 5, 6, 8}));

  auto e = eval(node("Expand", {"x", "s"}), {{"x", ints({2, 1}, {1, 2})}, {"s", vec({1, 3})}});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->dims, (Shape{2, 3}));
  EXPECT_EQ(e->ints, (std::vector<std::int64_t>{1, 1, 1, 2, 2, 2}));

  auto tile = eval(node("Tile", {"x", "r"}), {{"x", ints({1, 2}, {1, 2})}, {"r", vec({2, 2})}});
  ASSERT_TRUE(tile);
  EXPECT_EQ(tile->dims, (Shape{2, 4}));
  EXPECT_EQ(tile->ints, (std::vector<std::int64_t>{1, 2, 1, 2, 1, 2, 1, 2}));

  auto reshaped = eval(node("Reshape", {"x", "s"}), {{"x", m}, {"s", vec({0, -1, 1})}});
  ASSERT_TRUE(reshaped);
  EXPECT_EQ(reshaped->dims, (Shape{2, 3, 1}));
  EXPECT_FALSE(eval(node("Reshape", {"x", "s"}), {{"x", m}, {"s", vec({4, -1})}})) << "6 elements into 4 x ?";

  auto unsqueezed = eval(node("Unsqueeze", {"x", "a"}), {{"x", vec({7})}, {"a", vec({0, -1})}});
  ASSERT_TRUE(unsqueezed);
  EXPECT_EQ(unsqueezed->dims, (Shape{1, 1, 1}));
  onnx::NodeProto old_unsqueeze = node("Unsqueeze", {"x"});
  setInts(old_unsqueeze, "axes", {0});
  auto u = eval(old_unsqueeze, {{"x", scalar(5)}});
  ASSERT_TRUE(u);
  EXPECT_EQ(u->dims, Shape{1});
  EXPECT_FALSE(eval(node("Squeeze", {"x", "a"}), {{"x", m}, {"a", vec({0})}})) << "a dim of 2";
  auto squeezed = eval(node("Squeeze", {"x"}), {{"x", ints({1, 2, 1}, {3, 4})}});
  ASSERT_TRUE(squeezed);
  EXPECT_EQ(squeezed->dims, Shape{2});

  onnx::NodeProto split = node("Split", {"x"}, 2);
  setInt(split, "axis", 1);
  setInt(split, "num_outputs", 2);  // opset 18: 3 columns into 2 + 1
  auto parts = evaluateNode(split, {{"x", m}}, {});
  ASSERT_TRUE(parts);
  EXPECT_EQ((*parts)[0].ints, (std::vector<std::int64_t>{1, 2, 4, 5}));
  EXPECT_EQ((*parts)[1].ints, (std::vector<std::int64_t>{3, 6}));
  auto sized = evaluateNode(node("Split", {"x", "s"}, 2), {{"x", vec({1, 2, 3})}, {"s", vec({1, 2})}}, {});
  ASSERT_TRUE(sized);
  EXPECT_EQ((*sized)[1].ints, (std::vector<std::int64_t>{2, 3}));

  auto flat = eval(node("Flatten", {"x"}), {{"x", ints({2, 1, 3}, {1, 2, 3, 4, 5, 6})}});
  ASSERT_TRUE(flat);
  EXPECT_EQ(flat->dims, (Shape{2, 3}));
}

TEST(ConstantFolding, ScatterCumSumNonZeroTriluReduce) {
  // Shifted-window masks: zeros, then regions numbered by ScatterND.
  auto s = eval(node("ScatterND", {"d", "i", "u"}),
                {{"d", ints({2, 2}, {0, 0, 0, 0})}, {"i", ints({2, 1}, {1, -2})}, {"u", ints({2, 2}, {5, 6, 7, 8})}});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->ints, (std::vector<std::int64_t>{7, 8, 5, 6}));
  EXPECT_FALSE(eval(node("ScatterND", {"d", "i", "u"}),
                    {{"d", vec({0, 0})}, {"i", ints({1, 1}, {2})}, {"u", vec({1})}}))
      << "an index out of range";

  onnx::NodeProto cumsum = node("CumSum", {"x", "a"});
  auto cs = eval(cumsum, {{"x", ints({2, 2}, {1, 2, 3, 4})}, {"a", scalar(1)}});
  ASSERT_TRUE(cs);
  EXPECT_EQ(cs->ints, (std::vector<std::int64_t>{1, 3, 3, 7}));
  setInt(cumsum, "exclusive", 1);
  setInt(cumsum, "reverse", 1);
  auto rev = eval(cumsum, {{"x", vec({1, 2, 3})}, {"a", scalar(0)}});
  ASSERT_TRUE(rev);
  EXPECT_EQ(rev->ints, (std::vector<std::int64_t>{5, 3, 0}));

  auto nz = eval(node("NonZero", {"x"}), {{"x", ints({2, 2}, {0, 3, 4, 0})}});
  ASSERT_TRUE(nz);
  EXPECT_EQ(nz->dims, (Shape{2, 2}));
  EXPECT_EQ(nz->ints, (std::vector<std::int64_t>{0, 1, 1, 0}));

  onnx::NodeProto lower = node("Trilu", {"x"});
  setInt(lower, "upper", 0);
  auto tri = eval(lower, {{"x", ints({2, 2}, {1, 2, 3, 4})}});
  ASSERT_TRUE(tri);
  EXPECT_EQ(tri->ints, (std::vector<std::int64_t>{1, 0, 3, 4}));

  onnx::NodeProto prod = node("ReduceProd", {"x"});
  setInt(prod, "keepdims", 0);
  auto p = eval(prod, {{"x", vec({2, 3, 7})}});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->dims, Shape{});
  EXPECT_EQ(p->ints, (std::vector<std::int64_t>{42}));
  auto rs = eval(node("ReduceSum", {"x", "a"}), {{"x", ints({2, 2}, {1, 2, 3, 4})}, {"a", vec({0})}});
  ASSERT_TRUE(rs);
  EXPECT_EQ(rs->dims, (Shape{1, 2}));
  EXPECT_EQ(rs->ints, (std::vector<std::int64_t>{4, 6}));
}

TEST(ConstantFolding, ShapeSizeCastConstantOfShape) {
  const std::map<std::string, Shape> shapes{{"x", {2, 3, 5}}};
  onnx::NodeProto shape = node("Shape", {"x"});
  setInt(shape, "start", -2);
  auto sh = eval(shape, {}, shapes);
  ASSERT_TRUE(sh);
  EXPECT_EQ(sh->ints, (std::vector<std::int64_t>{3, 5}));
  auto size = eval(node("Size", {"x"}), {}, shapes);
  ASSERT_TRUE(size);
  EXPECT_EQ(size->ints, (std::vector<std::int64_t>{30}));
  EXPECT_FALSE(eval(node("Shape", {"y"}), {}, shapes)) << "no static shape";

  onnx::NodeProto to_int = node("Cast", {"x"});
  setInt(to_int, "to", TP::INT32);
  auto truncated = eval(to_int, {{"x", floats({2}, {-2.7, 3.9})}});
  ASSERT_TRUE(truncated);
  EXPECT_EQ(truncated->ints, (std::vector<std::int64_t>{-2, 3}));
  EXPECT_FALSE(eval(to_int, {{"x", floats({1}, {3e9})}})) << "beyond int32";
  onnx::NodeProto to_float = node("Cast", {"x"});
  setInt(to_float, "to", TP::FLOAT);
  auto f = eval(to_float, {{"x", vec({16777217})}});
  ASSERT_TRUE(f);
  EXPECT_EQ(f->reals[0], 16777216.0) << "rounded to float32";

  onnx::NodeProto fill = node("ConstantOfShape", {"s"});
  auto* value = fill.add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(TP::INT64);
  value->mutable_t()->add_dims(1);
  value->mutable_t()->add_int64_data(-1);
  auto filled = eval(fill, {{"s", vec({2, 2})}});
  ASSERT_TRUE(filled);
  EXPECT_EQ(filled->ints, (std::vector<std::int64_t>(4, -1)));
  EXPECT_FALSE(evaluateNode(fill, {{"s", vec({1024, 1024})}}, {}, 1000)) << "over the element limit";
  EXPECT_FALSE(eval(fill, {{"s", vec({-1, 2})}})) << "a negative dim";
}

TEST(ConstantFolding, TensorDataMustAgreeWithItsDims) {
  onnx::TensorProto t;
  t.set_data_type(TP::INT64);
  t.add_dims(3);
  t.add_int64_data(1);
  EXPECT_FALSE(readConstant(t, kMaxFoldedElements)) << "3 dims, 1 value";
  t.clear_int64_data();
  t.set_raw_data(std::string(7, '\0'));
  EXPECT_FALSE(readConstant(t, kMaxFoldedElements)) << "raw data not a whole number of values";
  t.set_raw_data(std::string(24, '\0'));
  ASSERT_TRUE(readConstant(t, kMaxFoldedElements));
  t.set_dims(0, -2);
  EXPECT_FALSE(readConstant(t, kMaxFoldedElements)) << "a negative dim";
  t.set_dims(0, kMax);
  EXPECT_FALSE(readConstant(t, kMaxFoldedElements)) << "too many elements";
  onnx::TensorProto empty;
  empty.set_data_type(TP::INT64);
  empty.add_dims(0);
  auto none = readConstant(empty, kMaxFoldedElements);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->ints.empty());
  onnx::TensorProto byte;
  byte.set_data_type(TP::UINT8);
  byte.add_int32_data(300);
  EXPECT_FALSE(readConstant(byte, kMaxFoldedElements)) << "a uint8 of 300";
}

TEST(ConstantFolding, WrittenValuesReadBackEqual) {
  for (int type : {TP::FLOAT, TP::DOUBLE, TP::FLOAT16, TP::BFLOAT16}) {
    const ConstTensor v = floats({3}, {-0.5, 1.0, -100.0}, type);
    auto back = readConstant(writeConstant("v", v), 16);
    ASSERT_TRUE(back) << type;
    EXPECT_EQ(back->reals, v.reals) << type;
  }
  for (int type : {TP::INT64, TP::INT32, TP::INT16, TP::INT8, TP::UINT8, TP::UINT16, TP::UINT32, TP::BOOL}) {
    const ConstTensor v = ints({2}, {0, 1}, type);
    auto back = readConstant(writeConstant("v", v), 16);
    ASSERT_TRUE(back) << type;
    EXPECT_EQ(back->ints, v.ints) << type;
    EXPECT_EQ(back->type, type);
  }
}

}  // namespace constant_folding_test
}  // namespace placer::testing
