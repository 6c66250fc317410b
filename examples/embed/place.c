/* Places an ONNX model on two accelerators through onnx-placer's C ABI and writes its stages.
 * Usage: place_c MODEL.onnx OUT_DIR (an existing directory) */
#include <onnx_placer/onnx_placer.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  if (argc != 3) return fprintf(stderr, "usage: place_c MODEL.onnx OUT_DIR\n"), 2;
  FILE* in = fopen(argv[1], "rb");
  if (!in) return fprintf(stderr, "place_c: cannot read %s\n", argv[1]), 1;
  fseek(in, 0, SEEK_END);
  size_t size = (size_t)ftell(in), read = 0;
  rewind(in);
  char* model = malloc(size);
  if (model) read = fread(model, 1, size, in);
  fclose(in);
  onnx_placer_result* result = NULL;
  onnx_placer_status* status = onnx_placer_place(model, read, "{\"accelerators\": 2}", &result);
  free(model);
  for (size_t i = 0; !status && i < onnx_placer_result_stage_count(result); ++i) {
    const void* data;
    size_t bytes;
    char path[4096];
    if ((status = onnx_placer_result_stage_model(result, i, &data, &bytes))) break;
    snprintf(path, sizeof path, "%s/stage%zu.onnx", argv[2], i);
    FILE* out = fopen(path, "wb");
    if (!out || fwrite(data, 1, bytes, out) != bytes) return fprintf(stderr, "place_c: cannot write %s\n", path), 1;
    fclose(out);
  }
  if (status) {
    int code = onnx_placer_status_code(status);
    fprintf(stderr, "place_c: %s\n", onnx_placer_status_message(status));
    onnx_placer_status_free(status);
    onnx_placer_result_free(result);
    return code;
  }
  printf("%zu stage(s)\n", onnx_placer_result_stage_count(result));
  onnx_placer_result_free(result);
  return 0;
}
