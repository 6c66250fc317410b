#include "onnx_io/model_proto.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "onnx_io/input_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>

namespace placer {

ModelSource ModelSource::inMemory(std::string_view bytes, std::string name, std::filesystem::path directory) {
  ModelSource source;
  source.bytes = bytes;
  source.name = std::move(name);
  source.directory = std::move(directory);
  source.from_memory = true;
  return source;
}

ModelSource ModelSource::owning(std::string bytes, std::string name, std::filesystem::path directory) {
  auto owner = std::make_shared<const std::string>(std::move(bytes));
  ModelSource source = inMemory(*owner, std::move(name), std::move(directory));
  source.owner = std::move(owner);
  return source;
}

std::string ModelSource::displayName() const {
  return from_memory ? name : path.string();
}

std::filesystem::path ModelSource::dataDirectory() const {
  if (!from_memory) return modelDirectory(path);
  return modelDirectory((directory.empty() ? std::filesystem::path(".") : directory) / "model.onnx");
}

Expected<onnx::ModelProto> readModelProto(const ModelSource& source) {
  std::string file_bytes;
  std::string_view bytes = source.bytes;
  if (!source.fromMemory()) {
    auto read = readInputFile(source.path, kMaxModelBytes);
    if (!read) return read.status();
    file_bytes = std::move(*read);
    bytes = file_bytes;
  }
  const std::string path = source.displayName();
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    return invalidInput(path +
                        ": a model file over 2 GB cannot be one protobuf message; store the "
                        "weights as external data");
  }
  onnx::ModelProto model;
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&raw);
  // The default 64 MB limit is far below what a model with inline weights needs.
  coded.SetTotalBytesLimit(std::numeric_limits<int>::max());
  if (bytes.empty() || !model.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
    return invalidInput(path + (source.fromMemory() ? ": not a valid ONNX model (the bytes are truncated or are not "
                                                      "an ONNX protobuf)"
                                                    : ": not a valid ONNX model (the file is truncated or is not "
                                                      "an ONNX protobuf)"));
  }
  if (!model.has_graph() || model.ir_version() <= 0) {
    return invalidInput(path + ": not an ONNX model (no graph or no IR version)");
  }
  return model;
}

namespace {

std::filesystem::path normalDirectory(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(dir.empty() ? "." : dir, error);
  if (error) absolute = dir;
  absolute = absolute.lexically_normal();
  if (!absolute.has_filename() && absolute.has_parent_path() && absolute != absolute.root_path()) {
    absolute = absolute.parent_path();  // "dir/" -> "dir"
  }
  return absolute;
}

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

}  // namespace

std::filesystem::path modelDirectory(const std::filesystem::path& model_path) {
  return normalDirectory(normalDirectory(model_path).parent_path());
}

Status relocateExternalData(onnx::GraphProto& graph, const ModelSource& source,
                            const std::filesystem::path& output_dir) {
  const std::filesystem::path from = source.dataDirectory();
  const std::filesystem::path to = normalDirectory(output_dir);
  if (from == to) return Status::ok();
  // Every location is checked before any is changed, so a failure leaves the graph as it was.
  for (const bool apply : {false, true}) {
    Status status = forEachTensor(graph, [&](onnx::TensorProto& tensor) -> Status {
      if (tensor.data_location() != onnx::TensorProto::EXTERNAL) return Status::ok();
      for (auto& entry : *tensor.mutable_external_data()) {
        if (entry.key() != "location") continue;
        const std::filesystem::path location(entry.value());
        if (location.is_absolute()) continue;  // resolved against no directory: left as it is
        const std::filesystem::path file = (from / location).lexically_normal();
        const std::filesystem::path relative = file.lexically_relative(to);
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

}  // namespace placer
