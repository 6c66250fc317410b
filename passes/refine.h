// The refine pass: improves the partition pass's answer by moving operators between devices
// (solvers/refine/refine.h), on the graph the solver saw, within the split's own space (contiguous
// unless the solver's splits may give a device several stages). It never makes the answer worse; the
// result is verified as the partition pass verifies a solver's. It runs between partition and certify
// ("...,partition=NAME,refine,certify,expand"), so the certificate is the refined answer's, and takes
// at most half of what is left of the time limit when certify follows.
#pragma once

#include "passes/pass.h"

namespace placer {

class RefinePass : public Pass {
 public:
  std::string_view name() const override { return "refine"; }
  Expected<PassResult> run(Problem& problem, const PassOptions& options, PipelineState& state) override;
};

}  // namespace placer
