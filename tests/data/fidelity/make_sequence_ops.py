#!/usr/bin/python3
"""Writes sequence_ops.onnx next to this script (Debian's python3-onnx, 1.12; no torch needed):

    /usr/bin/python3 tests/data/fidelity/make_sequence_ops.py

x float32 [S, N, 8] (both symbolic) through an LSTM (hidden 16, with bias), a bidirectional GRU
(hidden 16) over the LSTM's sequence, an Einsum "sdbh,dhk->sbk" that merges the GRU's two
directions through a [2, 16, 16] weight, and a TopK (k = 4) on the last axis. Outputs: the TopK
values [S, N, 4] and the LSTM's last hidden state [1, N, 16]. Weights from seed 2.

Multiply-accumulates at S = 6, N = 3 (cost_model/sequence_work.h):
  LSTM   S·N · 4·16 · (8 + 16)          = 18 · 64 · 24      = 27,648
  GRU    S·N · 2 directions · 3·16 · (16 + 16) = 18 · 2 · 48 · 32 = 55,296
  Einsum s·d·b·h·k = 6 · 2 · 3 · 16 · 16                      =  9,216
  total                                                          92,160
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
HIDDEN = 16


def main():
    rng = np.random.default_rng(2)
    weights = []

    def weight(name, shape):
        weights.append(numpy_helper.from_array((rng.standard_normal(shape) * 0.1).astype(np.float32), name))
        return name

    nodes = [
        helper.make_node("LSTM", ["x", weight("W", (1, 4 * HIDDEN, 8)), weight("R", (1, 4 * HIDDEN, HIDDEN)),
                                  weight("B", (1, 8 * HIDDEN))],
                         ["y", "y_h", "y_c"], name="lstm", hidden_size=HIDDEN),
        helper.make_node("Squeeze", ["y", "one"], ["y_seq"], name="squeeze"),
        helper.make_node("GRU", ["y_seq", weight("W_gru", (2, 3 * HIDDEN, HIDDEN)),
                                 weight("R_gru", (2, 3 * HIDDEN, HIDDEN))],
                         ["g", "g_h"], name="gru", hidden_size=HIDDEN, direction="bidirectional"),
        helper.make_node("Einsum", ["g", weight("E", (2, HIDDEN, HIDDEN))], ["e"], name="merge_directions",
                         equation="sdbh,dhk->sbk"),
        helper.make_node("TopK", ["e", "k"], ["top_values", "top_indices"], name="topk", axis=-1),
    ]
    weights.append(numpy_helper.from_array(np.array([1], dtype=np.int64), "one"))
    weights.append(numpy_helper.from_array(np.array([4], dtype=np.int64), "k"))
    graph = helper.make_graph(
        nodes, "sequence_ops", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["S", "N", 8])],
        [helper.make_tensor_value_info("top_values", TensorProto.FLOAT, ["S", "N", 4]),
         helper.make_tensor_value_info("y_h", TensorProto.FLOAT, [1, "N", HIDDEN])],
        weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="onnx-placer tests")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(HERE, "sequence_ops.onnx"))


if __name__ == "__main__":
    main()
