#include "onnx_io/model_proto.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>

namespace placer {

Expected<onnx::ModelProto> readModelProto(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ioError("cannot open " + path.string() + ": " + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return ioError("cannot read " + path.string());
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    return invalidInput(path.string() + ": a model file over 2 GB cannot be one protobuf message");
  }
  onnx::ModelProto model;
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&raw);
  // The default 64 MB limit is far below what a model with inline weights needs.
  coded.SetTotalBytesLimit(std::numeric_limits<int>::max());
  if (bytes.empty() || !model.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
    return invalidInput(path.string() +
                        ": not a valid ONNX model (the file is truncated or is not an ONNX protobuf)");
  }
  if (!model.has_graph() || model.ir_version() <= 0) {
    return invalidInput(path.string() + ": not an ONNX model (no graph or no IR version)");
  }
  return model;
}

}  // namespace placer
