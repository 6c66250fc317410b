// The ONNX checker as the tests run it on the models we write: onnx::checker::check_model, and with
// `full` also strict shape inference (type checks, errors raised), like Python's
// onnx.checker.check_model(full_check=True).
#pragma once

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <exception>
#include <string>

namespace placer::testing {

// The checker's error, or "" when `model` passes.
inline std::string checkerError(const onnx::ModelProto& model, bool full = true) {
  try {
    onnx::checker::check_model(model);
    if (full) {
      onnx::ModelProto copy = model;
      onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(),
                                         onnx::ShapeInferenceOptions(/*check_type=*/true, /*error_mode=*/1));
    }
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace placer::testing
