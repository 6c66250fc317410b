// What the accelerators pay at their boundaries in every placement, contiguous or not: the
// simple bound's "boundaries" part (solvers/README.md, "Boundary floors").
//
// Let S be the nodes of one device, non-empty. The nets' relation (producer -> consumer) is
// acyclic on an acyclic graph, so S has a node u none of whose producers is in S: every net u
// reads comes from another device, and S receives each, paying at least in(u), the sum of the
// costs of the nets u reads. Likewise S has a node w none of whose consumers is in S, and sends
// every net of w: out(w). So a device whose nodes all have in(u) >= c receives at least c, and a
// device receiving less than c holds a node with in(u) < c; devices hold disjoint nodes, so at most
// n_in(c) = #{u : in(u) < c} devices do. With m accelerators holding nodes, their transfers sum to
// at least
//   F(m) = max_c (m - n_in(c))⁺ c + max_c (m - n_out(c))⁺ c
// (c over the values in(u), out(u) take; sources and sinks, in(u) = 0 or out(u) = 0, count in
// every n). For a fixed c each accelerator more adds at most c to F, so with c_in and c_out the
// maximisers at m = k: F(k) - F(m) <= (k - m)(c_in + c_out). Under overlap None an accelerator's
// load is its computation plus its transfers, so a placement of max-load T whose m accelerators
// compute W_acc has W_acc + F(m) <= m T; when T >= c_in + c_out, also W_acc + F(k) <= k T. The work
// relaxation with F(k) added to the accelerators' work row therefore bounds every placement whose
// max-load is at least c_in + c_out, which the relaxation without it shows of all of them when its
// value is at least that.
#pragma once

#include "core/problem.h"

namespace placer {

struct BoundaryFloors {
  double total = 0;    // F(k): the k accelerators' transfers, summed, when each holds a node
  double per_set = 0;  // c_in + c_out: what one accelerator more adds to F at most
};

// F(k) for `problem`'s k accelerators (net costs; a CPU core's transfers are left out). Zero when
// the graph has a cycle (after a contraction) or the nets cost nothing.
BoundaryFloors boundaryFloors(const Problem& problem);

}  // namespace placer
