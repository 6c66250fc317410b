// Symbolic dimensions of a loaded model (symbolic_dims.h): the model loaded again at other values of
// each input dimension, and every static shape and folded value compared with the first load's.
#include "onnx_io/symbolic_dims.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <utility>

namespace placer {
namespace {

// The key of the group of unnamed dynamic input dimensions (they all take one value).
const std::string kUnnamed;

// Input dimension values by name ("" for the unnamed ones).
using DimValues = std::map<std::string, std::int64_t>;

struct Run {
  DimValues dims;
  OnnxGraph graph;
};

// The values tried for a dimension loaded at `v`, in order.
std::vector<std::int64_t> candidates(std::int64_t v) {
  std::vector<std::int64_t> out;
  for (std::int64_t c : {2 * v, 3 * v, v + 1, v + 2, v - 1, std::int64_t{2}, std::int64_t{3}}) {
    if (c >= 1 && c != v && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

std::string dimsText(const DimValues& dims) {
  std::string out;
  for (const auto& [name, value] : dims) {
    out += (out.empty() ? "" : ", ") + (name.empty() ? std::string("unnamed") : name) + "=" + std::to_string(value);
  }
  return out;
}

class Analysis {
 public:
  Analysis(const ModelSource& source, const OnnxGraph& graph, bool isolate)
      : source_(source), graph_(graph), isolate_(isolate) {
    base_ = graph.input_dims;
    if (graph.unnamed_dim >= 0) base_[kUnnamed] = graph.unnamed_dim;
  }

  SymbolicShapes run() {
    SymbolicShapes out;
    if (base_.empty()) return out;
    for (const auto& [name, value] : base_) vary(name, value, out);
    if (runs_.empty()) return out;
    for (const TensorInfo& tensor : graph_.tensors) {
      if (tensor.shape) compareShape(tensor, out);
    }
    for (const auto& [name, bytes] : graph_.folded_values) {
      for (const Run* run : runs_) {
        auto value = run->graph.folded_values.find(name);
        if (value == run->graph.folded_values.end() || value->second != bytes) {
          out.dynamic_values.insert(name);
          break;
        }
      }
    }
    return out;
  }

 private:
  // Loads the model at `dims` (once per distinct assignment); null when it cannot be loaded there.
  const Run* load(const DimValues& dims) {
    auto [it, inserted] = loads_.try_emplace(dims);
    if (inserted) {
      LoadOptions options;
      options.isolate_shape_inference = isolate_;
      options.dims_complete = true;
      for (const auto& [name, value] : dims) {
        if (name.empty()) {
          options.default_dim = value;
        } else {
          options.dims[name] = value;
        }
      }
      if (auto graph = loadOnnx(source_, options)) it->second = Run{dims, std::move(*graph)};
    }
    return it->second ? &*it->second : nullptr;
  }

  // Loads the model at two other values of `name` (alone, or moved with another dimension).
  void vary(const std::string& name, std::int64_t value, SymbolicShapes& out) {
    std::vector<std::int64_t> tried;
    int accepted = 0;
    for (std::int64_t c : candidates(value)) {
      if (accepted == 2) break;
      const std::int64_t delta = c - value;
      DimValues dims = base_;
      dims[name] = c;
      const Run* run = load(dims);
      for (auto other = base_.begin(); !run && other != base_.end(); ++other) {
        if (other->first == name || other->second + delta < 1) continue;
        DimValues joint = dims;
        joint[other->first] = other->second + delta;
        run = load(joint);
      }
      tried.push_back(c);
      if (!run) continue;
      ++accepted;
      if (std::find(runs_.begin(), runs_.end(), run) == runs_.end()) runs_.push_back(run);
      out.varied.push_back(dimsText(run->dims));
    }
    if (accepted == 0) {
      std::string values;
      for (std::int64_t c : tried) values += (values.empty() ? "" : ", ") + std::to_string(c);
      out.notes.push_back("the stages keep " + (name.empty() ? std::string("the unnamed dynamic dimensions") : name) +
                          " = " + std::to_string(value) + ": the model cannot be loaded at " + values);
    }
  }

  // The dimension's value in every load (the first load's first), or nullopt where a load gave the
  // tensor no static shape of the same rank.
  std::optional<std::vector<std::int64_t>> series(const TensorInfo& tensor, std::size_t axis) const {
    std::vector<std::int64_t> values{(*tensor.shape)[axis]};
    for (const Run* run : runs_) {
      auto index = run->graph.tensor_index.find(tensor.name);
      if (index == run->graph.tensor_index.end()) return std::nullopt;
      const auto& shape = run->graph.tensors[index->second].shape;
      if (!shape || shape->size() != tensor.shape->size()) return std::nullopt;
      values.push_back((*shape)[axis]);
    }
    return values;
  }

  std::vector<std::int64_t> paramSeries(const std::string& name) const {
    std::vector<std::int64_t> values{base_.at(name)};
    for (const Run* run : runs_) values.push_back(run->dims.at(name));
    return values;
  }

  void compareShape(const TensorInfo& tensor, SymbolicShapes& out) {
    std::vector<SymbolicDim> dims;
    bool varies = false;
    for (std::size_t axis = 0; axis < tensor.shape->size(); ++axis) {
      const auto values = series(tensor, axis);
      SymbolicDim dim;
      dim.value = (*tensor.shape)[axis];
      if (!values) {
        dim.param = "unk__" + std::to_string(generated_++);  // unknown in some load: its own name
      } else if (std::any_of(values->begin(), values->end(), [&](std::int64_t v) { return v != values->front(); })) {
        dim.param = nameOf(*values);
      }
      varies = varies || !dim.param.empty();
      dims.push_back(std::move(dim));
    }
    if (varies) out.shapes.emplace(tensor.name, std::move(dims));
  }

  std::string nameOf(const std::vector<std::int64_t>& values) {
    std::vector<std::pair<std::string, std::vector<std::int64_t>>> params;
    for (const auto& [name, value] : base_) {
      if (!name.empty()) params.emplace_back(name, paramSeries(name));
    }
    for (const auto& [name, p] : params) {
      if (p == values) return name;
    }
    for (const auto& [name, p] : params) {
      if (auto affine = affineName(name, p, values)) return *affine;
    }
    for (std::size_t i = 0; i < params.size(); ++i) {
      for (std::size_t j = i + 1; j < params.size(); ++j) {
        const auto& p = params[i].second;
        const auto& q = params[j].second;
        bool sum = true, product = true;
        const std::int64_t offset = values[0] - p[0] - q[0];
        for (std::size_t r = 0; r < values.size(); ++r) {
          sum = sum && values[r] == p[r] + q[r] + offset;
          product = product && values[r] == p[r] * q[r];
        }
        if (product) return params[i].first + "*" + params[j].first;
        if (sum) return params[i].first + "+" + params[j].first + constantText(offset);
      }
    }
    auto [it, inserted] = generated_names_.try_emplace(values, "");
    if (inserted) it->second = "unk__" + std::to_string(generated_++);
    return it->second;
  }

  static std::string constantText(std::int64_t b) {
    if (b == 0) return "";
    return (b > 0 ? "+" : "-") + std::to_string(b > 0 ? b : -b);
  }

  // "a*p/c+b" (in its shortest form) when values = a/c · p + b in every load, with a > 0.
  static std::optional<std::string> affineName(const std::string& name, const std::vector<std::int64_t>& p,
                                               const std::vector<std::int64_t>& values) {
    std::size_t other = 1;
    while (other < p.size() && p[other] == p[0]) ++other;
    if (other == p.size()) return std::nullopt;
    std::int64_t num = values[other] - values[0], den = p[other] - p[0];
    if (den < 0) num = -num, den = -den;
    if (num <= 0) return std::nullopt;
    const std::int64_t g = std::gcd(num, den);
    num /= g, den /= g;
    for (std::size_t r = 0; r < p.size(); ++r) {
      if ((values[r] - values[0]) * den != num * (p[r] - p[0])) return std::nullopt;
    }
    if ((num * p[0]) % den != 0) return std::nullopt;
    const std::int64_t b = values[0] - num * p[0] / den;
    std::string term = num == 1 ? name : std::to_string(num) + "*" + name;
    if (den != 1) term += "/" + std::to_string(den);
    return term + constantText(b);
  }

  const ModelSource& source_;
  const OnnxGraph& graph_;
  const bool isolate_;
  DimValues base_;
  std::map<DimValues, std::optional<Run>> loads_;
  std::vector<const Run*> runs_;
  std::map<std::vector<std::int64_t>, std::string> generated_names_;
  int generated_ = 0;
};

}  // namespace

SymbolicShapes analyzeSymbolicDims(const ModelSource& source, const OnnxGraph& graph, bool isolate_shape_inference) {
  return Analysis(source, graph, isolate_shape_inference).run();
}

}  // namespace placer
