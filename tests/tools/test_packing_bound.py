#!/usr/bin/env python3
"""bench/packing_bound.py against the solver: it must never call a max-load impossible that a split
reaches (soundness), on random small workloads whose non-contiguous optimum the integer program
proves; it must prove something on some of them (else it proves nothing at all); and on layer GNMT
inference and op BERT-12 inference it proves the NeurIPS 2020 paper's 31.68 and 130.03 (rounded half
up) out of reach, as `onnx-placer bound --method packing` does in C++.

    ONNX_PLACER_CLI=build/onnx-placer python3 tests/tools/test_packing_bound.py
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "bench", "packing_bound.py")
CLI = os.environ.get("ONNX_PLACER_CLI", os.path.join(ROOT, "build", "onnx-placer"))
GNMT = os.path.join(ROOT, "tests", "data", "workloads", "throughput-inputs", "LayerGraphs", "gnmt_inference.json")
BERT12 = os.path.join(ROOT, "tests", "data", "workloads", "throughput-inputs", "OperatorGraphs",
                      "bert_l-12_inference.json")


def bound(workload, cap, large=0.5):
    run = subprocess.run([sys.executable, SCRIPT, workload, repr(cap), "--large", repr(large)],
                         capture_output=True, text=True, timeout=120)
    return run.returncode, run.stdout + run.stderr


def random_workload(rng, nodes, accelerators):
    """A random DAG in the workload format: forward only, no CPU work worth doing, ample memory."""
    ws = {"maxSizePerFPGA": 1e12, "maxFPGAs": accelerators, "maxCPUs": 0, "nodes": [], "edges": []}
    for i in range(1, nodes + 1):
        t = round(rng.uniform(0.6, 10.0), 3)
        ws["nodes"].append({"name": f"n{i}", "id": i, "supportedOnFpga": 1, "cpuLatency": 100 * t,
                            "fpgaLatency": t, "isBackwardNode": 0, "colorClass": i, "size": 1.0})
    for t in range(2, nodes + 1):
        for s in rng.sample(range(1, t), min(t - 1, rng.randint(1, 2))):
            ws["edges"].append({"sourceId": s, "destId": t, "cost": 0.0, "size": 1.0})
    cost = {i: round(rng.uniform(0.1, 3.0), 3) for i in range(1, nodes + 1)}
    for e in ws["edges"]:
        e["cost"] = cost[e["sourceId"]]  # one tensor per node, the same cost on each of its edges
    return ws


class PackingBound(unittest.TestCase):
    def test_never_proves_a_reachable_max_load_impossible(self):
        rng = random.Random(7)
        proven_below = 0
        with tempfile.TemporaryDirectory() as tmp:
            for case in range(14):
                path = os.path.join(tmp, f"w{case}.json")
                with open(path, "w") as f:
                    json.dump(random_workload(rng, 6 + case % 3, 2 + case % 2), f)
                out = subprocess.run([CLI, "partition", path, "--algorithm", "ip-noncontig", "-q"],
                                     capture_output=True, text=True, timeout=120)
                self.assertEqual(out.returncode, 0, out.stderr)
                solved = json.loads(out.stdout)
                self.assertEqual(solved["status"], "optimal", out.stdout)
                optimum = solved["maxLoad"]
                code, text = bound(path, optimum * (1 + 1e-9), large=0.5)
                self.assertEqual(code, 1, f"case {case}: optimum {optimum} called impossible:\n{text}")
                code, text = bound(path, optimum * (1 - 1e-6), large=0.5)
                self.assertIn(code, (0, 1), text)
                proven_below += code == 0
        # Every node is large here, so the cuts see every path: the optima are proven exactly (all 14
        # when this test was written).
        self.assertGreaterEqual(proven_below, 12, "the bound proves (almost) nothing")

    def test_gnmt_inference_cannot_reach_the_papers_value(self):
        code, text = bound(GNMT, 31.685)
        self.assertEqual(code, 0, text)
        self.assertIn("no split has max-load at most 31.685: proven", text)
        code, text = bound(GNMT, 31.6874)  # the integer program's 31.6873105 is such a split
        self.assertEqual(code, 1, text)
        self.assertIn("at least 31.687311", text)

    def test_bert12_inference_cannot_reach_the_papers_value(self):
        # The twelve context products and the language-model head: no accelerator holds three
        # products, or the head and two, within 130.035.
        code, text = bound(BERT12, 130.035, large=10)
        self.assertEqual(code, 0, text)
        self.assertIn("no split has max-load at most 130.035: proven", text)
        code, text = bound(BERT12, 130.0382, large=10)  # the integer program's 130.0380954 is such a split
        self.assertEqual(code, 1, text)
        self.assertIn("at least 130.038095", text)

    def test_bad_input_is_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.json")
            with open(path, "w") as f:
                f.write('{"nodes": [')
            code, text = bound(path, 1.0)
            self.assertNotIn(code, (0, 1), text)
            self.assertIn("bad.json", text)


if __name__ == "__main__":
    unittest.main()
