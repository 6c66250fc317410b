// ONNX Runtime GenAI's description of a split decoder (place --emit genai=DIR): DIR holds the stage
// files and genai_config.json, a fragment to merge into the model's own configuration:
//
//   {"model": {"type": "decoder-pipeline",
//              "decoder": {"inputs": {...}, "outputs": {...},
//                          "pipeline": [{"stage0": {...}, "stage1": {...}, ...}]}}}
//
// Each pipeline entry has only keys GenAI accepts there (src/config.cpp, PipelineModel): filename,
// inputs, outputs (the stage's own), session_options (CUDA provider options with the stage's device
// id; none for a CPU stage) with inherit_session_options false, run_on_prompt and run_on_token_gen
// (every stage runs in both phases), and is_lm_head on the stage that produces the logits. The
// decoder's inputs and outputs map GenAI's roles to the model's names (past_key_values.%d.key, ...).
// Only for a decoder with a KV cache (decoder.h).
#pragma once

#include <string>

#include "core/status.h"
#include "onnx_io/onnx_model.h"
#include "onnx_io/placement_plan.h"
#include "onnx_io/stage_models.h"

namespace placer {

// genai_config.json's text for `stages` of `graph` placed by `plan`; Unsupported for a model that is
// not a KV-cache decoder, naming what it lacks.
Expected<std::string> genaiConfig(const OnnxGraph& graph, const PlacementPlan& plan, const StageSet& stages);

}  // namespace placer
