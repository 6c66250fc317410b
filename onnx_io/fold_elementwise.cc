#include "onnx_io/fold_elementwise.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace placer::folding {

namespace {

using TP = onnx::TensorProto;

// Sets out's element from an exact result, checked against out's type.
bool pushInt(ConstTensor& out, std::int64_t v) {
  if (!fitsType(out.type, v)) return false;
  out.ints.push_back(v);
  return true;
}

bool pushReal(ConstTensor& out, double v) {
  auto r = roundToType(out.type, v);
  if (!r) return false;
  out.reals.push_back(*r);
  return true;
}

std::optional<std::int64_t> intOp(const std::string& op, std::int64_t x, std::int64_t y, std::int64_t fmod) {
  std::int64_t r = 0;
  if (op == "Add") {
    if (__builtin_add_overflow(x, y, &r)) return std::nullopt;
  } else if (op == "Sub") {
    if (__builtin_sub_overflow(x, y, &r)) return std::nullopt;
  } else if (op == "Mul") {
    if (__builtin_mul_overflow(x, y, &r)) return std::nullopt;
  } else if (op == "Div") {
    if (y == 0 || (x == INT64_MIN && y == -1)) return std::nullopt;
    r = x / y;  // truncation toward zero, as ONNX Runtime's integer Div
  } else if (op == "Mod") {
    if (y == 0 || (x == INT64_MIN && y == -1)) return std::nullopt;
    r = x % y;
    if (fmod == 0 && r != 0 && ((r < 0) != (y < 0))) r += y;  // the sign of the divisor
  } else if (op == "Min") {
    r = std::min(x, y);
  } else if (op == "Max") {
    r = std::max(x, y);
  } else {
    return std::nullopt;
  }
  return r;
}

std::optional<double> realOp(const std::string& op, double x, double y, std::int64_t fmod) {
  if (std::isnan(x) || std::isnan(y)) return std::nullopt;  // NaN propagation differs between runtimes
  if (op == "Add") return x + y;
  if (op == "Sub") return x - y;
  if (op == "Mul") return x * y;
  if (op == "Div") return y == 0 ? std::optional<double>() : x / y;
  if (op == "Mod") return fmod == 1 && y != 0 ? std::optional<double>(std::fmod(x, y)) : std::nullopt;
  if (op == "Min") return std::min(x, y);
  if (op == "Max") return std::max(x, y);
  return std::nullopt;
}

std::optional<bool> compare(const std::string& op, double x, double y) {
  if (op == "Equal") return x == y;
  if (op == "Less") return x < y;
  if (op == "LessOrEqual") return x <= y;
  if (op == "Greater") return x > y;
  if (op == "GreaterOrEqual") return x >= y;
  return std::nullopt;
}

std::optional<bool> compareInts(const std::string& op, std::int64_t x, std::int64_t y) {
  if (op == "Equal") return x == y;
  if (op == "Less") return x < y;
  if (op == "LessOrEqual") return x <= y;
  if (op == "Greater") return x > y;
  if (op == "GreaterOrEqual") return x >= y;
  if (op == "And") return x && y;
  if (op == "Or") return x || y;
  if (op == "Xor") return (x != 0) != (y != 0);
  return std::nullopt;
}

}  // namespace

std::vector<std::size_t> stridesOf(const Shape& dims) {
  std::vector<std::size_t> strides(dims.size(), 1);
  for (std::size_t i = dims.size(); i-- > 1;)
    strides[i - 1] = strides[i] * static_cast<std::size_t>(dims[i]);
  return strides;
}

std::vector<std::size_t> broadcastIndex(const Shape& in, const Shape& out) {
  const std::size_t rank = out.size(), offset = rank - in.size();
  std::vector<std::size_t> in_strides(rank, 0);
  const std::vector<std::size_t> strides = stridesOf(in);
  for (std::size_t i = 0; i < in.size(); ++i)
    in_strides[offset + i] = in[i] == 1 ? 0 : strides[i];
  std::size_t count = 1;
  for (std::int64_t d : out)
    count *= static_cast<std::size_t>(d);
  std::vector<std::size_t> index;
  index.reserve(count);
  if (count == 0) return index;
  std::vector<std::int64_t> at(rank, 0);
  std::size_t flat = 0;
  for (std::size_t n = 0; n < count; ++n) {
    index.push_back(flat);
    for (std::size_t d = rank; d-- > 0;) {  // odometer step, keeping flat in step
      if (++at[d] < out[d]) {
        flat += in_strides[d];
        break;
      }
      flat -= in_strides[d] * static_cast<std::size_t>(out[d] - 1);
      at[d] = 0;
    }
  }
  return index;
}

ConstTensor pick(const ConstTensor& src, const std::vector<std::size_t>& index, Shape dims) {
  ConstTensor out{src.type, std::move(dims), {}, {}};
  if (src.floating()) {
    out.reals.reserve(index.size());
    for (std::size_t i : index)
      out.reals.push_back(src.reals[i]);
  } else {
    out.ints.reserve(index.size());
    for (std::size_t i : index)
      out.ints.push_back(src.ints[i]);
  }
  return out;
}

std::optional<ConstTensor> binary(const std::string& op, const ConstTensor& a, const ConstTensor& b,
                                  std::int64_t fmod, std::size_t max_elements) {
  if (a.type != b.type) return std::nullopt;
  const auto dims = broadcastShapes({a.dims, b.dims});
  if (!dims || !elementCount(*dims, max_elements)) return std::nullopt;
  const std::vector<std::size_t> ia = broadcastIndex(a.dims, *dims), ib = broadcastIndex(b.dims, *dims);
  const bool logic = op == "And" || op == "Or" || op == "Xor";
  const bool comparison = logic || compare(op, 0, 0).has_value();
  if (logic && a.type != TP::BOOL) return std::nullopt;
  ConstTensor out{comparison ? static_cast<int>(TP::BOOL) : a.type, *dims, {}, {}};
  for (std::size_t n = 0; n < ia.size(); ++n) {
    if (comparison) {
      const std::optional<bool> r = a.floating() ? compare(op, a.reals[ia[n]], b.reals[ib[n]])
                                                 : compareInts(op, a.ints[ia[n]], b.ints[ib[n]]);
      if (!r) return std::nullopt;
      out.ints.push_back(*r ? 1 : 0);
    } else if (a.floating()) {
      const std::optional<double> r = realOp(op, a.reals[ia[n]], b.reals[ib[n]], fmod);
      if (!r || !pushReal(out, *r)) return std::nullopt;
    } else {
      if (a.type == TP::BOOL) return std::nullopt;
      const std::optional<std::int64_t> r = intOp(op, a.ints[ia[n]], b.ints[ib[n]], fmod);
      if (!r || !pushInt(out, *r)) return std::nullopt;
    }
  }
  return out;
}

std::optional<ConstTensor> where(const ConstTensor& condition, const ConstTensor& x, const ConstTensor& y,
                                 std::size_t max_elements) {
  if (condition.type != TP::BOOL || x.type != y.type) return std::nullopt;
  const auto dims = broadcastShapes({condition.dims, x.dims, y.dims});
  if (!dims || !elementCount(*dims, max_elements)) return std::nullopt;
  const auto ic = broadcastIndex(condition.dims, *dims), ix = broadcastIndex(x.dims, *dims),
             iy = broadcastIndex(y.dims, *dims);
  ConstTensor out{x.type, *dims, {}, {}};
  for (std::size_t n = 0; n < ic.size(); ++n) {
    const bool take_x = condition.ints[ic[n]] != 0;
    if (x.floating()) {
      out.reals.push_back(take_x ? x.reals[ix[n]] : y.reals[iy[n]]);
    } else {
      out.ints.push_back(take_x ? x.ints[ix[n]] : y.ints[iy[n]]);
    }
  }
  return out;
}

std::optional<ConstTensor> unary(const std::string& op, const ConstTensor& x) {
  ConstTensor out{x.type, x.dims, {}, {}};
  if (op == "Not") {
    if (x.type != TP::BOOL) return std::nullopt;
    for (std::int64_t v : x.ints)
      out.ints.push_back(v ? 0 : 1);
    return out;
  }
  if (x.floating()) {
    for (double v : x.reals) {
      double r;
      if (std::isnan(v)) return std::nullopt;
      if (op == "Neg") r = -v;
      else if (op == "Abs") r = std::fabs(v);
      else if (op == "Sign") r = v > 0 ? 1 : v < 0 ? -1 : 0;
      else if (op == "Floor") r = std::floor(v);
      else if (op == "Ceil") r = std::ceil(v);
      else if (op == "Sqrt") r = std::sqrt(v);
      else if (op == "Reciprocal") r = 1.0 / v;
      else return std::nullopt;
      if (std::isnan(r) || !pushReal(out, r)) return std::nullopt;
    }
    return out;
  }
  if (x.type == TP::BOOL) return std::nullopt;
  for (std::int64_t v : x.ints) {
    std::int64_t r;
    if (op == "Neg" || op == "Abs") {
      if (v == INT64_MIN) return std::nullopt;
      r = op == "Neg" ? -v : (v < 0 ? -v : v);
    } else if (op == "Sign") {
      r = v > 0 ? 1 : v < 0 ? -1 : 0;
    } else if (op == "Floor" || op == "Ceil") {
      r = v;
    } else {
      return std::nullopt;
    }
    if (!pushInt(out, r)) return std::nullopt;
  }
  return out;
}

std::optional<ConstTensor> cast(const ConstTensor& x, int type) {
  if (!foldableType(type)) return std::nullopt;
  ConstTensor out{type, x.dims, {}, {}};
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (type == TP::BOOL) {
      if (x.floating() && std::isnan(x.reals[i])) return std::nullopt;
      out.ints.push_back(x.real(i) != 0 ? 1 : 0);
    } else if (out.floating()) {
      if (!pushReal(out, x.floating() ? x.reals[i] : static_cast<double>(x.ints[i]))) return std::nullopt;
      // An int64 beyond 2^53 converts with one rounding in a runtime; through double it may round twice.
      constexpr std::int64_t kExact = std::int64_t{1} << 53;
      if (!x.floating() && (x.ints[i] > kExact || x.ints[i] < -kExact)) return std::nullopt;
    } else if (x.floating()) {
      const double v = std::trunc(x.reals[i]);
      if (!std::isfinite(v) || std::fabs(v) >= 9.2e18 || !pushInt(out, static_cast<std::int64_t>(v)))
        return std::nullopt;
    } else if (!pushInt(out, x.ints[i])) {
      return std::nullopt;
    }
  }
  return out;
}

std::optional<ConstTensor> range(const ConstTensor& start, const ConstTensor& limit, const ConstTensor& delta,
                                 std::size_t max_elements) {
  if (start.type != limit.type || start.type != delta.type || start.size() != 1 || limit.size() != 1 ||
      delta.size() != 1 || start.type == TP::BOOL)
    return std::nullopt;
  ConstTensor out{start.type, {0}, {}, {}};
  if (start.floating()) {
    const double s = start.reals[0], l = limit.reals[0], d = delta.reals[0];
    if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d)) return std::nullopt;
    const double n = std::max(std::ceil((l - s) / d), 0.0);
    if (n > static_cast<double>(max_elements)) return std::nullopt;
    double v = s;
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) {  // accumulated in the type
      out.reals.push_back(v);
      const std::optional<double> next = roundToType(out.type, v + d);
      if (!next) return std::nullopt;
      v = *next;
    }
  } else {
    const std::int64_t s = start.ints[0], l = limit.ints[0], d = delta.ints[0];
    if (d == 0) return std::nullopt;
    std::int64_t span;
    if (__builtin_sub_overflow(l, s, &span)) return std::nullopt;
    std::int64_t n = span / d + (span % d != 0 && ((span < 0) == (d < 0)) ? 1 : 0);
    n = std::max<std::int64_t>(n, 0);
    if (static_cast<std::uint64_t>(n) > max_elements) return std::nullopt;
    for (std::int64_t i = 0; i < n; ++i) {
      if (!pushInt(out, s + i * d)) return std::nullopt;
    }
  }
  out.dims[0] = static_cast<std::int64_t>(out.size());
  return out;
}

std::optional<ConstTensor> cumSum(const ConstTensor& x, std::int64_t axis, bool exclusive, bool reverse) {
  const auto rank = static_cast<std::int64_t>(x.dims.size());
  if (axis < -rank || axis >= rank || x.type == TP::BOOL) return std::nullopt;
  if (axis < 0) axis += rank;
  ConstTensor out = zeros(x.type, x.dims);
  const std::vector<std::size_t> strides = stridesOf(x.dims);
  const std::size_t length = static_cast<std::size_t>(x.dims[axis]), stride = strides[axis];
  const std::size_t lines = length == 0 ? 0 : x.size() / length;
  for (std::size_t line = 0; line < lines; ++line) {
    const std::size_t base = (line / stride) * stride * length + line % stride;
    double real_sum = 0;
    std::int64_t int_sum = 0;
    for (std::size_t k = 0; k < length; ++k) {
      const std::size_t i = base + (reverse ? length - 1 - k : k) * stride;
      if (x.floating()) {
        if (exclusive) out.reals[i] = real_sum;
        const std::optional<double> sum = roundToType(x.type, real_sum + x.reals[i]);
        if (!sum) return std::nullopt;
        real_sum = *sum;
        if (!exclusive) out.reals[i] = real_sum;
      } else {
        if (exclusive) out.ints[i] = int_sum;
        if (__builtin_add_overflow(int_sum, x.ints[i], &int_sum) || !fitsType(x.type, int_sum))
          return std::nullopt;
        if (!exclusive) out.ints[i] = int_sum;
      }
    }
  }
  return out;
}

std::optional<ConstTensor> reduce(const std::string& op, const ConstTensor& x, const std::vector<std::int64_t>& axes,
                                  bool keepdims) {
  if (x.type == TP::BOOL) return std::nullopt;
  const std::size_t rank = x.dims.size();
  std::vector<bool> reduced(rank, axes.empty());
  for (std::int64_t a : axes)
    reduced[static_cast<std::size_t>(a)] = true;
  Shape out_dims, kept_dims;
  for (std::size_t d = 0; d < rank; ++d) {
    if (reduced[d] && (op == "ReduceMax" || op == "ReduceMin") && x.dims[d] == 0) return std::nullopt;
    kept_dims.push_back(reduced[d] ? 1 : x.dims[d]);
    if (!reduced[d] || keepdims) out_dims.push_back(reduced[d] ? 1 : x.dims[d]);
  }
  // Each input element adds into the output element its kept coordinates name.
  const std::vector<std::size_t> out_strides = stridesOf(kept_dims);
  std::size_t out_count = 1;
  for (std::int64_t d : kept_dims)
    out_count *= static_cast<std::size_t>(d);
  const bool product = op == "ReduceProd", sum = op == "ReduceSum";
  if (!product && !sum && op != "ReduceMax" && op != "ReduceMin") return std::nullopt;
  std::vector<double> real_acc(out_count, product ? 1.0 : 0.0);
  std::vector<std::int64_t> int_acc(out_count, product ? 1 : 0);
  std::vector<bool> seen(out_count, false);
  std::vector<std::int64_t> at(rank, 0);
  for (std::size_t n = 0; n < x.size(); ++n) {
    std::size_t o = 0;
    for (std::size_t d = 0; d < rank; ++d)
      o += reduced[d] ? 0 : static_cast<std::size_t>(at[d]) * out_strides[d];
    if (x.floating()) {
      const double v = x.reals[n];
      if (std::isnan(v)) return std::nullopt;
      double& acc = real_acc[o];
      acc = sum ? acc + v : product ? acc * v : !seen[o] ? v : op == "ReduceMax" ? std::max(acc, v) : std::min(acc, v);
    } else {
      const std::int64_t v = x.ints[n];
      std::int64_t& acc = int_acc[o];
      if (sum) {
        if (__builtin_add_overflow(acc, v, &acc)) return std::nullopt;
      } else if (product) {
        if (__builtin_mul_overflow(acc, v, &acc)) return std::nullopt;
      } else {
        acc = !seen[o] ? v : op == "ReduceMax" ? std::max(acc, v) : std::min(acc, v);
      }
    }
    seen[o] = true;
    for (std::size_t d = rank; d-- > 0;) {
      if (++at[d] < x.dims[d]) break;
      at[d] = 0;
    }
  }
  ConstTensor out{x.type, out_dims, {}, {}};
  for (std::size_t o = 0; o < out_count; ++o) {
    if (x.floating() ? !pushReal(out, real_acc[o]) : !pushInt(out, int_acc[o])) return std::nullopt;
  }
  return out;
}

}  // namespace placer::folding
