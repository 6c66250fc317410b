// Constant folding's dispatch, Shape/Size/Constant/ConstantOfShape and the reductions; the layout
// operators are in fold_layout.cc, the element-wise ones in fold_elementwise.cc.
#include "onnx_io/constant_folding.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <string_view>

#include "core/onnx_domain.h"
#include "onnx_io/fold_elementwise.h"
#include "onnx_io/fold_evaluator.h"
#include "onnx_io/op_inference.h"

namespace placer {

namespace {

constexpr std::string_view kBinary[] = {"Add",     "Sub",         "Mul", "Div", "Mod", "Equal", "Less",
                                        "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or",  "Xor"};
constexpr std::string_view kUnary[] = {"Neg", "Abs", "Sign", "Floor", "Ceil", "Sqrt", "Reciprocal", "Not"};
constexpr std::string_view kReduce[] = {"ReduceSum", "ReduceProd", "ReduceMax", "ReduceMin"};
constexpr std::string_view kOther[] = {
    "Shape",   "Size",      "Constant", "ConstantOfShape", "Identity", "Cast",     "CastLike", "Gather",
    "GatherElements", "Unsqueeze", "Squeeze", "Concat", "Slice", "Split", "Reshape", "Flatten",
    "Transpose", "Expand", "Tile",     "Range",           "CumSum",   "NonZero",  "ScatterND", "Trilu",
    "Where",   "Min",       "Max"};

template <std::size_t N>
bool among(const std::string& op, const std::string_view (&list)[N]) {
  return std::find(std::begin(list), std::end(list), op) != std::end(list);
}

}  // namespace

namespace folding {

Values Evaluator::run() {
  const std::string& op = node_.op_type();
  if (op == "Shape" || op == "Size") return shape();
  if (op == "Constant") return constant();
  if (!allKnown() || node_.input_size() == 0) return std::nullopt;
  const ConstTensor* x = in(0);
  if (!x) return std::nullopt;
  if (among(op, kBinary)) {
    if (!in(1)) return std::nullopt;
    return one(binary(op, *x, *in(1), attributeInt(node_, "fmod", 0), max_));
  }
  if (among(op, kUnary)) return one(unary(op, *x));
  if (among(op, kReduce)) return reduceOp();
  if (op == "Identity") return one(*x);
  if (op == "Cast") return one(cast(*x, static_cast<int>(attributeInt(node_, "to", 0))));
  if (op == "CastLike") return in(1) ? one(cast(*x, in(1)->type)) : std::nullopt;
  if (op == "Where") return in(1) && in(2) ? one(where(*x, *in(1), *in(2), max_)) : std::nullopt;
  if (op == "Min" || op == "Max") return minMax();
  if (op == "Range") return in(1) && in(2) ? one(range(*x, *in(1), *in(2), max_)) : std::nullopt;
  if (op == "CumSum") {
    auto axis = intList(in(1));
    if (!axis || axis->size() != 1) return std::nullopt;
    return one(cumSum(*x, axis->front(), attributeInt(node_, "exclusive", 0) != 0,
                      attributeInt(node_, "reverse", 0) != 0));
  }
  if (op == "ConstantOfShape") return constantOfShape();
  if (op == "Gather") return gather();
  if (op == "GatherElements") return gatherElements();
  if (op == "Unsqueeze") return unsqueeze();
  if (op == "Squeeze") return squeeze();
  if (op == "Concat") return concat();
  if (op == "Slice") return slice();
  if (op == "Split") return split();
  if (op == "Reshape") return reshape();
  if (op == "Flatten") return flatten();
  if (op == "Transpose") return transpose();
  if (op == "Expand") return expand();
  if (op == "Tile") return tile();
  if (op == "NonZero") return nonZero();
  if (op == "ScatterND") return scatterND();
  if (op == "Trilu") return trilu();
  return std::nullopt;
}

Values Evaluator::shape() {
  if (node_.input_size() < 1) return std::nullopt;
  auto it = shapes_.find(node_.input(0));
  if (it == shapes_.end()) return std::nullopt;
  const Shape& dims = it->second;
  if (node_.op_type() == "Size") {
    std::int64_t count = 1;
    for (std::int64_t d : dims) {
      if (d < 0 || __builtin_mul_overflow(count, d, &count)) return std::nullopt;
    }
    return one(ConstTensor{TP::INT64, {}, {count}, {}});
  }
  const auto rank = static_cast<std::int64_t>(dims.size());
  std::int64_t start = attributeInt(node_, "start", 0), end = attributeInt(node_, "end", rank);
  if (start < 0) start = start < -rank ? 0 : start + rank;
  if (end < 0) end = end < -rank ? 0 : end + rank;
  start = std::clamp<std::int64_t>(start, 0, rank);
  end = std::clamp<std::int64_t>(end, start, rank);
  return one(ConstTensor{TP::INT64, {end - start}, {dims.begin() + start, dims.begin() + end}, {}});
}

Values Evaluator::constant() {
  for (const auto& a : node_.attribute()) {
    if (a.name() == "value" && a.has_t()) return one(readConstant(a.t(), max_));
    if (a.name() == "value_int") return one(ConstTensor{TP::INT64, {}, {a.i()}, {}});
    if (a.name() == "value_ints") {
      return one(ConstTensor{TP::INT64, {a.ints_size()}, {a.ints().begin(), a.ints().end()}, {}});
    }
    if (a.name() == "value_float") return one(ConstTensor{TP::FLOAT, {}, {}, {a.f()}});
    if (a.name() == "value_floats") {
      return one(ConstTensor{TP::FLOAT, {a.floats_size()}, {}, {a.floats().begin(), a.floats().end()}});
    }
  }
  return std::nullopt;
}

Values Evaluator::constantOfShape() {
  auto dims = intList(in(0));
  if (!dims || in(0)->dims.size() != 1 || !fits(*dims)) return std::nullopt;
  ConstTensor fill{TP::FLOAT, {}, {}, {0.0}};
  for (const auto& a : node_.attribute()) {
    if (a.name() == "value" && a.has_t()) {
      auto v = readConstant(a.t(), 1);
      if (!v || v->size() != 1) return std::nullopt;
      fill = *v;
    }
  }
  ConstTensor out = zeros(fill.type, *dims);
  if (out.floating()) {
    std::fill(out.reals.begin(), out.reals.end(), fill.reals[0]);
  } else {
    std::fill(out.ints.begin(), out.ints.end(), fill.ints[0]);
  }
  return one(std::move(out));
}

Values Evaluator::reduceOp() {
  const ConstTensor& x = *in(0);
  const AxesArgument a = axes(1);
  if (a.given && !a.values) return std::nullopt;
  std::vector<std::int64_t> list = a.given ? *a.values : std::vector<std::int64_t>{};
  if (list.empty() && attributeInt(node_, "noop_with_empty_axes", 0) != 0) return one(x);
  auto normal = normalAxes(list, x.dims.size());
  if (!normal) return std::nullopt;
  return one(reduce(node_.op_type(), x, *normal, attributeInt(node_, "keepdims", 1) != 0));
}

Values Evaluator::minMax() {
  std::optional<ConstTensor> acc = *in(0);
  for (int i = 1; i < node_.input_size() && acc; ++i) {
    if (!in(i)) return std::nullopt;
    acc = binary(node_.op_type(), *acc, *in(i), 0, max_);
  }
  return one(std::move(acc));
}

}  // namespace folding

std::int64_t attributeInt(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name && a.type() == onnx::AttributeProto::INT) return a.i();
  }
  return fallback;
}

std::optional<std::vector<std::int64_t>> attributeInts(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name && a.type() == onnx::AttributeProto::INTS) {
      return std::vector<std::int64_t>(a.ints().begin(), a.ints().end());
    }
  }
  return std::nullopt;
}

bool foldableOp(const onnx::NodeProto& node) {
  if (!(isDefaultDomain(node.domain()) || node.domain() == kOwnInferenceDomain)) return false;
  const std::string& op = node.op_type();
  return among(op, kBinary) || among(op, kUnary) || among(op, kReduce) || among(op, kOther);
}

std::optional<std::vector<ConstTensor>> evaluateNode(const onnx::NodeProto& node,
                                                     const std::map<std::string, ConstTensor>& known,
                                                     const std::map<std::string, Shape>& shapes,
                                                     std::size_t max_elements) {
  if (!foldableOp(node) || node.output_size() == 0) return std::nullopt;
  for (const auto& name : node.output()) {
    if (name.empty()) return std::nullopt;
  }
  folding::Values out = folding::Evaluator(node, known, shapes, max_elements).run();
  if (!out || out->size() != static_cast<std::size_t>(node.output_size())) return std::nullopt;
  for (const ConstTensor& t : *out) {
    auto count = elementCount(t.dims, max_elements);
    if (!count || *count != t.size()) return std::nullopt;
  }
  return out;
}

}  // namespace placer
