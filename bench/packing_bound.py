#!/usr/bin/env python3
"""Whether any split of a throughput workload, contiguous or not, has max-load at most CAP.

    python3 bench/packing_bound.py WORKLOAD.json CAP [--large T]

An independent implementation, in plain Python, of the argument behind `onnx-placer bound --method
packing` (solvers/bounds/packing_bound.h), used on the two Table 1 workloads where the NeurIPS 2020
paper prints a non-contiguous max-load below the integer program's best (bench/README.md): layer
GNMT inference (31.68 against 31.6873) and op BERT-12 inference (130.03 against 130.0381).

The argument is exhaustive over the accelerators holding the "large" nodes (fpgaLatency above T,
default 0.5), and a relaxation of everything else, so "no split" is a proof and "a packing fits" is
only a candidate:
- every large node goes to one of the maxFPGAs accelerators (the CPU cores are refused when a large
  node's cpuLatency is within CAP: then this argument does not apply); every assignment of them is
  tried, up to the order of the accelerators;
- an accelerator holding the large nodes X and none of the others Y holds some S with X in S, Y not
  in S, and every colour class wholly in or out; its load (overlap none) is fpgaLatency(S) plus the
  cost of every node whose output S cuts (the node and its successors not all on one side). The
  least such load is a minimum s-t cut, whatever the other nodes do; memory is ignored.
- A partial assignment is pruned when an accelerator's bound with Y empty (which only grows as its
  X does) exceeds CAP.
Exit status 0 when no assignment fits (CAP is proven below the optimum), 1 when one does (printed),
2 on a bad command line or workload.
"""
import argparse
import json
import sys
from collections import defaultdict, deque

INF = float("inf")


def fail(message):
    print(f"packing_bound: {message}", file=sys.stderr)
    sys.exit(2)


def read(path, large):
    try:
        with open(path) as f:
            w = json.load(f)
        lat = {n["id"]: float(n["fpgaLatency"]) for n in w["nodes"]}
        cpu = {n["id"]: float(n["cpuLatency"]) for n in w["nodes"]}
        cpu_only = {n["id"] for n in w["nodes"] if not n.get("supportedOnFpga", 1)}
        classes = defaultdict(list)
        for n in w["nodes"]:
            if "colorClass" in n:
                classes[n["colorClass"]].append(n["id"])
        succ, cost = defaultdict(set), {}
        for e in w["edges"]:
            s, t = e["sourceId"], e["destId"]
            if s not in lat or t not in lat:
                raise ValueError(f"edge {s} -> {t} names a node that does not exist")
            succ[s].add(t)
            cost[s] = min(cost.get(s, INF), float(e["cost"]))  # edges that differ: the cheapest, a relaxation
        accelerators = int(w["maxFPGAs"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"{path}: {e}")
    big = sorted((v for v in lat if lat[v] > large and v not in cpu_only), key=lambda v: -lat[v])
    return lat, cpu, cpu_only, classes, succ, cost, big, accelerators


class Cut:
    """Minimum s-t cut by Dinic's blocking flows; vertices are 0 (source), 1 (sink), 2, 3, ..."""

    def __init__(self, vertices):
        self.out = [[] for _ in range(vertices)]
        self.to, self.cap = [], []

    def arc(self, a, b, c):
        self.out[a].append(len(self.to))
        self.to.append(b)
        self.cap.append(c)
        self.out[b].append(len(self.to))
        self.to.append(a)
        self.cap.append(0.0)

    def solve(self):
        flow, n = 0.0, len(self.out)
        while True:
            level = [-1] * n
            level[0] = 0
            queue = deque([0])
            while queue:
                a = queue.popleft()
                for e in self.out[a]:
                    if self.cap[e] > 1e-12 and level[self.to[e]] < 0:
                        level[self.to[e]] = level[a] + 1
                        queue.append(self.to[e])
            if level[1] < 0:
                return flow
            nxt = [0] * n
            while True:
                pushed = self.augment(level, nxt)
                if pushed <= 0:
                    break
                if pushed == INF:
                    return INF
                flow += pushed

    def augment(self, level, nxt):
        path, v = [], 0
        while v != 1:
            while nxt[v] < len(self.out[v]):
                e = self.out[v][nxt[v]]
                if self.cap[e] > 1e-12 and level[self.to[e]] == level[v] + 1:
                    break
                nxt[v] += 1
            else:
                if v == 0:
                    return 0.0
                level[v] = -1
                e = path.pop()
                v = self.to[e ^ 1]
                nxt[v] += 1
                continue
            path.append(e)
            v = self.to[e]
        f = min(self.cap[e] for e in path)
        for e in path:
            self.cap[e] -= f
            self.cap[e ^ 1] += f
        return f


def least_load(lat, cpu_only, classes, succ, cost, inside, outside):
    """The least load of an accelerator holding every node of `inside` and none of `outside`."""
    index = {v: 2 + i for i, v in enumerate(lat)}
    nets = [u for u in succ if cost[u] > 0]
    g = Cut(2 + len(index) + 2 * len(nets))
    for v in lat:
        g.arc(index[v], 1, INF if v in cpu_only or v in outside else lat[v])
    for v in inside:
        g.arc(0, index[v], INF)
    for members in classes.values():
        for a, b in zip(members, members[1:]):
            g.arc(index[a], index[b], INF)
            g.arc(index[b], index[a], INF)
    for i, u in enumerate(nets):  # the net costs cost[u] when its members fall on both sides
        a, b = 2 + len(index) + 2 * i, 3 + len(index) + 2 * i
        g.arc(a, b, cost[u])
        for m in (u, *succ[u]):
            g.arc(index[m], a, INF)
            g.arc(b, index[m], INF)
    return g.solve()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("workload")
    ap.add_argument("cap", type=float)
    ap.add_argument("--large", type=float, default=0.5, help="fpgaLatency above which a node is large")
    a = ap.parse_args()
    lat, cpu, cpu_only, classes, succ, cost, big, accelerators = read(a.workload, a.large)
    if any(cpu[v] <= a.cap for v in big):
        fail(f"{a.workload}: a large node runs on a CPU core within {a.cap}; this argument needs every large "
             "node on an accelerator (raise --large)")
    bit = {v: 1 << i for i, v in enumerate(big)}
    memo = {}

    def load(mask, complete):
        key = (mask, complete)
        if key not in memo:
            inside = [v for v in big if mask & bit[v]]
            outside = [v for v in big if complete and not mask & bit[v]]
            memo[key] = least_load(lat, cpu_only, classes, succ, cost, inside, outside)
        return memo[key]

    masks = [0] * accelerators
    leaves, found = 0, None

    def place(i):
        nonlocal leaves, found
        if found:
            return
        if i == len(big):
            leaves += 1
            if all(load(m, True) <= a.cap for m in masks if m):
                found = list(masks)
            return
        tried = set()
        for k in range(accelerators):
            if masks[k] in tried:
                continue
            tried.add(masks[k])  # accelerators holding the same large nodes are interchangeable
            masks[k] |= bit[big[i]]
            if load(masks[k], False) <= a.cap:
                place(i + 1)
            masks[k] &= ~bit[big[i]]

    place(0)
    print(f"{a.workload}: {len(big)} large nodes on {accelerators} accelerators, {leaves} assignments "
          f"within the cap checked, {len(memo)} minimum cuts")
    if found:
        print(f"an assignment fits within {a.cap} (a candidate, not a split):")
        for m in found:
            if m:
                print(f"  nodes {[v for v in big if m & bit[v]]}: at least {load(m, True):.6f}")
        return 1
    print(f"no split has max-load at most {a.cap}: proven")
    return 0


if __name__ == "__main__":
    sys.exit(main())
