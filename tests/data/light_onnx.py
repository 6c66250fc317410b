"""The "light" form of the test models, shared by the scripts that write them
(models/make_gpt_tied_light.py, scale/make_scale_models.py): every weight of more than SMALL elements
is a ConstantOfShape node `<weight>__light_ConstantOfShape` (value 0.01 of the weight's data type)
reading an int64 shape initializer `<weight>__light_shape`, its output keeping the weight's name, so
shapes and byte counts are the real model's and the files are tiny. Graph builds such models with
onnx.helper. Needs only onnx and numpy (Debian's python3-onnx).
"""
import numpy as np
from onnx import TensorProto, helper, mapping

LIGHT_VALUE = 0.01
SMALL = 16  # tensors of at most this many elements may be plain initializers


def light_value(data_type):
    """ConstantOfShape's `value`: one element of the weight's data type, 0.01 (0 for integers)."""
    np_type = mapping.TENSOR_TYPE_TO_NP_TYPE[data_type]
    data = np.asarray([LIGHT_VALUE], dtype=np.float64).astype(np_type)
    return helper.make_tensor("value", data_type, [1], data.tobytes(), raw=True)


def light_nodes(name, dims, data_type):
    """The shape initializer and the ConstantOfShape node standing for weight `name`."""
    shape = helper.make_tensor(name + "__light_shape", TensorProto.INT64, [len(dims)],
                               np.asarray(dims, dtype=np.int64).tobytes(), raw=True)
    node = helper.make_node("ConstantOfShape", [shape.name], [name], name=name + "__light_ConstantOfShape",
                            value=light_value(data_type))
    return shape, node


class Graph:
    """Nodes and initializers of a model being written; weights in the light form."""

    def __init__(self, dtype=TensorProto.FLOAT):
        self.dtype = dtype  # weights' (and scalars') element type
        self.nodes, self.initializers = [], []

    def node(self, op, inputs, name, outputs=1, **attrs):
        """Adds node `name`; its outputs are `name + "_output_<j>"` (or the given list of names)."""
        if isinstance(outputs, int):
            outputs = [f"{name}_output_{j}" for j in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def ints(self, name, values, scalar=False):
        assert len(values) <= SMALL
        data = np.asarray(values, dtype=np.int64)
        dims = [] if scalar else [len(values)]
        self.initializers.append(helper.make_tensor(name, TensorProto.INT64, dims, data.tobytes(), raw=True))
        return name

    def scalar(self, name, value, dtype=None):
        dtype = self.dtype if dtype is None else dtype
        data = np.asarray(value, dtype=mapping.TENSOR_TYPE_TO_NP_TYPE[dtype])
        self.initializers.append(helper.make_tensor(name, dtype, [], data.tobytes(), raw=True))
        return name

    def weight(self, name, shape):
        """A light weight named `name` of `shape` and the graph's data type."""
        assert int(np.prod(shape)) > SMALL
        shape_init, node = light_nodes(name, shape, self.dtype)
        self.initializers.append(shape_init)
        self.nodes.append(node)
        return name
