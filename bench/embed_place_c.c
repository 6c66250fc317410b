/* embed_bench's C ABI client: places MODEL.onnx from its bytes with the given options JSON and takes
 * the annotated model and every stage sub-model, as an embedder would. Usage: embed_place_c MODEL JSON */
#include <stdio.h>
#include <stdlib.h>

#include "onnx_placer/onnx_placer.h"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  FILE* in = fopen(argv[1], "rb");
  if (!in) return 1;
  fseek(in, 0, SEEK_END);
  size_t size = (size_t)ftell(in);
  rewind(in);
  char* model = malloc(size);
  if (!model || fread(model, 1, size, in) != size) return 1;
  fclose(in);
  onnx_placer_result* result = NULL;
  onnx_placer_status* status = onnx_placer_place(model, size, argv[2], &result);
  free(model);
  const void* data = NULL;
  size_t bytes = 0, total = 0;
  if (!status) status = onnx_placer_result_annotated_model(result, &data, &bytes);
  total += bytes;
  for (size_t k = 0; !status && k < onnx_placer_result_stage_count(result); ++k) {
    status = onnx_placer_result_stage_model(result, k, &data, &bytes);
    total += bytes;
  }
  if (status) {
    fprintf(stderr, "embed_place_c: %s\n", onnx_placer_status_message(status));
    return onnx_placer_status_code(status);
  }
  printf("%zu bytes of models\n", total);
  onnx_placer_result_free(result);
  return 0;
}
