/* The C ABI from C: the header compiles as C, a model placed from its bytes, and the error paths
 * (NULL pointers, truncated bytes, bad options, an unknown pass, an infeasible instance) return a
 * status with a code and a message. Usage: c_abi_test MODEL.onnx. Prints "N passed, N failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_placer/onnx_placer.h"

static int passed = 0, failed = 0;

static void check(int ok, const char* what) {
  if (ok) {
    ++passed;
  } else {
    ++failed;
    fprintf(stderr, "FAILED: %s\n", what);
  }
}

static char* readAll(const char* path, size_t* size) {
  FILE* file = fopen(path, "rb");
  if (!file) return NULL;
  fseek(file, 0, SEEK_END);
  long length = ftell(file);
  fseek(file, 0, SEEK_SET);
  char* data = malloc((size_t)length);
  if (data && fread(data, 1, (size_t)length, file) != (size_t)length) {
    free(data);
    data = NULL;
  }
  fclose(file);
  *size = (size_t)length;
  return data;
}

/* Places with `options` and expects failure with `code` and `text` in the message. */
static void expectFailure(const void* model, size_t size, const char* options, int code, const char* text) {
  onnx_placer_result* result = NULL;
  onnx_placer_status* status = onnx_placer_place(model, size, options, &result);
  char what[512];
  snprintf(what, sizeof what, "options %s: code %d and '%s' (got %d: '%s')", options ? options : "NULL", code,
           text, onnx_placer_status_code(status), onnx_placer_status_message(status));
  check(status != NULL && result == NULL && onnx_placer_status_code(status) == code &&
            strstr(onnx_placer_status_message(status), text) != NULL,
        what);
  onnx_placer_status_free(status);
  onnx_placer_result_free(result);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: c_abi_test MODEL.onnx\n");
    return 2;
  }
  size_t size = 0;
  char* model = readAll(argv[1], &size);
  if (!model) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  check(strcmp(onnx_placer_version(), ONNX_PLACER_VERSION) == 0, "onnx_placer_version");
  check(onnx_placer_abi_version() == ONNX_PLACER_ABI_VERSION, "onnx_placer_abi_version");

  onnx_placer_result* result = NULL;
  onnx_placer_status* status = onnx_placer_place(model, size, "{\"accelerators\": 2}", &result);
  check(status == NULL && result != NULL, "place on two accelerators");
  if (result) {
    check(strstr(onnx_placer_result_report_json(result), "\"max_load_seconds\"") != NULL, "report");
    check(onnx_placer_result_stage_count(result) >= 1, "stage count");
    const void* data = NULL;
    size_t bytes = 0;
    status = onnx_placer_result_annotated_model(result, &data, &bytes);
    check(status == NULL && data != NULL && bytes > size / 2, "annotated model");
    onnx_placer_status_free(status);
    status = onnx_placer_result_stage_model(result, 0, &data, &bytes);
    check(status == NULL && data != NULL && bytes > 0, "stage 0");
    onnx_placer_status_free(status);
    status = onnx_placer_result_stage_model(result, 1000, &data, &bytes);
    check(onnx_placer_status_code(status) == 2, "stage out of range");
    onnx_placer_status_free(status);
    status = onnx_placer_result_annotated_model(result, NULL, &bytes);
    check(onnx_placer_status_code(status) == 2, "annotated model into NULL");
    onnx_placer_status_free(status);
    onnx_placer_result_free(result);
  }

  status = onnx_placer_place(model, size, NULL, NULL);
  check(onnx_placer_status_code(status) == 2, "NULL result pointer");
  onnx_placer_status_free(status);
  expectFailure(NULL, 0, NULL, 2, "model is NULL");
  expectFailure(model, size / 3, "{}", 1, "not a valid ONNX model");
  expectFailure(model, size, "{", 2, "not valid JSON");
  expectFailure(model, size, "{\"no_such_key\": 1}", 2, "unknown key \"no_such_key\"");
  expectFailure(model, size, "{\"pipeline\": \"subdivide,bogus,partition,expand\"}", 2, "unknown pass 'bogus'");
  expectFailure(model, size, "{\"cpus\": 0, \"memory\": 10}", 3, "there are no CPUs");
  expectFailure(model, size, "{\"time_limit\": -1}", 2, "\"time_limit\"");
  onnx_placer_status_free(NULL);
  onnx_placer_result_free(NULL);
  check(onnx_placer_status_code(NULL) == 0 && strcmp(onnx_placer_status_message(NULL), "") == 0, "NULL status");
  free(model);
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
