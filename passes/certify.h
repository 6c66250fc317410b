// The certify pass: proves a lower bound for the partition pass's answer (solvers/bounds/
// certificate.h) and attaches the certificate to it. It runs after partition (default pipelines
// read "...,partition=NAME,certify,expand"); a pipeline without it gives answers without a
// certificate, and the partition pass then spends the whole time limit on the solve instead of
// keeping kBoundShare of it for the bounds. After a lossy mapping (pass.h, VertexMapping) there is
// nothing to certify: a bound proven on the reduced problem is no bound of the original.
#pragma once

#include "passes/pass.h"

namespace placer {

class CertifyPass : public Pass {
 public:
  std::string_view name() const override { return "certify"; }
  Expected<PassResult> run(Problem& problem, const PassOptions& options, PipelineState& state) override;
};

}  // namespace placer
