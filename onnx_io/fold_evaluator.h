// Internal to constant folding (constant_folding.cc, fold_layout.cc): the evaluator of one node and
// the helpers its operators share.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "onnx_io/constant_folding.h"

namespace placer::folding {

using Values = std::optional<std::vector<ConstTensor>>;
using TP = onnx::TensorProto;

inline Values one(std::optional<ConstTensor> t) {
  if (!t) return std::nullopt;
  return std::vector<ConstTensor>{std::move(*t)};
}

// The values of a scalar or 1-D integer tensor.
inline std::optional<std::vector<std::int64_t>> intList(const ConstTensor* t) {
  if (!t || t->floating() || t->type == TP::BOOL || t->dims.size() > 1) return std::nullopt;
  return t->ints;
}

inline std::optional<std::int64_t> normalAxis(std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r) return std::nullopt;
  return axis < 0 ? axis + r : axis;
}

// Axes normalised against `rank`, each once, or nullopt.
inline std::optional<std::vector<std::int64_t>> normalAxes(const std::vector<std::int64_t>& axes, std::size_t rank) {
  std::vector<std::int64_t> out;
  std::set<std::int64_t> seen;
  for (std::int64_t a : axes) {
    auto n = normalAxis(a, rank);
    if (!n || !seen.insert(*n).second) return std::nullopt;
    out.push_back(*n);
  }
  return out;
}

// Axes given as an attribute (older opsets) or as input `input` (newer): nullopt when neither is
// given (the caller's default applies), an empty optional-in-optional when the input is unknown.
struct AxesArgument {
  bool given = false;
  std::optional<std::vector<std::int64_t>> values;
};

class Evaluator {
 public:
  Evaluator(const onnx::NodeProto& node, const std::map<std::string, ConstTensor>& known,
            const std::map<std::string, Shape>& shapes, std::size_t max_elements)
      : node_(node), known_(known), shapes_(shapes), max_(max_elements) {}

  Values run();

 private:
  const ConstTensor* in(int i) const {
    if (i >= node_.input_size() || node_.input(i).empty()) return nullptr;
    auto it = known_.find(node_.input(i));
    return it == known_.end() ? nullptr : &it->second;
  }
  bool given(int i) const { return i < node_.input_size() && !node_.input(i).empty(); }
  // Every given input is known.
  bool allKnown() const {
    for (int i = 0; i < node_.input_size(); ++i) {
      if (given(i) && !in(i)) return false;
    }
    return true;
  }
  AxesArgument axes(int input) const {
    if (auto a = attributeInts(node_, "axes")) return {true, *a};
    if (given(input)) return {true, intList(in(input))};
    return {false, std::nullopt};
  }
  bool fits(const Shape& dims) const { return elementCount(dims, max_).has_value(); }

  Values shape();
  Values constant();
  Values constantOfShape();
  Values gather();
  Values gatherElements();
  Values unsqueeze();
  Values squeeze();
  Values concat();
  Values slice();
  Values split();
  Values reshape();
  Values flatten();
  Values transpose();
  Values expand();
  Values tile();
  Values nonZero();
  Values scatterND();
  Values trilu();
  Values reduceOp();
  Values minMax();

  const onnx::NodeProto& node_;
  const std::map<std::string, ConstTensor>& known_;
  const std::map<std::string, Shape>& shapes_;
  std::size_t max_;
};

// Calls f(index) for every multi-index of a tensor of these dims, in row-major order.
template <typename F>
void forEachIndex(const Shape& dims, F&& f) {
  std::size_t count = 1;
  for (std::int64_t d : dims)
    count *= static_cast<std::size_t>(d);
  std::vector<std::int64_t> at(dims.size(), 0);
  for (std::size_t n = 0; n < count; ++n) {
    f(static_cast<const std::vector<std::int64_t>&>(at));
    for (std::size_t d = dims.size(); d-- > 0;) {
      if (++at[d] < dims[d]) break;
      at[d] = 0;
    }
  }
}

}  // namespace placer::folding
