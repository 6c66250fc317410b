// Shapes of the default domain's operator forms of opsets 18-21 (onnx_io/op_inference.h), from the
// ONNX operator specification of each version.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/einsum.h"
#include "onnx_io/constant_folding.h"
#include "onnx_io/op_inference.h"

namespace placer::inference {

namespace {

using Types = std::optional<std::vector<TensorType>>;
using TP = onnx::TensorProto;

Types one(int element_type, std::optional<Shape> shape) {
  return std::vector<TensorType>{{element_type, std::move(shape)}};
}

std::optional<std::vector<std::int64_t>> intValues(const ConstTensor* t) {
  if (t == nullptr || t->floating() || t->dims.size() > 1) return std::nullopt;
  return t->ints;
}

std::optional<std::vector<double>> realValues(const ConstTensor* t) {
  if (t == nullptr || t->dims.size() > 1) return std::nullopt;
  std::vector<double> out;
  for (std::size_t i = 0; i < t->size(); ++i)
    out.push_back(t->real(i));
  return out;
}

// Axes normalised against rank, or nullopt when one is out of range.
std::optional<std::vector<std::int64_t>> normalAxes(std::vector<std::int64_t> axes, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  for (std::int64_t& a : axes) {
    if (a < -r || a >= r) return std::nullopt;
    if (a < 0) a += r;
  }
  return axes;
}

// Reduce*-18 (and ReduceSum-13): axes as input 1; none given reduces every axis unless
// noop_with_empty_axes.
Types reduce(const onnx::NodeProto& node, const NodeInputs& in) {
  const TensorType* x = in.type(0);
  if (x == nullptr) return std::nullopt;
  const int type = node.op_type() == "ArgMax" || node.op_type() == "ArgMin" ? TP::INT64 : x->element_type;
  if (!x->shape) return one(type, std::nullopt);
  std::vector<std::int64_t> axes;
  if (auto attr = attributeInts(node, "axes")) {
    axes = *attr;
  } else if (node.input_size() > 1 && !node.input(1).empty()) {
    auto v = intValues(in.value(1));
    if (!v) return one(type, std::nullopt);
    axes = *v;
  }
  const bool keep = attributeInt(node, "keepdims", 1) != 0;
  if (axes.empty() && attributeInt(node, "noop_with_empty_axes", 0) != 0) return one(type, x->shape);
  if (axes.empty()) {
    axes.resize(x->shape->size());
    std::iota(axes.begin(), axes.end(), 0);
  }
  auto normal = normalAxes(axes, x->shape->size());
  if (!normal) return std::nullopt;
  Shape out;
  for (std::size_t d = 0; d < x->shape->size(); ++d) {
    const bool reduced = std::find(normal->begin(), normal->end(), static_cast<std::int64_t>(d)) != normal->end();
    if (!reduced) out.push_back((*x->shape)[d]);
    else if (keep) out.push_back(1);
  }
  return one(type, out);
}

// Pad-18: pads [2·len(axes)] for the axes input (all axes when absent).
Types pad(const onnx::NodeProto& node, const NodeInputs& in) {
  const TensorType* x = in.type(0);
  if (x == nullptr) return std::nullopt;
  auto pads = intValues(in.value(1));
  if (!x->shape || !pads) return one(x->element_type, std::nullopt);
  std::vector<std::int64_t> axes(x->shape->size());
  std::iota(axes.begin(), axes.end(), 0);
  if (node.input_size() > 3 && !node.input(3).empty()) {
    auto v = intValues(in.value(3));
    if (!v) return one(x->element_type, std::nullopt);
    auto normal = normalAxes(*v, x->shape->size());
    if (!normal) return std::nullopt;
    axes = *normal;
  }
  if (pads->size() != 2 * axes.size()) return std::nullopt;
  Shape out = *x->shape;
  for (std::size_t k = 0; k < axes.size(); ++k)
    out[axes[k]] += (*pads)[k] + (*pads)[k + axes.size()];
  if (std::any_of(out.begin(), out.end(), [](std::int64_t d) { return d < 0; })) return std::nullopt;
  return one(x->element_type, out);
}

// Split-18: the split input, or num_outputs parts of ceil(dim / n) (the last smaller).
Types split(const onnx::NodeProto& node, const NodeInputs& in) {
  const TensorType* x = in.type(0);
  if (x == nullptr) return std::nullopt;
  std::vector<TensorType> out(node.output_size(), TensorType{x->element_type, std::nullopt});
  if (!x->shape) return out;
  const auto rank = static_cast<std::int64_t>(x->shape->size());
  std::int64_t axis = attributeInt(node, "axis", 0);
  if (axis < -rank || axis >= rank) return std::nullopt;
  if (axis < 0) axis += rank;
  const std::int64_t size = (*x->shape)[axis];
  std::vector<std::int64_t> sizes;
  if (node.input_size() > 1 && !node.input(1).empty()) {
    auto v = intValues(in.value(1));
    if (!v) return out;
    sizes = *v;
  } else {
    const std::int64_t n = attributeInt(node, "num_outputs", node.output_size());
    if (n <= 0) return std::nullopt;
    const std::int64_t chunk = (size + n - 1) / n;
    for (std::int64_t done = 0; done < size && chunk > 0; done += chunk)
      sizes.push_back(std::min(chunk, size - done));
  }
  if (static_cast<int>(sizes.size()) != node.output_size()) return std::nullopt;
  for (int i = 0; i < node.output_size(); ++i) {
    out[i].shape = *x->shape;
    (*out[i].shape)[axis] = sizes[i];
  }
  return out;
}

// Resize-18/19: sizes (with axes and keep_aspect_ratio_policy) or scales (floor(dim · scale)).
Types resize(const onnx::NodeProto& node, const NodeInputs& in) {
  const TensorType* x = in.type(0);
  if (x == nullptr) return std::nullopt;
  if (!x->shape) return one(x->element_type, std::nullopt);
  const Shape& dims = *x->shape;
  std::vector<std::int64_t> axes(dims.size());
  std::iota(axes.begin(), axes.end(), 0);
  if (auto a = attributeInts(node, "axes")) {
    auto normal = normalAxes(*a, dims.size());
    if (!normal) return std::nullopt;
    axes = *normal;
  }
  Shape out = dims;
  auto sizes = intValues(in.value(3));
  auto scales = realValues(in.value(2));
  if (sizes && !sizes->empty()) {
    if (sizes->size() != axes.size()) return std::nullopt;
    const std::string policy = attributeString(node, "keep_aspect_ratio_policy", "stretch");
    if (policy == "stretch") {
      for (std::size_t k = 0; k < axes.size(); ++k)
        out[axes[k]] = (*sizes)[k];
      return one(x->element_type, out);
    }
    double scale = policy == "not_larger" ? 1e300 : 0;
    for (std::size_t k = 0; k < axes.size(); ++k) {
      const double s = static_cast<double>((*sizes)[k]) / static_cast<double>(dims[axes[k]]);
      scale = policy == "not_larger" ? std::min(scale, s) : std::max(scale, s);
    }
    for (std::int64_t a : axes)  // round half away from zero, as the specification's round()
      out[a] = static_cast<std::int64_t>(std::round(scale * static_cast<double>(dims[a])));
    return one(x->element_type, out);
  }
  if (scales && !scales->empty()) {
    if (scales->size() != axes.size()) return std::nullopt;
    for (std::size_t k = 0; k < axes.size(); ++k)
      out[axes[k]] = static_cast<std::int64_t>(std::floor(static_cast<double>(dims[axes[k]]) * (*scales)[k]));
    return one(x->element_type, out);
  }
  return one(x->element_type, std::nullopt);
}

// Pooling output dims: pads, strides, dilations, ceil_mode, auto_pad.
Types pool(const onnx::NodeProto& node, const NodeInputs& in) {
  const TensorType* x = in.type(0);
  if (x == nullptr) return std::nullopt;
  auto kernel = attributeInts(node, "kernel_shape");
  if (!x->shape || !kernel || x->shape->size() != kernel->size() + 2) return one(x->element_type, std::nullopt);
  const std::size_t n = kernel->size();
  auto strides = attributeInts(node, "strides").value_or(std::vector<std::int64_t>(n, 1));
  auto dilations = attributeInts(node, "dilations").value_or(std::vector<std::int64_t>(n, 1));
  auto pads = attributeInts(node, "pads").value_or(std::vector<std::int64_t>(2 * n, 0));
  if (strides.size() != n || dilations.size() != n || pads.size() != 2 * n) return std::nullopt;
  const bool ceil = attributeInt(node, "ceil_mode", 0) != 0;
  const std::string auto_pad = attributeString(node, "auto_pad", "NOTSET");
  Shape out{(*x->shape)[0], (*x->shape)[1]};
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t in_dim = (*x->shape)[i + 2], extent = dilations[i] * ((*kernel)[i] - 1) + 1;
    if (strides[i] <= 0) return std::nullopt;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out.push_back((in_dim + strides[i] - 1) / strides[i]);
    } else if (auto_pad == "VALID") {
      out.push_back((in_dim - extent) / strides[i] + 1);
    } else {
      const double span = static_cast<double>(in_dim + pads[i] + pads[i + n] - extent) / static_cast<double>(strides[i]);
      std::int64_t o = static_cast<std::int64_t>(ceil ? std::ceil(span) : std::floor(span)) + 1;
      // With ceil_mode, a last window that starts in the right padding is dropped.
      if (ceil && (o - 1) * strides[i] >= in_dim + pads[i]) --o;
      out.push_back(o);
    }
  }
  return one(x->element_type, out);
}

// DFT: dft_length (input 1) and, from opset 20, axis (input 2, default -2; before, an attribute,
// default 1); the last dim becomes 2 (complex).
Types dft(const onnx::NodeProto& node, std::int64_t opset, const NodeInputs& in) {
  const TensorType* x = in.type(0);
  if (x == nullptr) return std::nullopt;
  if (!x->shape || x->shape->size() < 2) return one(x->element_type, std::nullopt);
  const auto rank = static_cast<std::int64_t>(x->shape->size());
  std::int64_t axis = opset >= 20 ? -2 : attributeInt(node, "axis", 1);
  if (opset >= 20 && node.input_size() > 2 && !node.input(2).empty()) {
    auto v = intValues(in.value(2));
    if (!v || v->size() != 1) return one(x->element_type, std::nullopt);
    axis = v->front();
  }
  if (axis < -rank || axis >= rank - 1) return std::nullopt;
  if (axis < 0) axis += rank;
  Shape out = *x->shape;
  std::int64_t length = out[axis];
  if (node.input_size() > 1 && !node.input(1).empty()) {
    auto v = intValues(in.value(1));
    if (!v || v->size() != 1) return one(x->element_type, std::nullopt);
    length = v->front();
  }
  out[axis] = attributeInt(node, "onesided", 0) != 0 ? length / 2 + 1 : length;
  out.back() = 2;
  return one(x->element_type, out);
}

// Col2Im-18: input [N, C·∏block, L], image_shape, block_shape: [N, C, image_shape...].
Types col2im(const NodeInputs& in) {
  const TensorType* x = in.type(0);
  if (x == nullptr) return std::nullopt;
  auto image = intValues(in.value(1));
  auto block = intValues(in.value(2));
  if (!x->shape || x->shape->size() != 3 || !image || !block || block->empty()) return one(x->element_type, std::nullopt);
  const std::int64_t volume = std::accumulate(block->begin(), block->end(), std::int64_t{1}, std::multiplies<>());
  if (volume <= 0 || (*x->shape)[1] % volume != 0) return std::nullopt;
  Shape out{(*x->shape)[0], (*x->shape)[1] / volume};
  out.insert(out.end(), image->begin(), image->end());
  return one(x->element_type, out);
}

// CenterCropPad-18: the axes' dims become the shape input's.
Types centerCropPad(const onnx::NodeProto& node, const NodeInputs& in) {
  const TensorType* x = in.type(0);
  if (x == nullptr) return std::nullopt;
  auto target = intValues(in.value(1));
  if (!x->shape || !target) return one(x->element_type, std::nullopt);
  std::vector<std::int64_t> axes(x->shape->size());
  std::iota(axes.begin(), axes.end(), 0);
  if (auto a = attributeInts(node, "axes")) {
    auto normal = normalAxes(*a, x->shape->size());
    if (!normal) return std::nullopt;
    axes = *normal;
  }
  if (axes.size() != target->size()) return std::nullopt;
  Shape out = *x->shape;
  for (std::size_t k = 0; k < axes.size(); ++k)
    out[axes[k]] = (*target)[k];
  return one(x->element_type, out);
}

// QuantizeLinear / DequantizeLinear of opsets 19-21: the shape of x; DequantizeLinear's type is the
// scale's, QuantizeLinear's output_dtype, else the zero point's, else uint8.
Types quantize(const onnx::NodeProto& node, const NodeInputs& in) {
  const TensorType* x = in.type(0);
  if (x == nullptr) return std::nullopt;
  int type = TP::UINT8;
  if (node.op_type() == "DequantizeLinear") {
    const TensorType* scale = in.type(1);
    type = scale != nullptr && scale->element_type != 0 ? scale->element_type : TP::FLOAT;
  } else if (const std::int64_t dtype = attributeInt(node, "output_dtype", 0); dtype != 0) {
    type = static_cast<int>(dtype);
  } else if (const TensorType* zero = in.type(2); zero != nullptr && zero->element_type != 0) {
    type = zero->element_type;
  }
  return one(type, x->shape);
}

// Einsum (every opset): libonnx 1.12 gives its output a rank and no dimensions; the equation and the
// operands' shapes give them (core/einsum.h).
Types einsum(const onnx::NodeProto& node, const NodeInputs& in) {
  const TensorType* x = in.type(0);
  if (x == nullptr) return std::nullopt;
  std::vector<Shape> operands;
  for (int k = 0; k < node.input_size(); ++k) {
    const Shape* s = in.shape(k);
    if (s == nullptr) return one(x->element_type, std::nullopt);
    operands.push_back(*s);
  }
  auto indices = readEinsum(attributeString(node, "equation", ""), operands);
  if (!indices) return std::nullopt;
  return one(x->element_type, indices->output);
}

}  // namespace

std::optional<std::vector<TensorType>> newerForms(const onnx::NodeProto& node, std::int64_t opset,
                                                  const NodeInputs& in) {
  const std::string& op = node.op_type();
  const TensorType* x = in.type(0);
  if (op.rfind("Reduce", 0) == 0) return reduce(node, in);
  if (op == "Pad") return pad(node, in);
  if (op == "Split") return split(node, in);
  if (op == "Resize") return resize(node, in);
  if (op == "AveragePool" || op == "LpPool" || op == "MaxPool") return pool(node, in);
  if (op == "DFT") return dft(node, opset, in);
  if (op == "Col2Im") return col2im(in);
  if (op == "CenterCropPad") return centerCropPad(node, in);
  if (op == "QuantizeLinear" || op == "DequantizeLinear") return quantize(node, in);
  if (op == "Einsum") return einsum(node, in);
  if (x == nullptr) return std::nullopt;
  if (op == "Cast") return one(static_cast<int>(attributeInt(node, "to", 0)), x->shape);
  if (op == "CastLike") {
    const TensorType* like = in.type(1);
    return one(like != nullptr ? like->element_type : 0, x->shape);
  }
  if (op == "GroupNormalization" || op == "Gelu" || op == "Mish" || op == "BitwiseNot" ||
      op == "SimplifiedLayerNormalization")
    return one(x->element_type, x->shape);
  if (op == "BitwiseAnd" || op == "BitwiseOr" || op == "BitwiseXor") {
    const Shape *a = in.shape(0), *b = in.shape(1);
    return one(x->element_type, a && b ? broadcastShapes(*a, *b) : std::nullopt);
  }
  return std::nullopt;
}

}  // namespace placer::inference
