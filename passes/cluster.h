// The cluster pass: Parmesan's operator clustering (solvers/clustering.h) as a reduction before the
// partition pass, so that the exact DP's lattice of ideals is that of K hyper-operators instead of
// every operator ("...,fold-leaves,cluster=K,partition=dp,certify,expand"). Written `cluster` (K and
// α from SolveOptions::cluster_target and cluster_alpha, K = 0 meaning defaultClusterTarget) or
// `cluster=K` (K a positive integer). Run after the DP's reductions: it keeps a problem in the
// contracted form (checkContracted) and its forward graph acyclic.
//
// The mapping it returns is lossy once two units merge: an optimal split may cut a cluster, so the
// partition pass's answer is a valid split of the input whose optimality says nothing about the
// input, and the certify pass gives no certificate after it (pass.h, VertexMapping).
#pragma once

#include <memory>
#include <string_view>

#include "passes/pass.h"

namespace placer {

class ClusterPass : public Pass {
 public:
  // `target`: K, or 0 for the options' cluster_target.
  explicit ClusterPass(int target = 0) : target_(target) {}
  std::string_view name() const override { return "cluster"; }
  Expected<PassResult> run(Problem& problem, const PassOptions& options, PipelineState& state) override;

 private:
  int target_ = 0;
};

// The pass for a pipeline's argument: empty, or K; anything else is Unsupported, naming it.
Expected<std::unique_ptr<Pass>> makeClusterPass(std::string_view argument);

}  // namespace placer
