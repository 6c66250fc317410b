#!/usr/bin/env python3
"""Writes a model whose weights are in one external data file, as exporters write models over 2 GB.

usage: make_external_model.py DIR [MB]

DIR/big_external.onnx and DIR/big_external.onnx.data: x[batch, 2048] -> MatMul(w1) -> Relu ->
MatMul(w2) -> Add(b) -> y[batch, 64]. w1 is [2048, MB*128] float32 (MB MiB; default 300, the
issue's "300 MB weight"), w2 [MB*128, 64] and b [64]; all three live in the data file, one after the
other, with distinct values so that a wrong offset gives wrong outputs. Built at test time (the file
is too large to keep in the repository) with onnx.helper and numpy, writing the data file directly
rather than holding the model's bytes twice.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def external(name, array, data, offset):
    """A TensorProto whose bytes are `array`, appended to the open file `data` at `offset`."""
    tensor = TensorProto()
    tensor.name = name
    tensor.data_type = TensorProto.FLOAT
    tensor.dims.extend(array.shape)
    tensor.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "big_external.onnx.data"), ("offset", str(offset)),
                       ("length", str(array.nbytes))):
        entry = tensor.external_data.add()
        entry.key = key
        entry.value = value
    array.astype("<f4").tofile(data)
    return tensor, offset + array.nbytes


def pattern(shape, period, scale):
    """Deterministic values in [-scale, scale) that differ between neighbours."""
    count = int(np.prod(shape))
    return ((np.arange(count, dtype=np.int64) % period - period // 2) * (2.0 * scale / period)).astype(
        np.float32).reshape(shape)


def main():
    out_dir = sys.argv[1]
    mb = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    hidden = mb * 128  # 2048 * hidden * 4 bytes = mb MiB
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "big_external.onnx.data"), "wb") as data:
        w1, offset = external("w1", pattern((2048, hidden), 97, 0.02), data, 0)
        w2, offset = external("w2", pattern((hidden, 64), 89, 0.01), data, offset)
        b, offset = external("b", pattern((64,), 7, 0.5), data, offset)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w1"], ["h"], name="up"),
         helper.make_node("Relu", ["h"], ["r"], name="act"),
         helper.make_node("MatMul", ["r", "w2"], ["d"], name="down"),
         helper.make_node("Add", ["d", "b"], ["y"], name="bias")],
        "big_external",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 2048])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 64])],
        [w1, w2, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="onnx-placer tests")
    model.ir_version = 8
    path = os.path.join(out_dir, "big_external.onnx")
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    onnx.checker.check_model(path)  # by path: the data file is found beside the model


if __name__ == "__main__":
    main()
