#include "onnx_io/const_tensor.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace placer {

namespace {

using TP = onnx::TensorProto;

// IEEE half: 1 sign, 5 exponent, 10 mantissa bits.
double halfToDouble(std::uint16_t h) {
  const int sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double v;
  if (exponent == 0) {
    v = std::ldexp(mantissa, -24);
  } else if (exponent == 31) {
    v = mantissa ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else {
    v = std::ldexp(mantissa + 1024, exponent - 25);
  }
  return sign ? -v : v;
}

// Round to nearest even, through float32 first being exact for any half value range handling: the
// value is rounded directly from double.
std::uint16_t doubleToHalf(double v) {
  const std::uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  v = std::fabs(v);
  if (std::isnan(v)) return 0x7e00;
  if (v >= 65520.0) return sign | 0x7c00;  // rounds to infinity
  if (v < std::ldexp(1.0, -14)) {          // subnormal: multiples of 2^-24
    const double units = std::nearbyint(std::ldexp(v, 24));
    return sign | static_cast<std::uint16_t>(units);
  }
  int exponent;
  std::frexp(v, &exponent);  // v = m * 2^exponent, m in [0.5, 1)
  double mantissa = std::nearbyint(std::ldexp(v, 11 - exponent));  // 11 significant bits
  if (mantissa >= 2048) {
    mantissa /= 2;
    ++exponent;
  }
  const int biased = exponent - 1 + 15;
  if (biased >= 31) return sign | 0x7c00;
  return sign | static_cast<std::uint16_t>((biased << 10) | (static_cast<int>(mantissa) - 1024));
}

double bfloatToDouble(std::uint16_t b) {
  return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16));
}

std::uint16_t doubleToBfloat(double v) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(static_cast<float>(v));
  if (std::isnan(v)) return 0x7fc0;
  // Round to nearest even on the low 16 bits of the float32 (itself rounded from the double: a
  // double rounding, harmless for the small shape and mask values folding produces).
  const std::uint32_t rounded = bits + 0x7fff + ((bits >> 16) & 1);
  return static_cast<std::uint16_t>(rounded >> 16);
}

template <typename T>
bool readRaw(const std::string& raw, std::size_t count, std::vector<std::int64_t>& out) {
  if (raw.size() != count * sizeof(T)) return false;
  out.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
    if constexpr (std::is_same_v<T, std::uint64_t>) {
      if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
    }
    out[i] = static_cast<std::int64_t>(v);
  }
  return true;
}

template <typename T>
void writeRaw(std::string& raw, T v) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  raw.append(bytes, sizeof(T));
}

}  // namespace

bool floatingType(int type) {
  return type == TP::FLOAT || type == TP::DOUBLE || type == TP::FLOAT16 || type == TP::BFLOAT16;
}

bool foldableType(int type) {
  switch (type) {
    case TP::FLOAT: case TP::DOUBLE: case TP::FLOAT16: case TP::BFLOAT16: case TP::INT8: case TP::UINT8:
    case TP::INT16: case TP::UINT16: case TP::INT32: case TP::UINT32: case TP::INT64: case TP::UINT64:
    case TP::BOOL:
      return true;
    default:
      return false;
  }
}

bool ConstTensor::floating() const { return floatingType(type); }

std::optional<std::size_t> elementCount(const Shape& dims, std::size_t max_elements) {
  std::size_t count = 1;
  for (std::int64_t d : dims) {
    if (d < 0) return std::nullopt;
    if (d == 0) count = 0;
  }
  if (count == 0) return 0;
  for (std::int64_t d : dims) {
    if (static_cast<std::uint64_t>(d) > max_elements || count * static_cast<std::size_t>(d) > max_elements)
      return std::nullopt;
    count *= static_cast<std::size_t>(d);
  }
  return count;
}

bool fitsType(int type, std::int64_t v) {
  switch (type) {
    case TP::BOOL: return v == 0 || v == 1;
    case TP::INT8: return v >= INT8_MIN && v <= INT8_MAX;
    case TP::UINT8: return v >= 0 && v <= UINT8_MAX;
    case TP::INT16: return v >= INT16_MIN && v <= INT16_MAX;
    case TP::UINT16: return v >= 0 && v <= UINT16_MAX;
    case TP::INT32: return v >= INT32_MIN && v <= INT32_MAX;
    case TP::UINT32: return v >= 0 && v <= static_cast<std::int64_t>(UINT32_MAX);
    case TP::INT64: return true;
    case TP::UINT64: return v >= 0;
    default: return false;
  }
}

std::optional<double> roundToType(int type, double v) {
  // Beyond float32's range a conversion is undefined behaviour in C++, and a runtime would give
  // infinity: such a value is not folded. (float16 and bfloat16 go through float32 or saturate.)
  const bool beyond_float = std::isfinite(v) && std::fabs(v) > std::numeric_limits<float>::max();
  switch (type) {
    case TP::DOUBLE: return v;
    case TP::FLOAT: return beyond_float ? std::nullopt : std::optional<double>(static_cast<float>(v));
    case TP::FLOAT16: return halfToDouble(doubleToHalf(v));
    case TP::BFLOAT16: return beyond_float ? std::nullopt : std::optional<double>(bfloatToDouble(doubleToBfloat(v)));
    default: break;
  }
  if (!std::isfinite(v) || v != std::trunc(v) || std::fabs(v) >= 9.2e18) return std::nullopt;
  if (!fitsType(type, static_cast<std::int64_t>(v))) return std::nullopt;
  return v;
}

ConstTensor zeros(int type, const Shape& dims) {
  ConstTensor t{type, dims, {}, {}};
  std::size_t count = 1;
  for (std::int64_t d : dims)
    count *= static_cast<std::size_t>(std::max<std::int64_t>(d, 0));
  if (t.floating()) {
    t.reals.assign(count, 0.0);
  } else {
    t.ints.assign(count, 0);
  }
  return t;
}

std::optional<ConstTensor> readConstant(const onnx::TensorProto& t, std::size_t max_elements) {
  if (t.data_location() == TP::EXTERNAL || !foldableType(t.data_type())) return std::nullopt;
  ConstTensor out{t.data_type(), Shape(t.dims().begin(), t.dims().end()), {}, {}};
  const std::optional<std::size_t> count = elementCount(out.dims, max_elements);
  if (!count) return std::nullopt;
  const std::string& raw = t.raw_data();
  const bool has_raw = t.has_raw_data();
  bool ok = true;
  std::vector<std::int64_t> bits;  // integer data, or the bit patterns of 16-bit floats
  switch (t.data_type()) {
    case TP::FLOAT:
      if (has_raw) {
        if (raw.size() != *count * 4) return std::nullopt;
        out.reals.resize(*count);
        for (std::size_t i = 0; i < *count; ++i) {
          float f;
          std::memcpy(&f, raw.data() + i * 4, 4);
          out.reals[i] = f;
        }
      } else {
        out.reals.assign(t.float_data().begin(), t.float_data().end());
      }
      break;
    case TP::DOUBLE:
      if (has_raw) {
        if (raw.size() != *count * 8) return std::nullopt;
        out.reals.resize(*count);
        std::memcpy(out.reals.data(), raw.data(), raw.size());
      } else {
        out.reals.assign(t.double_data().begin(), t.double_data().end());
      }
      break;
    case TP::FLOAT16:
    case TP::BFLOAT16:
      // Typed data: the bit patterns in int32_data.
      ok = has_raw ? readRaw<std::uint16_t>(raw, *count, bits) : true;
      if (!has_raw) bits.assign(t.int32_data().begin(), t.int32_data().end());
      for (std::int64_t b : bits) {
        if (b < 0 || b > 0xffff) return std::nullopt;
        out.reals.push_back(t.data_type() == TP::FLOAT16 ? halfToDouble(static_cast<std::uint16_t>(b))
                                                         : bfloatToDouble(static_cast<std::uint16_t>(b)));
      }
      break;
    case TP::INT64:
      ok = has_raw ? readRaw<std::int64_t>(raw, *count, out.ints) : true;
      if (!has_raw) out.ints.assign(t.int64_data().begin(), t.int64_data().end());
      break;
    case TP::UINT64:
      ok = has_raw ? readRaw<std::uint64_t>(raw, *count, out.ints) : true;
      if (!has_raw) {
        for (std::uint64_t v : t.uint64_data()) {
          if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
          out.ints.push_back(static_cast<std::int64_t>(v));
        }
      }
      break;
    case TP::UINT32:
      ok = has_raw ? readRaw<std::uint32_t>(raw, *count, out.ints) : true;
      if (!has_raw) out.ints.assign(t.uint64_data().begin(), t.uint64_data().end());
      break;
    default:  // INT32, INT16, INT8, UINT16, UINT8, BOOL: typed data in int32_data
      if (has_raw) {
        switch (t.data_type()) {
          case TP::INT32: ok = readRaw<std::int32_t>(raw, *count, out.ints); break;
          case TP::INT16: ok = readRaw<std::int16_t>(raw, *count, out.ints); break;
          case TP::UINT16: ok = readRaw<std::uint16_t>(raw, *count, out.ints); break;
          case TP::INT8: ok = readRaw<std::int8_t>(raw, *count, out.ints); break;
          default: ok = readRaw<std::uint8_t>(raw, *count, out.ints); break;
        }
      } else {
        out.ints.assign(t.int32_data().begin(), t.int32_data().end());
      }
      break;
  }
  if (!ok || out.size() != *count) return std::nullopt;
  for (std::int64_t v : out.ints) {
    if (!fitsType(out.type, v)) return std::nullopt;
  }
  return out;
}

onnx::TensorProto writeConstant(const std::string& name, const ConstTensor& value) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(value.type);
  for (auto d : value.dims)
    t.add_dims(d);
  std::string raw;
  switch (value.type) {
    case TP::FLOAT:
      for (double v : value.reals) writeRaw(raw, static_cast<float>(v));
      break;
    case TP::DOUBLE:
      for (double v : value.reals) writeRaw(raw, v);
      break;
    case TP::FLOAT16:
      for (double v : value.reals) writeRaw(raw, doubleToHalf(v));
      break;
    case TP::BFLOAT16:
      for (double v : value.reals) writeRaw(raw, doubleToBfloat(v));
      break;
    case TP::INT64: case TP::UINT64:
      for (std::int64_t v : value.ints) writeRaw(raw, v);
      break;
    case TP::INT32: case TP::UINT32:
      for (std::int64_t v : value.ints) writeRaw(raw, static_cast<std::uint32_t>(v));
      break;
    case TP::INT16: case TP::UINT16:
      for (std::int64_t v : value.ints) writeRaw(raw, static_cast<std::uint16_t>(v));
      break;
    default:  // INT8, UINT8, BOOL
      for (std::int64_t v : value.ints) writeRaw(raw, static_cast<std::uint8_t>(v));
      break;
  }
  t.set_raw_data(std::move(raw));
  return t;
}

}  // namespace placer
