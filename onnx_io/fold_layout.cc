// Constant folding's layout operators (onnx_io/constant_folding.h): gathers, (un)squeezes,
// concatenation, slices, splits, reshapes, transposes, expansion and tiling, NonZero, ScatterND and
// Trilu. They move values; none computes one.
#include <algorithm>
#include <numeric>

#include "onnx_io/fold_elementwise.h"
#include "onnx_io/fold_evaluator.h"

namespace placer::folding {

Values Evaluator::gather() {
  const ConstTensor& data = *in(0);
  const ConstTensor* indices = in(1);
  if (!indices || indices->floating() || indices->type == TP::BOOL) return std::nullopt;
  auto axis = normalAxis(attributeInt(node_, "axis", 0), data.dims.size());
  if (!axis) return std::nullopt;
  Shape dims(data.dims.begin(), data.dims.begin() + *axis);
  dims.insert(dims.end(), indices->dims.begin(), indices->dims.end());
  dims.insert(dims.end(), data.dims.begin() + *axis + 1, data.dims.end());
  if (!fits(dims)) return std::nullopt;
  const std::int64_t size = data.dims[*axis];
  std::size_t outer = 1, inner = 1;
  for (std::int64_t d = 0; d < *axis; ++d)
    outer *= static_cast<std::size_t>(data.dims[d]);
  for (std::size_t d = *axis + 1; d < data.dims.size(); ++d)
    inner *= static_cast<std::size_t>(data.dims[d]);
  std::vector<std::size_t> index;
  for (std::size_t o = 0; o < outer; ++o) {
    for (std::int64_t i : indices->ints) {
      if (i < -size || i >= size) return std::nullopt;
      const std::size_t row = static_cast<std::size_t>(i < 0 ? i + size : i);
      for (std::size_t k = 0; k < inner; ++k)
        index.push_back((o * static_cast<std::size_t>(size) + row) * inner + k);
    }
  }
  return one(pick(data, index, dims));
}

Values Evaluator::gatherElements() {
  const ConstTensor& data = *in(0);
  const ConstTensor* indices = in(1);
  if (!indices || indices->floating() || indices->dims.size() != data.dims.size()) return std::nullopt;
  auto axis = normalAxis(attributeInt(node_, "axis", 0), data.dims.size());
  if (!axis) return std::nullopt;
  const std::vector<std::size_t> strides = stridesOf(data.dims);
  const std::int64_t size = data.dims[*axis];
  std::vector<std::int64_t> at(data.dims.size(), 0);
  std::vector<std::size_t> index;
  for (std::int64_t i : indices->ints) {
    if (i < -size || i >= size) return std::nullopt;
    std::size_t flat = 0;
    for (std::size_t d = 0; d < at.size(); ++d) {
      const std::int64_t c = d == static_cast<std::size_t>(*axis) ? (i < 0 ? i + size : i) : at[d];
      if (c >= data.dims[d]) return std::nullopt;
      flat += static_cast<std::size_t>(c) * strides[d];
    }
    index.push_back(flat);
    for (std::size_t d = at.size(); d-- > 0;) {
      if (++at[d] < indices->dims[d]) break;
      at[d] = 0;
    }
  }
  return one(pick(data, index, indices->dims));
}

Values Evaluator::unsqueeze() {
  const ConstTensor& x = *in(0);
  const AxesArgument a = axes(1);
  if (!a.values) return std::nullopt;
  const std::size_t rank = x.dims.size() + a.values->size();
  auto normal = normalAxes(*a.values, rank);
  if (!normal) return std::nullopt;
  Shape dims;
  std::size_t next = 0;
  for (std::size_t d = 0; d < rank; ++d) {
    const bool inserted = std::find(normal->begin(), normal->end(), static_cast<std::int64_t>(d)) != normal->end();
    dims.push_back(inserted ? 1 : x.dims[next++]);
  }
  ConstTensor out = x;
  out.dims = dims;
  return one(std::move(out));
}

Values Evaluator::squeeze() {
  const ConstTensor& x = *in(0);
  const AxesArgument a = axes(1);
  if (a.given && !a.values) return std::nullopt;
  std::vector<std::int64_t> drop;
  if (a.given) {
    auto normal = normalAxes(*a.values, x.dims.size());
    if (!normal) return std::nullopt;
    drop = *normal;
  } else {
    for (std::size_t d = 0; d < x.dims.size(); ++d) {
      if (x.dims[d] == 1) drop.push_back(static_cast<std::int64_t>(d));
    }
  }
  ConstTensor out = x;
  out.dims.clear();
  for (std::size_t d = 0; d < x.dims.size(); ++d) {
    const bool dropped = std::find(drop.begin(), drop.end(), static_cast<std::int64_t>(d)) != drop.end();
    if (dropped && x.dims[d] != 1) return std::nullopt;
    if (!dropped) out.dims.push_back(x.dims[d]);
  }
  return one(std::move(out));
}

Values Evaluator::concat() {
  const ConstTensor& first = *in(0);
  auto axis = normalAxis(attributeInt(node_, "axis", 0), first.dims.size());
  if (!axis) return std::nullopt;
  Shape dims = first.dims;
  dims[*axis] = 0;
  std::vector<const ConstTensor*> parts;
  for (int i = 0; i < node_.input_size(); ++i) {
    const ConstTensor* p = in(i);
    if (!p || p->type != first.type || p->dims.size() != first.dims.size()) return std::nullopt;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      if (d != static_cast<std::size_t>(*axis) && p->dims[d] != first.dims[d]) return std::nullopt;
    }
    dims[*axis] += p->dims[*axis];
    parts.push_back(p);
  }
  if (!fits(dims)) return std::nullopt;
  std::size_t outer = 1;
  for (std::int64_t d = 0; d < *axis; ++d)
    outer *= static_cast<std::size_t>(dims[d]);
  ConstTensor out{first.type, dims, {}, {}};
  for (std::size_t o = 0; o < outer; ++o) {
    for (const ConstTensor* p : parts) {
      const std::size_t block = outer == 0 ? 0 : p->size() / outer;
      if (p->floating()) {
        out.reals.insert(out.reals.end(), p->reals.begin() + o * block, p->reals.begin() + (o + 1) * block);
      } else {
        out.ints.insert(out.ints.end(), p->ints.begin() + o * block, p->ints.begin() + (o + 1) * block);
      }
    }
  }
  return one(std::move(out));
}

Values Evaluator::slice() {
  const ConstTensor& x = *in(0);
  std::optional<std::vector<std::int64_t>> starts, ends, slice_axes, steps;
  if (node_.input_size() >= 3) {  // opset >= 10: starts, ends[, axes, steps] as inputs
    starts = intList(in(1));
    ends = intList(in(2));
    slice_axes = given(3) ? intList(in(3)) : std::nullopt;
    steps = given(4) ? intList(in(4)) : std::nullopt;
    if ((given(3) && !slice_axes) || (given(4) && !steps)) return std::nullopt;
  } else {  // opset < 10: attributes
    starts = attributeInts(node_, "starts");
    ends = attributeInts(node_, "ends");
    slice_axes = attributeInts(node_, "axes");
  }
  if (!starts || !ends || starts->size() != ends->size()) return std::nullopt;
  if (!slice_axes) {
    slice_axes.emplace(starts->size());
    std::iota(slice_axes->begin(), slice_axes->end(), 0);
  }
  if (!steps) steps.emplace(starts->size(), 1);
  if (slice_axes->size() != starts->size() || steps->size() != starts->size()) return std::nullopt;
  auto normal = normalAxes(*slice_axes, x.dims.size());
  if (!normal) return std::nullopt;
  const std::size_t rank = x.dims.size();
  std::vector<std::int64_t> first(rank, 0), step(rank, 1);
  Shape dims = x.dims;
  for (std::size_t k = 0; k < normal->size(); ++k) {
    const std::size_t d = static_cast<std::size_t>((*normal)[k]);
    const std::int64_t size = x.dims[d], s = (*steps)[k];
    if (s == 0 || s == INT64_MIN) return std::nullopt;
    std::int64_t from = (*starts)[k], to = (*ends)[k];
    if (from < 0) from = from < -size ? -1 : from + size;  // -1 clamps below
    if (to < 0) to = to < -size ? -1 : to + size;
    if (s > 0) {
      from = std::clamp<std::int64_t>(from, 0, size);
      to = std::clamp<std::int64_t>(to, 0, size);
    } else {
      from = std::clamp<std::int64_t>(from, -1, size - 1);
      to = std::clamp<std::int64_t>(to, -1, size - 1);
    }
    const std::int64_t span = to - from;
    std::int64_t length = s > 0 ? (span + s - 1) / s : (span + s + 1) / s;
    first[d] = from;
    step[d] = s;
    dims[d] = std::max<std::int64_t>(length, 0);
  }
  const std::vector<std::size_t> strides = stridesOf(x.dims);
  std::vector<std::size_t> index;
  forEachIndex(dims, [&](const std::vector<std::int64_t>& at) {
    std::size_t flat = 0;
    for (std::size_t d = 0; d < rank; ++d)
      flat += static_cast<std::size_t>(first[d] + at[d] * step[d]) * strides[d];
    index.push_back(flat);
  });
  return one(pick(x, index, dims));
}

Values Evaluator::split() {
  const ConstTensor& x = *in(0);
  auto axis = normalAxis(attributeInt(node_, "axis", 0), x.dims.size());
  if (!axis) return std::nullopt;
  const std::int64_t size = x.dims[*axis];
  const auto outputs = static_cast<std::int64_t>(node_.output_size());
  std::vector<std::int64_t> sizes;
  if (given(1)) {
    auto s = intList(in(1));
    if (!s) return std::nullopt;
    sizes = *s;
  } else if (auto s = attributeInts(node_, "split")) {
    sizes = *s;
  } else if (const std::int64_t n = attributeInt(node_, "num_outputs", 0); n > 0) {
    const std::int64_t chunk = (size + n - 1) / n;  // the last part takes what is left
    for (std::int64_t done = 0; done < size; done += chunk)
      sizes.push_back(std::min(chunk, size - done));
  } else {
    if (outputs == 0 || size % outputs != 0) return std::nullopt;
    sizes.assign(static_cast<std::size_t>(outputs), size / outputs);
  }
  std::int64_t total = 0;
  for (std::int64_t s : sizes) {
    if (s < 0) return std::nullopt;
    total += s;
  }
  if (total != size || static_cast<std::int64_t>(sizes.size()) != outputs) return std::nullopt;
  const std::vector<std::size_t> strides = stridesOf(x.dims);
  const std::size_t inner = strides[*axis], outer = x.size() / std::max<std::size_t>(1, static_cast<std::size_t>(size) * inner);
  std::vector<ConstTensor> out;
  std::int64_t offset = 0;
  for (std::int64_t s : sizes) {
    Shape dims = x.dims;
    dims[*axis] = s;
    std::vector<std::size_t> index;
    for (std::size_t o = 0; o < (size == 0 ? 0 : outer); ++o) {
      for (std::int64_t r = 0; r < s; ++r) {
        for (std::size_t k = 0; k < inner; ++k)
          index.push_back((o * static_cast<std::size_t>(size) + static_cast<std::size_t>(offset + r)) * inner + k);
      }
    }
    out.push_back(pick(x, index, dims));
    offset += s;
  }
  return out;
}

Values Evaluator::reshape() {
  const ConstTensor& x = *in(0);
  auto target = intList(in(1));
  if (!target || in(1)->dims.size() != 1) return std::nullopt;
  const bool allow_zero = attributeInt(node_, "allowzero", 0) != 0;
  Shape dims;
  int infer = -1;
  std::size_t known = 1;
  for (std::size_t d = 0; d < target->size(); ++d) {
    std::int64_t v = (*target)[d];
    if (v == 0 && !allow_zero) {
      if (d >= x.dims.size()) return std::nullopt;
      v = x.dims[d];
    }
    if (v == -1) {
      if (infer >= 0) return std::nullopt;
      infer = static_cast<int>(d);
      dims.push_back(1);
      continue;
    }
    if (v < 0) return std::nullopt;
    dims.push_back(v);
    known *= static_cast<std::size_t>(v);
  }
  if (infer >= 0) {
    if (known == 0 || x.size() % known != 0) return std::nullopt;
    dims[infer] = static_cast<std::int64_t>(x.size() / known);
  }
  auto count = elementCount(dims, max_);
  if (!count || *count != x.size()) return std::nullopt;
  ConstTensor out = x;
  out.dims = dims;
  return one(std::move(out));
}

Values Evaluator::flatten() {
  const ConstTensor& x = *in(0);
  const auto rank = static_cast<std::int64_t>(x.dims.size());
  std::int64_t axis = attributeInt(node_, "axis", 1);
  if (axis < -rank || axis > rank) return std::nullopt;
  if (axis < 0) axis += rank;
  std::int64_t rows = 1;
  for (std::int64_t d = 0; d < axis; ++d)
    rows *= x.dims[d];
  ConstTensor out = x;
  out.dims = {rows, rows == 0 ? 0 : static_cast<std::int64_t>(x.size()) / rows};
  if (rows == 0) {
    std::int64_t cols = 1;
    for (std::int64_t d = axis; d < rank; ++d)
      cols *= x.dims[d];
    out.dims[1] = cols;
  }
  return one(std::move(out));
}

Values Evaluator::transpose() {
  const ConstTensor& x = *in(0);
  const std::size_t rank = x.dims.size();
  std::vector<std::int64_t> perm(rank);
  if (auto p = attributeInts(node_, "perm")) {
    perm = *p;
  } else {
    for (std::size_t d = 0; d < rank; ++d)
      perm[d] = static_cast<std::int64_t>(rank - 1 - d);
  }
  auto normal = normalAxes(perm, rank);
  if (!normal || normal->size() != rank) return std::nullopt;
  Shape dims(rank);
  for (std::size_t d = 0; d < rank; ++d)
    dims[d] = x.dims[(*normal)[d]];
  const std::vector<std::size_t> strides = stridesOf(x.dims);
  std::vector<std::size_t> index;
  forEachIndex(dims, [&](const std::vector<std::int64_t>& at) {
    std::size_t flat = 0;
    for (std::size_t d = 0; d < rank; ++d)
      flat += static_cast<std::size_t>(at[d]) * strides[(*normal)[d]];
    index.push_back(flat);
  });
  return one(pick(x, index, dims));
}

Values Evaluator::expand() {
  const ConstTensor& x = *in(0);
  auto target = intList(in(1));
  if (!target || in(1)->dims.size() != 1) return std::nullopt;
  auto dims = broadcastShapes({x.dims, *target});
  if (!dims || !fits(*dims)) return std::nullopt;
  return one(pick(x, broadcastIndex(x.dims, *dims), *dims));
}

Values Evaluator::tile() {
  const ConstTensor& x = *in(0);
  auto repeats = intList(in(1));
  if (!repeats || repeats->size() != x.dims.size()) return std::nullopt;
  Shape dims = x.dims;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if ((*repeats)[d] < 0 || __builtin_mul_overflow(dims[d], (*repeats)[d], &dims[d])) return std::nullopt;
  }
  if (!fits(dims)) return std::nullopt;
  const std::vector<std::size_t> strides = stridesOf(x.dims);
  std::vector<std::size_t> index;
  forEachIndex(dims, [&](const std::vector<std::int64_t>& at) {
    std::size_t flat = 0;
    for (std::size_t d = 0; d < dims.size(); ++d)
      flat += static_cast<std::size_t>(at[d] % x.dims[d]) * strides[d];
    index.push_back(flat);
  });
  return one(pick(x, index, dims));
}

Values Evaluator::nonZero() {
  const ConstTensor& x = *in(0);
  if (x.dims.empty()) return std::nullopt;
  const std::size_t rank = x.dims.size();
  std::vector<std::vector<std::int64_t>> coordinates(rank);
  std::size_t n = 0;
  forEachIndex(x.dims, [&](const std::vector<std::int64_t>& at) {
    if (x.real(n++) == 0) return;
    for (std::size_t d = 0; d < rank; ++d)
      coordinates[d].push_back(at[d]);
  });
  const auto found = static_cast<std::int64_t>(coordinates[0].size());
  ConstTensor out{TP::INT64, {static_cast<std::int64_t>(rank), found}, {}, {}};
  for (const auto& c : coordinates)
    out.ints.insert(out.ints.end(), c.begin(), c.end());
  return one(std::move(out));
}

Values Evaluator::scatterND() {
  const ConstTensor& data = *in(0);
  const ConstTensor *indices = in(1), *updates = in(2);
  if (!indices || !updates || indices->floating() || indices->dims.empty() || updates->type != data.type)
    return std::nullopt;
  const std::string reduction = [&] {
    for (const auto& a : node_.attribute()) {
      if (a.name() == "reduction") return a.s();
    }
    return std::string("none");
  }();
  const std::size_t k = static_cast<std::size_t>(indices->dims.back());
  if (k == 0 || k > data.dims.size()) return std::nullopt;  // k = 0 replaces the whole tensor: left to the runtime
  Shape expected(indices->dims.begin(), indices->dims.end() - 1);
  expected.insert(expected.end(), data.dims.begin() + static_cast<std::ptrdiff_t>(k), data.dims.end());
  if (updates->dims != expected) return std::nullopt;
  const std::vector<std::size_t> strides = stridesOf(data.dims);
  std::size_t block = 1;
  for (std::size_t d = k; d < data.dims.size(); ++d)
    block *= static_cast<std::size_t>(data.dims[d]);
  ConstTensor out = data;
  const std::size_t tuples = indices->size() / k;
  for (std::size_t t = 0; t < tuples; ++t) {
    std::size_t base = 0;
    for (std::size_t d = 0; d < k; ++d) {
      std::int64_t i = indices->ints[t * k + d];
      const std::int64_t size = data.dims[d];
      if (i < -size || i >= size) return std::nullopt;
      if (i < 0) i += size;
      base += static_cast<std::size_t>(i) * strides[d];
    }
    for (std::size_t e = 0; e < block; ++e) {
      const std::size_t to = base + e, from = t * block + e;
      if (out.floating()) {
        double& v = out.reals[to];
        const double u = updates->reals[from];
        if (reduction == "none") {
          v = u;
        } else if (reduction == "add" || reduction == "mul") {
          const std::optional<double> r = roundToType(out.type, reduction == "add" ? v + u : v * u);
          if (!r) return std::nullopt;
          v = *r;
        } else if (reduction == "max") {
          v = std::max(v, u);
        } else if (reduction == "min") {
          v = std::min(v, u);
        } else {
          return std::nullopt;
        }
      } else {
        std::int64_t& v = out.ints[to];
        const std::int64_t u = updates->ints[from];
        if (reduction == "none") v = u;
        else if (reduction == "add") {
          if (__builtin_add_overflow(v, u, &v)) return std::nullopt;
        } else if (reduction == "mul") {
          if (__builtin_mul_overflow(v, u, &v)) return std::nullopt;
        } else if (reduction == "max") v = std::max(v, u);
        else if (reduction == "min") v = std::min(v, u);
        else return std::nullopt;
        if (!fitsType(out.type, v)) return std::nullopt;
      }
    }
  }
  return one(std::move(out));
}

Values Evaluator::trilu() {
  const ConstTensor& x = *in(0);
  if (x.dims.size() < 2) return std::nullopt;
  std::int64_t k = 0;
  if (given(1)) {
    auto v = intList(in(1));
    if (!v || v->size() != 1) return std::nullopt;
    k = v->front();
  }
  const bool upper = attributeInt(node_, "upper", 1) != 0;
  const std::int64_t rows = x.dims[x.dims.size() - 2], cols = x.dims.back();
  ConstTensor out = x;
  for (std::size_t n = 0; n < x.size(); ++n) {
    const std::int64_t j = static_cast<std::int64_t>(n) % cols, i = (static_cast<std::int64_t>(n) / cols) % rows;
    const bool keep = upper ? j - i >= k : j - i <= k;
    if (keep) continue;
    if (out.floating()) {
      out.reals[n] = 0;
    } else {
      out.ints[n] = 0;
    }
  }
  return one(std::move(out));
}

}  // namespace placer::folding
