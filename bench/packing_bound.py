#!/usr/bin/env python3
"""Whether any split of a throughput workload, contiguous or not, has max-load at most CAP.

    python3 bench/packing_bound.py WORKLOAD.json CAP [--large T]

Used on Table 1's layer GNMT inference, where the NeurIPS 2020 paper prints a non-contiguous
max-load of 31.68 and the integer program's best is 31.6873 (bench/README.md, refine_bench): it
answers whether 31.685 (31.68 rounded half up) or anything below 31.6873 is reachable at all.

The argument is exhaustive over the accelerators holding the "large" nodes (fpgaLatency above T,
default 0.5), and a relaxation of everything else, so "no split" is a proof and "a packing fits" is
only a candidate:
- every large node goes to one of the maxFPGAs accelerators (the CPU cores are refused when a large
  node's cpuLatency is within CAP: then this argument does not apply); every assignment of them is
  tried, up to the order of the accelerators, with their compute within CAP;
- an accelerator's load (overlap none: compute + received + sent) is at least its large nodes'
  compute plus two minimum vertex cuts: the nets it receives have their sources outside it and cut
  every path from a large node elsewhere to one of its own (the first of its nodes on such a path
  receives its predecessor's net), and the nets it sends cut every path from its own large nodes to
  one elsewhere. A vertex costs the cheapest of its outgoing edges, any other node may be anywhere
  at no compute, and memory and colocation are ignored: each only makes the real loads larger.
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
        succ, cost = defaultdict(list), {}
        for e in w["edges"]:
            s, t = e["sourceId"], e["destId"]
            if s not in lat or t not in lat:
                raise ValueError(f"edge {s} -> {t} names a node that does not exist")
            succ[s].append(t)
            cost[s] = min(cost.get(s, INF), float(e["cost"]))
        accelerators, cpus = int(w["maxFPGAs"]), int(w.get("maxCPUs", 0))
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"{path}: {e}")
    for v in lat:
        cost.setdefault(v, 0.0)  # a sink sends nothing
    big = sorted((v for v in lat if lat[v] > large), key=lambda v: -lat[v])
    if any(v in cpu_only for v in big):
        fail(f"{path}: a large node is not supported on accelerators; this argument needs every large node "
             "on an accelerator (raise --large)")
    return lat, cpu, succ, cost, big, accelerators, cpus


def min_vertex_cut(lat, succ, cost, sources, sinks):
    """Minimum total cost of vertices (not sinks) meeting every path from sources to sinks."""
    g = defaultdict(dict)

    def arc(a, b, c):
        g[a][b] = g[a].get(b, 0.0) + c
        g[b].setdefault(a, 0.0)

    for v in lat:  # v enters at 2v and leaves at 2v + 1
        if v in sinks:
            arc(2 * v, "T", INF)
        else:
            arc(2 * v, 2 * v + 1, cost[v])
        for w in succ[v]:
            arc(2 * v + 1, 2 * w, INF)
    for s in sources:
        arc("S", 2 * s, INF)
    flow = 0.0
    while True:
        parent, queue = {"S": None}, deque(["S"])
        while queue and "T" not in parent:
            a = queue.popleft()
            for b, c in g[a].items():
                if c > 1e-15 and b not in parent:
                    parent[b] = a
                    queue.append(b)
        if "T" not in parent:
            return flow
        f, b = INF, "T"
        while parent[b] is not None:
            f = min(f, g[parent[b]][b])
            b = parent[b]
        if f == INF:
            return INF
        b = "T"
        while parent[b] is not None:
            g[parent[b]][b] -= f
            g[b][parent[b]] += f
            b = parent[b]
        flow += f


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("workload")
    ap.add_argument("cap", type=float)
    ap.add_argument("--large", type=float, default=0.5, help="fpgaLatency above which a node is large")
    a = ap.parse_args()
    lat, cpu, succ, cost, big, accelerators, cpus = read(a.workload, a.large)
    if cpus > 0 and any(cpu[v] <= a.cap for v in big):
        fail(f"{a.workload}: a large node runs on a CPU core within {a.cap}; this argument needs every large "
             "node on an accelerator (raise --large)")
    bit = {v: 1 << i for i, v in enumerate(big)}
    everything = (1 << len(big)) - 1
    memo = {}

    def load(mask):  # the accelerator's load bound for holding exactly the large nodes of `mask`
        if mask not in memo:
            inside = {v for v in big if mask & bit[v]}
            outside = set(big) - inside
            value = sum(lat[v] for v in inside)
            if inside and outside:
                value += min_vertex_cut(lat, succ, cost, outside, inside)  # received
                value += min_vertex_cut(lat, succ, cost, inside, outside)  # sent
            memo[mask] = value
        return memo[mask]

    masks, compute = [0] * accelerators, [0.0] * accelerators
    leaves, found = 0, None

    def place(i):
        nonlocal leaves, found
        if found:
            return
        if i == len(big):
            leaves += 1
            if all(load(m) <= a.cap for m in masks):
                found = list(masks)
            return
        v, tried = big[i], set()
        for k in range(accelerators):
            if masks[k] in tried or compute[k] + lat[v] > a.cap:
                continue
            tried.add(masks[k])  # accelerators holding the same (no large nodes) are interchangeable
            masks[k] |= bit[v]
            compute[k] += lat[v]
            place(i + 1)
            masks[k] &= everything ^ bit[v]
            compute[k] -= lat[v]

    place(0)
    print(f"{a.workload}: {len(big)} large nodes on {accelerators} accelerators, {leaves} assignments "
          f"within the cap checked, {len(memo)} distinct accelerators bounded")
    if found:
        print(f"an assignment fits within {a.cap} (a candidate, not a split):")
        for m in found:
            nodes = [v for v in big if m & bit[v]]
            print(f"  nodes {nodes}: at least {load(m):.6f}")
        return 1
    print(f"no split has max-load at most {a.cap}: proven")
    return 0


if __name__ == "__main__":
    sys.exit(main())
