// The C ABI (include/onnx_placer/onnx_placer.h) over the public C++ API. Every entry point catches
// everything: nothing is thrown across the boundary, and a failure that cannot even allocate its
// status (out of memory) returns a static one that onnx_placer_status_free leaves alone.
#include "onnx_placer/onnx_placer.h"

#include <new>
#include <string>

#include "onnx_placer/placer.h"

struct onnx_placer_status {
  int code = 0;
  std::string message;
};

struct onnx_placer_result {
  explicit onnx_placer_result(onnx_placer::Result r) : result(std::move(r)) {}
  onnx_placer::Result result;
};

namespace {

onnx_placer_status out_of_memory{static_cast<int>(onnx_placer::Code::Failure), "out of memory"};

onnx_placer_status* makeStatus(onnx_placer::Code code, const std::string& message) noexcept {
  try {
    return new onnx_placer_status{static_cast<int>(code), message};
  } catch (...) {
    return &out_of_memory;
  }
}

onnx_placer_status* makeStatus(const onnx_placer::Status& status) noexcept {
  return makeStatus(status.code(), status.message());
}

onnx_placer_status* nullArgument(const char* function, const char* argument) noexcept {
  return makeStatus(onnx_placer::Code::BadOptions, std::string(function) + ": " + argument + " is NULL");
}

// Runs `body`, turning anything it throws into a status.
template <typename Body>
onnx_placer_status* guarded(Body body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return &out_of_memory;
  } catch (const std::exception& e) {
    return makeStatus(onnx_placer::Code::Failure, std::string("internal error: ") + e.what());
  } catch (...) {
    return makeStatus(onnx_placer::Code::Failure, "internal error: an unknown exception");
  }
}

onnx_placer_status* returnBytes(const onnx_placer::Expected<std::string_view>& bytes, const void** data,
                                size_t* size) noexcept {
  if (!bytes) return makeStatus(bytes.status());
  *data = bytes->data();
  *size = bytes->size();
  return nullptr;
}

}  // namespace

extern "C" {

const char* onnx_placer_version(void) {
  return ONNX_PLACER_VERSION;
}

unsigned onnx_placer_abi_version(void) {
  return ONNX_PLACER_ABI_VERSION;
}

onnx_placer_status* onnx_placer_place(const void* model, size_t model_size, const char* options_json,
                                      onnx_placer_result** result) {
  if (result == nullptr) return nullArgument("onnx_placer_place", "result");
  *result = nullptr;
  if (model == nullptr) return nullArgument("onnx_placer_place", "model");
  return guarded([&]() -> onnx_placer_status* {
    auto options = onnx_placer::Options::fromJson(options_json == nullptr ? "" : options_json);
    if (!options) return makeStatus(options.status());
    auto placed = onnx_placer::place(model, model_size, *options);
    if (!placed) return makeStatus(placed.status());
    *result = new onnx_placer_result(std::move(*placed));
    return nullptr;
  });
}

int onnx_placer_status_code(const onnx_placer_status* status) {
  return status == nullptr ? 0 : status->code;
}

const char* onnx_placer_status_message(const onnx_placer_status* status) {
  return status == nullptr ? "" : status->message.c_str();
}

void onnx_placer_status_free(onnx_placer_status* status) {
  if (status != &out_of_memory) delete status;
}

const char* onnx_placer_result_report_json(const onnx_placer_result* result) {
  return result == nullptr ? "" : result->result.reportJson().c_str();
}

const char* onnx_placer_result_placement_json(const onnx_placer_result* result) {
  return result == nullptr ? "" : result->result.placementJson().c_str();
}

size_t onnx_placer_result_stage_count(const onnx_placer_result* result) {
  return result == nullptr ? 0 : result->result.stageCount();
}

onnx_placer_status* onnx_placer_result_annotated_model(const onnx_placer_result* result, const void** data,
                                                       size_t* size) {
  if (result == nullptr) return nullArgument("onnx_placer_result_annotated_model", "result");
  if (data == nullptr || size == nullptr) return nullArgument("onnx_placer_result_annotated_model", "data or size");
  return guarded([&] { return returnBytes(result->result.annotatedModel(), data, size); });
}

onnx_placer_status* onnx_placer_result_stage_model(const onnx_placer_result* result, size_t index, const void** data,
                                                   size_t* size) {
  if (result == nullptr) return nullArgument("onnx_placer_result_stage_model", "result");
  if (data == nullptr || size == nullptr) return nullArgument("onnx_placer_result_stage_model", "data or size");
  return guarded([&] { return returnBytes(result->result.stageModel(index), data, size); });
}

void onnx_placer_result_free(onnx_placer_result* result) {
  delete result;
}

}  // extern "C"
