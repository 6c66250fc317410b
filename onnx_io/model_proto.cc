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

}  // namespace

std::filesystem::path modelDirectory(const std::filesystem::path& model_path) {
  return normalDirectory(normalDirectory(model_path).parent_path());
}

}  // namespace placer
