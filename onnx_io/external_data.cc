#include "onnx_io/external_data.h"

#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <tuple>

#include "onnx_io/model_proto.h"

namespace placer {

namespace fs = std::filesystem;

namespace {

// Calls `visit` on every tensor of `graph` that can hold external data, in nested graphs too.
template <typename Visit>
Status forEachTensor(onnx::GraphProto& graph, const Visit& visit) {
  for (auto& tensor : *graph.mutable_initializer()) {
    if (Status s = visit(tensor); !s) return s;
  }
  for (auto& sparse : *graph.mutable_sparse_initializer()) {
    if (Status s = visit(*sparse.mutable_values()); !s) return s;
    if (Status s = visit(*sparse.mutable_indices()); !s) return s;
  }
  for (auto& node : *graph.mutable_node()) {
    for (auto& attr : *node.mutable_attribute()) {
      if (attr.has_t()) {
        if (Status s = visit(*attr.mutable_t()); !s) return s;
      }
      for (auto& tensor : *attr.mutable_tensors()) {
        if (Status s = visit(tensor); !s) return s;
      }
      if (attr.has_sparse_tensor()) {
        if (Status s = visit(*attr.mutable_sparse_tensor()->mutable_values()); !s) return s;
        if (Status s = visit(*attr.mutable_sparse_tensor()->mutable_indices()); !s) return s;
      }
      if (attr.has_g()) {
        if (Status s = forEachTensor(*attr.mutable_g(), visit); !s) return s;
      }
      for (auto& sub : *attr.mutable_graphs()) {
        if (Status s = forEachTensor(sub, visit); !s) return s;
      }
    }
  }
  return Status::ok();
}

// Where one external tensor's bytes are.
struct ExternalRange {
  std::string location;  // as the model names it
  fs::path file;         // resolved from the model's directory
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

std::optional<std::uint64_t> parseCount(const std::string& text) {
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoull(text);
}

// The bytes `tensor` keeps in external data, checked against its file (whose sizes `sizes` caches).
Expected<ExternalRange> externalRange(const onnx::TensorProto& tensor, const ModelSource& source,
                                      std::map<fs::path, std::uint64_t>& sizes) {
  const std::string what = source.displayName() + ": tensor '" + tensor.name() + "'";
  ExternalRange range;
  std::optional<std::uint64_t> length;
  for (const auto& entry : tensor.external_data()) {
    if (entry.key() == "location") {
      range.location = entry.value();
    } else if (entry.key() == "offset" || entry.key() == "length") {
      auto value = parseCount(entry.value());
      if (!value) return invalidInput(what + ": external data " + entry.key() + " '" + entry.value() + "' is not a byte count");
      (entry.key() == "offset" ? range.offset : length.emplace()) = *value;
    }
  }
  const fs::path location(range.location);
  if (range.location.empty()) return invalidInput(what + " keeps its data externally but names no location");
  const fs::path normal = location.lexically_normal();
  if (location.is_absolute() || normal.empty() || *normal.begin() == "..") {
    return invalidInput(what + " keeps its data at '" + range.location +
                        "', outside the model's directory, which ONNX Runtime refuses to read");
  }
  range.file = source.dataDirectory() / normal;
  auto cached = sizes.find(range.file);
  if (cached == sizes.end()) {
    struct stat info {};
    if (::stat(range.file.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
      return invalidInput(what + " keeps its data in " + range.file.string() + ", which is not a readable file");
    }
    cached = sizes.emplace(range.file, static_cast<std::uint64_t>(info.st_size)).first;
  }
  const std::uint64_t file_size = cached->second;
  if (!length) {
    double elements = 1;
    for (std::int64_t d : tensor.dims()) elements *= static_cast<double>(d);
    const double bytes = elementBytes(tensor.data_type());
    length = bytes > 0 ? static_cast<std::uint64_t>(std::ceil(elements * bytes))
                       : (range.offset <= file_size ? file_size - range.offset : 0);
  }
  range.length = *length;
  if (range.offset > file_size || range.length > file_size - range.offset) {
    return invalidInput(what + " reads bytes " + std::to_string(range.offset) + " to " +
                        std::to_string(range.offset + range.length) + " of " + range.file.string() +
                        ", which holds " + std::to_string(file_size));
  }
  return range;
}

void setEntry(onnx::TensorProto& tensor, const std::string& key, const std::string& value) {
  for (auto& entry : *tensor.mutable_external_data()) {
    if (entry.key() == key) {
      entry.set_value(value);
      return;
    }
  }
  auto* entry = tensor.add_external_data();
  entry->set_key(key);
  entry->set_value(value);
}

constexpr std::uint64_t kMappedAlignment = 64 * 1024;
constexpr std::uint64_t kAlignFrom = 1024 * 1024;

}  // namespace

Status relocateExternalData(onnx::GraphProto& graph, const ModelSource& source, const fs::path& output_dir) {
  const fs::path from = source.dataDirectory();
  const fs::path to = modelDirectory(output_dir / "model.onnx");
  if (from == to) return Status::ok();
  // Every location is checked before any is changed, so a failure leaves the graph as it was.
  for (const bool apply : {false, true}) {
    Status status = forEachTensor(graph, [&](onnx::TensorProto& tensor) -> Status {
      if (tensor.data_location() != onnx::TensorProto::EXTERNAL) return Status::ok();
      for (auto& entry : *tensor.mutable_external_data()) {
        if (entry.key() != "location") continue;
        const fs::path location(entry.value());
        if (location.is_absolute()) continue;  // resolved against no directory: left as it is
        const fs::path file = (from / location).lexically_normal();
        const fs::path relative = file.lexically_relative(to);
        if (relative.empty() || *relative.begin() == "..") {
          return invalidInput(source.displayName() + ": tensor '" + tensor.name() + "' keeps its data in " +
                              file.string() + ", which a model in " + to.string() +
                              " cannot reference (ONNX resolves external data inside the model's own "
                              "directory: no '..', no absolute path); write the output into " +
                              file.parent_path().string() + " or a directory above it");
        }
        if (apply) entry.set_value(relative.generic_string());
      }
      return Status::ok();
    });
    if (!status) return status;
  }
  return Status::ok();
}

bool hasExternalData(const onnx::GraphProto& graph) {
  bool found = false;
  (void)forEachTensor(const_cast<onnx::GraphProto&>(graph), [&](onnx::TensorProto& tensor) {
    found = found || tensor.data_location() == onnx::TensorProto::EXTERNAL;
    return Status::ok();
  });
  return found;
}

Expected<std::vector<DataFile>> externalDataFiles(onnx::GraphProto& graph, const ModelSource& source,
                                                  StageData mode, const std::string& copy_name) {
  std::map<fs::path, std::uint64_t> sizes;
  std::vector<DataFile> files;
  std::map<std::string, std::size_t> linked;  // location -> index in files
  DataFile copy;
  copy.name = copy_name;
  // Bytes already in the copy: (file, offset, length) -> where.
  std::map<std::tuple<fs::path, std::uint64_t, std::uint64_t>, std::uint64_t> copied;
  // Checked first: a failure leaves the graph as it was.
  for (const bool apply : {false, true}) {
    Status status = forEachTensor(graph, [&](onnx::TensorProto& tensor) -> Status {
      if (tensor.data_location() != onnx::TensorProto::EXTERNAL) return Status::ok();
      auto range = externalRange(tensor, source, sizes);
      if (!range) return range.status();
      if (!apply) return Status::ok();
      if (mode == StageData::Reference) {
        const std::string name = fs::path(range->location).lexically_normal().generic_string();
        if (linked.emplace(name, files.size()).second) files.push_back(DataFile{name, range->file, {}, 0});
        return Status::ok();
      }
      auto [it, fresh] = copied.try_emplace({range->file, range->offset, range->length}, 0);
      if (fresh) {
        std::uint64_t at = copy.size;
        if (range->length >= kAlignFrom) at = (at + kMappedAlignment - 1) / kMappedAlignment * kMappedAlignment;
        copy.pieces.push_back({range->file, range->offset, range->length, at});
        copy.size = at + range->length;
        it->second = at;
      }
      setEntry(tensor, "location", copy_name);
      setEntry(tensor, "offset", std::to_string(it->second));
      setEntry(tensor, "length", std::to_string(range->length));
      return Status::ok();
    });
    if (!status) return status;
  }
  if (mode == StageData::Copy && !copied.empty()) files.push_back(std::move(copy));
  return files;
}

}  // namespace placer
