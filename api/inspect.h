// What `inspect` reports of a loaded model (inspect --json), as data: operators, op-type histogram,
// weights and those several operators read, FLOPs and multiply-accumulates (the roofline's formulas),
// tensors without a static shape, how faithfully each operator is costed, what the whole model costs
// on one device of each kind and where the times come from, and the loader's and cost sources'
// warnings. The CLI prints it as text or JSON.
#pragma once

#include <nlohmann/json.hpp>

#include "api/model.h"
#include "cost_model/fidelity.h"

namespace placer::api {

struct ModelSummary {
  nlohmann::ordered_json json;  // what inspect --json prints
  CostFidelity fidelity;
  const SharedWeight* largest_shared = nullptr;  // into the model's problem; null without shared weights
};

ModelSummary summarize(const LoadedModel& model);

}  // namespace placer::api
