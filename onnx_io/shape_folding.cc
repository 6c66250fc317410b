#include "onnx_io/shape_folding.h"

#include <algorithm>
#include <cstring>

namespace placer {

namespace {

// The element count of `dims`, or nullopt when a dim is negative or the count exceeds the limit.
std::optional<std::size_t> elementCount(const Shape& dims) {
  std::size_t count = 1;
  for (std::int64_t d : dims) {
    if (d < 0) return std::nullopt;
    if (d == 0) return 0;
    if (static_cast<std::uint64_t>(d) > kMaxFoldedElements ||
        count * static_cast<std::size_t>(d) > kMaxFoldedElements)
      return std::nullopt;
    count *= static_cast<std::size_t>(d);
  }
  return count;
}

template <typename T>
std::vector<std::int64_t> fromRaw(const std::string& raw, std::size_t count) {
  std::vector<std::int64_t> out;
  if (raw.size() != count * sizeof(T)) return out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
    out.push_back(static_cast<std::int64_t>(v));
  }
  return out;
}

std::optional<std::int64_t> apply(const std::string& op, std::int64_t x, std::int64_t y) {
  std::int64_t r = 0;
  if (op == "Add") {
    if (__builtin_add_overflow(x, y, &r)) return std::nullopt;
  } else if (op == "Sub") {
    if (__builtin_sub_overflow(x, y, &r)) return std::nullopt;
  } else if (op == "Mul") {
    if (__builtin_mul_overflow(x, y, &r)) return std::nullopt;
  } else if (op == "Div") {
    if (y == 0 || (x == INT64_MIN && y == -1)) return std::nullopt;
    r = x / y;
  } else {
    return std::nullopt;
  }
  return r;
}

// Elementwise int64 arithmetic with numpy broadcasting of a scalar or equal shapes.
std::optional<IntTensor> binary(const IntTensor& a, const IntTensor& b, const std::string& op) {
  if (a.values.empty() || b.values.empty()) return std::nullopt;
  const bool a_scalar = a.values.size() == 1, b_scalar = b.values.size() == 1;
  if (!a_scalar && !b_scalar && (a.dims != b.dims || a.values.size() != b.values.size())) return std::nullopt;
  IntTensor out{a_scalar ? b.dims : a.dims, {}};
  const std::size_t n = std::max(a.values.size(), b.values.size());
  for (std::size_t i = 0; i < n; ++i) {
    auto r = apply(op, a.values[a_scalar ? 0 : i], b.values[b_scalar ? 0 : i]);
    if (!r) return std::nullopt;
    out.values.push_back(*r);
  }
  return out;
}

// A one-element integer operand's value.
std::optional<std::int64_t> single(const IntTensor* t) {
  if (!t || t->values.size() != 1) return std::nullopt;
  return t->values.front();
}

}  // namespace

std::optional<IntTensor> intValue(const onnx::TensorProto& t) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL) return std::nullopt;
  if (t.data_type() != onnx::TensorProto::INT64 && t.data_type() != onnx::TensorProto::INT32)
    return std::nullopt;
  IntTensor out{Shape(t.dims().begin(), t.dims().end()), {}};
  const std::optional<std::size_t> count = elementCount(out.dims);
  if (!count) return std::nullopt;
  if (t.data_type() == onnx::TensorProto::INT64) {
    if (t.int64_data_size() > 0) {
      out.values.assign(t.int64_data().begin(), t.int64_data().end());
    } else {
      out.values = fromRaw<std::int64_t>(t.raw_data(), *count);
    }
  } else {
    if (t.int32_data_size() > 0) {
      out.values.assign(t.int32_data().begin(), t.int32_data().end());
    } else {
      out.values = fromRaw<std::int32_t>(t.raw_data(), *count);
    }
  }
  if (out.values.size() != *count) return std::nullopt;
  return out;
}

onnx::TensorProto intTensorProto(const std::string& name, const IntTensor& value) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::INT64);
  for (auto d : value.dims)
    t.add_dims(d);
  for (auto v : value.values)
    t.add_int64_data(v);
  return t;
}

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

std::optional<IntTensor> evaluateShapeArithmetic(const onnx::NodeProto& node,
                                                 const std::map<std::string, IntTensor>& known,
                                                 const std::map<std::string, Shape>& shapes) {
  const std::string& op = node.op_type();
  if (!(node.domain().empty() || node.domain() == "ai.onnx") || node.output_size() != 1) return std::nullopt;
  auto in = [&](int i) -> const IntTensor* {
    if (i >= node.input_size() || node.input(i).empty()) return nullptr;
    auto it = known.find(node.input(i));
    return it == known.end() ? nullptr : &it->second;
  };
  if (op == "Shape") {
    if (node.input_size() < 1) return std::nullopt;
    auto it = shapes.find(node.input(0));
    if (it == shapes.end()) return std::nullopt;
    const auto rank = static_cast<std::int64_t>(it->second.size());
    std::int64_t start = attributeInt(node, "start", 0), end = attributeInt(node, "end", rank);
    if (start < 0) start = start < -rank ? 0 : start + rank;
    if (end < 0) end = end < -rank ? 0 : end + rank;
    start = std::clamp<std::int64_t>(start, 0, rank);
    end = std::clamp<std::int64_t>(end, start, rank);
    return IntTensor{{end - start}, {it->second.begin() + start, it->second.begin() + end}};
  }
  if (op == "Constant") {
    for (const auto& a : node.attribute()) {
      if (a.name() == "value" && a.has_t()) return intValue(a.t());
    }
    return std::nullopt;
  }
  if (op == "Identity" || op == "Cast") {
    if (op == "Cast" && attributeInt(node, "to", 0) != onnx::TensorProto::INT64) return std::nullopt;
    if (const IntTensor* x = in(0)) return *x;
    return std::nullopt;
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    const IntTensor *a = in(0), *b = in(1);
    if (!a || !b) return std::nullopt;
    return binary(*a, *b, op);
  }
  if (op == "Gather") {
    const IntTensor *data = in(0), *indices = in(1);
    if (!data || !indices || data->dims.size() != 1 || attributeInt(node, "axis", 0) != 0)
      return std::nullopt;
    IntTensor out{indices->dims, {}};
    const auto size = static_cast<std::int64_t>(data->values.size());
    for (std::int64_t i : indices->values) {
      if (i < -size || i >= size) return std::nullopt;
      out.values.push_back(data->values[i < 0 ? i + size : i]);
    }
    return out;
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    const IntTensor* x = in(0);
    if (!x || x->values.size() != 1 || x->dims.size() > 1) return std::nullopt;
    // Only scalar <-> one-element vector: the values stay, the rank changes.
    return IntTensor{op == "Unsqueeze" ? Shape{1} : Shape{}, x->values};
  }
  if (op == "Concat") {
    IntTensor out{{0}, {}};
    for (int i = 0; i < node.input_size(); ++i) {
      const IntTensor* x = in(i);
      if (!x || x->dims.size() != 1) return std::nullopt;
      out.values.insert(out.values.end(), x->values.begin(), x->values.end());
      if (out.values.size() > kMaxFoldedElements) return std::nullopt;
    }
    out.dims[0] = static_cast<std::int64_t>(out.values.size());
    return out;
  }
  if (op == "Slice") {
    const IntTensor* x = in(0);
    if (!x || x->dims.size() != 1) return std::nullopt;
    std::optional<std::int64_t> start, end, step = 1;
    if (node.input_size() >= 3) {  // opset >= 10: starts, ends[, axes, steps] as inputs
      start = single(in(1));
      end = single(in(2));
      if (node.input_size() >= 5 && !node.input(4).empty()) step = single(in(4));
    } else {  // opset < 10: attributes, one axis here
      auto s = attributeInts(node, "starts"), e = attributeInts(node, "ends");
      if (s && s->size() == 1) start = s->front();
      if (e && e->size() == 1) end = e->front();
    }
    if (!start || !end || step != 1) return std::nullopt;
    const auto size = static_cast<std::int64_t>(x->values.size());
    std::int64_t from = *start, to = *end;
    if (from < 0) from = from < -size ? 0 : from + size;
    if (to < 0) to = to < -size ? 0 : to + size;
    from = std::clamp<std::int64_t>(from, 0, size);
    to = std::clamp<std::int64_t>(to, from, size);
    return IntTensor{{to - from}, {x->values.begin() + from, x->values.begin() + to}};
  }
  return std::nullopt;
}

}  // namespace placer
