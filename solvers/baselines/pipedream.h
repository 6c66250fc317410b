// PipeDream's optimiser as Tarnawski et al. 2020 ran it (§6, Table 1's "PipeDream" column): its DP
// (Narayanan et al., SOSP 2019) splits a *path* of layers, so every branching of the forward graph
// is first contracted into one node, and the DP then cuts that path into contiguous stages. As in the
// paper's table, without PipeDream's replication (no data-parallel stages: the column equals the
// DP's where the graph is a path, e.g. 17.79 on layer BERT-24) and with the paper's cost model (the
// DP of §5.1.1 on the path, which is PipeDream's DP over prefixes with CPUs and memory added).
//
// The contraction (pathSegments): a forward node v is a *cut* when every other node of the spine is
// an ancestor or a descendant of v and no edge jumps over it, i.e. every path through the graph
// passes through v. Between two consecutive cuts lies a branching; it is contracted together with
// the cut that forks it (the node whose output the branches share), and the joining cut starts the
// next segment. So a ResNet block (fork, convolutions, shortcut, add) becomes {fork, convolutions}
// then {add, ...}: layer ResNet50 39.40 (39.38 printed in Table 1, 39.40 in Table 2's ratio) and
// InceptionV3 60.42, training 83.67 and 128.32, as published.
//
// The spine leaves out nodes that are no layer of the path: sources and sinks (model inputs, masks,
// side outputs), and zero-time nodes fed only by such nodes or feeding only such nodes. Each joins
// the segment of its last producer (a source: of its first consumer), so BERT-24's attention mask,
// which feeds all 24 layers, does not make the 24 layers one branching (17.79 and 41.75, as
// published). Layer GNMT has two branchings that span most of it: the encoder's six layers run
// beside the decoder's embedding (node41) until both meet in node43, and the attention context
// (node46, zero time) feeds all 8 decoder layers. Each is contracted whole (the encoder alone is a
// 67.23 segment), and the split is far worse than the paper's: 79.84 against 33.03 for inference,
// 218.09 against 107.35 for training. The paper's PipeDream input evidently kept GNMT a path of
// layers (its 33.03 is within 0.4% of the DP's 32.91), a choice its text does not describe.
//
// The segments become colocation classes (merged with the problem's own, so training pairs stay
// together), and the DP of the partition pass (SolveOptions::dp_split) splits the contracted
// problem: its splits are contiguous, within memory and keep every colocation class whole.
#pragma once

#include <vector>

#include "core/problem.h"
#include "core/solve_result.h"
#include "solvers/solve_options.h"

namespace placer {

// Per vertex, its segment along the path (0, 1, ...), or -1 for a backward node (which follows its
// colocation class) and for a node no segment takes (an isolated node).
std::vector<int> pathSegments(const Problem& problem);

// The problem with every segment colocated (merged with the problem's own colocation classes).
Problem contractToPath(const Problem& problem);

// Throughput only (max-load); needs options.dp_split.
SolveResult solvePipeDream(const Problem& problem, const SolveOptions& options);

}  // namespace placer
