#!/usr/bin/python3
"""Writes outputs_without_producer.onnx next to this script (Debian's python3-onnx, 1.12):

    /usr/bin/python3 tests/data/repro/make_outputs_without_producer.py

A chain of 12 MatMul + Relu pairs over x float32 [B, 64] with one 64 x 64 weight W, whose graph
outputs are the chain's end and, besides it, tensors no node produces: the graph input x itself
and the weight W. Also a Clip with its optional `min` left empty (""), an intermediate (r6) that is
an output and is read further on, and a Sigmoid whose output nothing reads. The weights are fixed
(seed 0), so the file is the same on every run.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    rng = np.random.default_rng(0)
    weight = numpy_helper.from_array((rng.random((64, 64), dtype=np.float32) - 0.5) / 8, "W")
    clip_max = numpy_helper.from_array(np.array(0.5, dtype=np.float32), "cmax")
    nodes = []
    previous = "x"
    for i in range(12):
        nodes.append(helper.make_node("MatMul", [previous, "W"], [f"m{i}"], name=f"matmul{i}"))
        nodes.append(helper.make_node("Relu", [f"m{i}"], [f"r{i}"], name=f"relu{i}"))
        previous = f"r{i}"
    nodes.append(helper.make_node("Clip", ["r5", "", "cmax"], ["clipped"], name="clip"))
    nodes.append(helper.make_node("Sigmoid", ["r3"], ["unread"], name="unread_sigmoid"))
    activation = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, ["B", 64])
    graph = helper.make_graph(
        nodes, "outputs_without_producer", [activation("x")],
        [activation(previous), activation("x"), activation("r6"), activation("clipped"),
         helper.make_tensor_value_info("W", TensorProto.FLOAT, [64, 64])],
        [weight, clip_max])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="onnx-placer tests")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(HERE, "outputs_without_producer.onnx"))


if __name__ == "__main__":
    main()
