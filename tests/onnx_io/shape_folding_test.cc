// The loader's own shape arithmetic on untrusted values: checked arithmetic, operand sizes, Slice's
// forms, and tensors whose data disagrees with their dims. Anything it cannot evaluate exactly is
// nullopt (left to shape inference), never a trap or a read out of bounds.
#include "onnx_io/shape_folding.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace placer::testing {
namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

onnx::NodeProto node(const std::string& op, std::vector<std::string> inputs) {
  onnx::NodeProto n;
  n.set_op_type(op);
  for (const std::string& i : inputs)
    n.add_input(i);
  n.add_output("out");
  return n;
}

IntTensor vec(std::vector<std::int64_t> values) {
  return IntTensor{{static_cast<std::int64_t>(values.size())}, std::move(values)};
}

std::optional<IntTensor> eval(const onnx::NodeProto& n, const std::map<std::string, IntTensor>& known) {
  return evaluateShapeArithmetic(n, known, {});
}

TEST(ShapeFolding, ArithmeticIsChecked) {
  const onnx::NodeProto div = node("Div", {"a", "b"}), mul = node("Mul", {"a", "b"}),
                        add = node("Add", {"a", "b"}), sub = node("Sub", {"a", "b"});
  EXPECT_FALSE(eval(div, {{"a", vec({kMin})}, {"b", vec({-1})}})) << "INT64_MIN / -1 overflows";
  EXPECT_FALSE(eval(div, {{"a", vec({7})}, {"b", vec({0})}}));
  EXPECT_FALSE(eval(mul, {{"a", vec({kMax})}, {"b", vec({2})}}));
  EXPECT_FALSE(eval(add, {{"a", vec({kMax})}, {"b", vec({1})}}));
  EXPECT_FALSE(eval(sub, {{"a", vec({kMin})}, {"b", vec({1})}}));
  EXPECT_FALSE(eval(add, {{"a", vec({})}, {"b", vec({1})}})) << "an empty operand";
  EXPECT_FALSE(eval(add, {{"a", vec({1, 2})}, {"b", vec({1, 2, 3})}})) << "shapes that do not broadcast";
  auto ok = eval(div, {{"a", vec({-7, 12})}, {"b", vec({2})}});
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->values, (std::vector<std::int64_t>{-3, 6}));
}

TEST(ShapeFolding, SliceFormsAndBounds) {
  onnx::NodeProto old_slice = node("Slice", {"x"});  // opset < 10: attributes
  auto* starts = old_slice.add_attribute();
  starts->set_name("starts");
  starts->set_type(onnx::AttributeProto::INTS);
  starts->add_ints(1);
  auto* ends = old_slice.add_attribute();
  ends->set_name("ends");
  ends->set_type(onnx::AttributeProto::INTS);
  const std::map<std::string, IntTensor> x{{"x", vec({5, 6, 7, 8})}};
  EXPECT_FALSE(eval(old_slice, x)) << "no ends";
  ends->add_ints(kMax);
  auto sliced = eval(old_slice, x);
  ASSERT_TRUE(sliced);
  EXPECT_EQ(sliced->values, (std::vector<std::int64_t>{6, 7, 8}));

  const onnx::NodeProto slice = node("Slice", {"x", "s", "e", "", "step"});  // opset >= 10: inputs
  EXPECT_FALSE(eval(slice, {{"x", vec({5, 6})}, {"s", vec({0})}, {"e", vec({})}})) << "empty ends";
  EXPECT_FALSE(eval(slice, {{"x", vec({5, 6})}, {"s", vec({0})}, {"e", vec({2})}, {"step", vec({})}}))
      << "empty steps";
  EXPECT_FALSE(eval(slice, {{"x", vec({5, 6})}, {"s", vec({0})}, {"e", vec({2})}})) << "steps not known";
  const onnx::NodeProto no_steps = node("Slice", {"x", "s", "e"});
  auto from_end = eval(no_steps, {{"x", vec({5, 6, 7})}, {"s", vec({kMin})}, {"e", vec({-1})}});
  ASSERT_TRUE(from_end);
  EXPECT_EQ(from_end->values, (std::vector<std::int64_t>{5, 6}));

  const onnx::NodeProto gather = node("Gather", {"x", "i"});
  EXPECT_FALSE(eval(gather, {{"x", vec({5, 6})}, {"i", vec({kMin})}}));
  EXPECT_FALSE(eval(gather, {{"x", vec({5, 6})}, {"i", vec({2})}}));
  const onnx::NodeProto squeeze = node("Squeeze", {"x"});
  EXPECT_FALSE(eval(squeeze, {{"x", vec({})}})) << "nothing to squeeze";
}

TEST(ShapeFolding, TensorDataMustAgreeWithItsDims) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::INT64);
  t.add_dims(3);
  t.add_int64_data(1);
  EXPECT_FALSE(intValue(t)) << "3 dims, 1 value";
  t.clear_int64_data();
  t.set_raw_data(std::string(7, '\0'));
  EXPECT_FALSE(intValue(t)) << "raw data not a whole number of values";
  t.set_raw_data(std::string(24, '\0'));
  ASSERT_TRUE(intValue(t));
  t.set_dims(0, -2);
  EXPECT_FALSE(intValue(t)) << "a negative dim";
  t.set_dims(0, kMax);
  EXPECT_FALSE(intValue(t)) << "too many elements";
  onnx::TensorProto empty;
  empty.set_data_type(onnx::TensorProto::INT64);
  empty.add_dims(0);
  auto none = intValue(empty);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->values.empty());
}

}  // namespace
}  // namespace placer::testing
