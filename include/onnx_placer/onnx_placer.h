/* onnx-placer's C ABI: placement of an ONNX model's operators from any language, stable across
 * compilers and releases of the same ONNX_PLACER_ABI_VERSION.
 *
 * Handles are opaque. A function that can fail returns an onnx_placer_status*: NULL means success,
 * as in ONNX Runtime's C API; otherwise the caller reads its code (the command-line tool's exit
 * status: 1 bad input, 2 bad options, 3 infeasible, 4 solver failure, 130 interrupted) and message,
 * and frees it with onnx_placer_status_free. Nothing is thrown across this boundary, nothing is
 * printed, and the process is never ended.
 *
 *   onnx_placer_result* result = NULL;
 *   onnx_placer_status* status = onnx_placer_place(bytes, size, "{\"accelerators\": 2}", &result);
 *   if (status) { fprintf(stderr, "%s\n", onnx_placer_status_message(status)); ... }
 *
 * Strings and buffers a result returns stay valid until the result is freed. */
#ifndef ONNX_PLACER_ONNX_PLACER_H
#define ONNX_PLACER_ONNX_PLACER_H

#include <stddef.h>

#include "onnx_placer/version.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct onnx_placer_status onnx_placer_status;
typedef struct onnx_placer_result onnx_placer_result;

/* "0.2.0" (ONNX_PLACER_VERSION) and ONNX_PLACER_ABI_VERSION of the library actually loaded. */
ONNX_PLACER_EXPORT const char* onnx_placer_version(void);
ONNX_PLACER_EXPORT unsigned onnx_placer_abi_version(void);

/* Places the model given as the bytes of an .onnx file (read in place and only
 * during the call, which builds every output before returning: the caller may free them on return)
 * with the options of a JSON object (NULL or "{}": the defaults; the keys are those of `place`'s
 * options, e.g. {"devices": "pcie3-4x16gb", "accelerators": 2, "objective": "throughput",
 * "algorithm": "auto", "time_limit": 10, "dims": {"seq": 128}}; an unknown key is an error naming
 * it). On success *result is a new result; on failure it is set to NULL. */
ONNX_PLACER_EXPORT onnx_placer_status* onnx_placer_place(const void* model, size_t model_size,
                                                         const char* options_json, onnx_placer_result** result);

/* The status's code (never 0) and message; NULL (success) gives 0 and "". */
ONNX_PLACER_EXPORT int onnx_placer_status_code(const onnx_placer_status* status);
ONNX_PLACER_EXPORT const char* onnx_placer_status_message(const onnx_placer_status* status);
ONNX_PLACER_EXPORT void onnx_placer_status_free(onnx_placer_status* status); /* NULL allowed */

/* The report `place --report` writes (JSON text), and the plan (node -> device and stage). */
ONNX_PLACER_EXPORT const char* onnx_placer_result_report_json(const onnx_placer_result* result);
ONNX_PLACER_EXPORT const char* onnx_placer_result_placement_json(const onnx_placer_result* result);
ONNX_PLACER_EXPORT size_t onnx_placer_result_stage_count(const onnx_placer_result* result);
/* The annotated model and stage `index`'s sub-model (serialized ONNX), built on first use. */
ONNX_PLACER_EXPORT onnx_placer_status* onnx_placer_result_annotated_model(const onnx_placer_result* result,
                                                                          const void** data, size_t* size);
ONNX_PLACER_EXPORT onnx_placer_status* onnx_placer_result_stage_model(const onnx_placer_result* result,
                                                                      size_t index, const void** data,
                                                                      size_t* size);
ONNX_PLACER_EXPORT void onnx_placer_result_free(onnx_placer_result* result); /* NULL allowed */

#ifdef __cplusplus
}
#endif

#endif
