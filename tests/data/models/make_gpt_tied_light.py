#!/usr/bin/python3
"""Writes gpt_tied_light.onnx and gpt_untied_light.onnx next to this script.

GPT-2 small (vocabulary 50257, width 768, 12 heads, MLP 3072, 1024 positions) with its 12
pre-LayerNorm blocks, in the "light" form of the other test models: every weight of more than 16
elements is a ConstantOfShape node (value 0.01) whose output keeps the weight's name, so shapes and
byte counts are the real ones and the file is tiny.

In gpt_tied_light.onnx the token embedding `wte` is read by the input Gather and by the LM head,
Gemm(hidden, wte, transB=1): tied input and output embeddings, as in GPT-2, T5 or BERT's masked-LM
head. gpt_untied_light.onnx is the same model with the tie cut: the LM head reads its own copy,
`lm_head.weight`.

Inputs: input_ids int64 [batch, seq]; output: logits float32 [batch, seq, 50257].
Deterministic: running it twice writes identical files. Needs Debian's python3-onnx (1.12).
"""
import os

import onnx
from onnx import TensorProto, helper

VOCAB, WIDTH, HEADS, MLP, POSITIONS, BLOCKS = 50257, 768, 12, 3072, 1024, 12
HEAD = WIDTH // HEADS


class Graph:
    def __init__(self):
        self.nodes, self.initializers = [], []

    def node(self, op, inputs, outputs, name, **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, **attrs))
        return outputs[0]

    def ints(self, name, values):
        self.initializers.append(helper.make_tensor(name, TensorProto.INT64, [len(values)], values))
        return name

    def scalar(self, name, value):
        self.initializers.append(helper.make_tensor(name, TensorProto.FLOAT, [], [value]))
        return name

    def weight(self, name, shape):
        """A light weight: ConstantOfShape(shape) with value 0.01, output named `name`."""
        shape_name = self.ints(name + "__shape", shape)
        value = helper.make_tensor("value", TensorProto.FLOAT, [1], [0.01])
        return self.node("ConstantOfShape", [shape_name], [name], name + "__light_ConstantOfShape", value=value)


def build(tied):
    g = Graph()
    wte = g.weight("wte", [VOCAB, WIDTH])
    wpe = g.weight("wpe", [POSITIONS, WIDTH])
    zero, one = g.ints("zero", [0]), g.ints("one", [1])

    # Token and position embeddings.
    tokens = g.node("Gather", [wte, "input_ids"], ["/wte/Gather_output_0"], "/wte/Gather", axis=0)
    shape = g.node("Shape", ["input_ids"], ["/Shape_output_0"], "/Shape")
    seq = g.node("Gather", [shape, g.ints("index_one", [1])], ["/Gather_seq_output_0"], "/Gather_seq", axis=0)
    seq0 = g.node("Squeeze", [seq, zero], ["/Squeeze_output_0"], "/Squeeze")
    start = g.node("Squeeze", [zero, zero], ["/start_output_0"], "/start")
    step = g.node("Squeeze", [one, zero], ["/step_output_0"], "/step")
    positions = g.node("Range", [start, seq0, step], ["/Range_output_0"], "/Range")
    pos = g.node("Gather", [wpe, positions], ["/wpe/Gather_output_0"], "/wpe/Gather", axis=0)
    h = g.node("Add", [tokens, pos], ["/Add_embeddings_output_0"], "/Add_embeddings")

    heads_shape = g.ints("heads_shape", [0, 0, HEADS, HEAD])
    merged_shape = g.ints("merged_shape", [0, 0, WIDTH])
    split = g.ints("qkv_split", [WIDTH, WIDTH, WIDTH])
    scale = g.scalar("attention_scale", 1.0 / 8.0)
    half, root2 = g.scalar("half", 0.5), g.scalar("sqrt2", 2.0 ** 0.5)
    unit = g.scalar("unit", 1.0)

    def layer_norm(x, prefix):
        gamma = g.weight(prefix + ".weight", [WIDTH])
        beta = g.weight(prefix + ".bias", [WIDTH])
        return g.node("LayerNormalization", [x, gamma, beta], [f"/{prefix}/LayerNormalization_output_0"],
                      f"/{prefix}/LayerNormalization", axis=-1, epsilon=1e-5)

    def linear(x, prefix, fan_in, fan_out):
        w = g.weight(prefix + ".weight", [fan_in, fan_out])
        b = g.weight(prefix + ".bias", [fan_out])
        y = g.node("MatMul", [x, w], [f"/{prefix}/MatMul_output_0"], f"/{prefix}/MatMul")
        return g.node("Add", [y, b], [f"/{prefix}/Add_output_0"], f"/{prefix}/Add")

    for i in range(BLOCKS):
        p = f"h.{i}"
        x = layer_norm(h, p + ".ln_1")
        qkv = linear(x, p + ".attn.c_attn", WIDTH, 3 * WIDTH)
        q, k, v = (f"/{p}/attn/Split_output_{j}" for j in range(3))
        g.node("Split", [qkv, split], [q, k, v], f"/{p}/attn/Split", axis=-1)

        def heads(t, tag, perm):
            r = g.node("Reshape", [t, heads_shape], [f"/{p}/attn/Reshape_{tag}_output_0"], f"/{p}/attn/Reshape_{tag}")
            return g.node("Transpose", [r], [f"/{p}/attn/Transpose_{tag}_output_0"], f"/{p}/attn/Transpose_{tag}",
                          perm=perm)

        qh, kh, vh = heads(q, "q", [0, 2, 1, 3]), heads(k, "k", [0, 2, 3, 1]), heads(v, "v", [0, 2, 1, 3])
        scores = g.node("MatMul", [qh, kh], [f"/{p}/attn/MatMul_qk_output_0"], f"/{p}/attn/MatMul_qk")
        scaled = g.node("Mul", [scores, scale], [f"/{p}/attn/Mul_output_0"], f"/{p}/attn/Mul")
        probs = g.node("Softmax", [scaled], [f"/{p}/attn/Softmax_output_0"], f"/{p}/attn/Softmax", axis=-1)
        context = g.node("MatMul", [probs, vh], [f"/{p}/attn/MatMul_v_output_0"], f"/{p}/attn/MatMul_v")
        back = g.node("Transpose", [context], [f"/{p}/attn/Transpose_out_output_0"], f"/{p}/attn/Transpose_out",
                      perm=[0, 2, 1, 3])
        merged = g.node("Reshape", [back, merged_shape], [f"/{p}/attn/Reshape_out_output_0"],
                        f"/{p}/attn/Reshape_out")
        attn = linear(merged, p + ".attn.c_proj", WIDTH, WIDTH)
        h = g.node("Add", [h, attn], [f"/{p}/Add_attn_output_0"], f"/{p}/Add_attn")

        x = layer_norm(h, p + ".ln_2")
        up = linear(x, p + ".mlp.c_fc", WIDTH, MLP)
        # GELU as 0.5 x (1 + erf(x / sqrt 2)), in opset-17 operators.
        e = g.node("Div", [up, root2], [f"/{p}/mlp/Div_output_0"], f"/{p}/mlp/Div")
        e = g.node("Erf", [e], [f"/{p}/mlp/Erf_output_0"], f"/{p}/mlp/Erf")
        e = g.node("Add", [e, unit], [f"/{p}/mlp/Add_one_output_0"], f"/{p}/mlp/Add_one")
        e = g.node("Mul", [up, e], [f"/{p}/mlp/Mul_output_0"], f"/{p}/mlp/Mul")
        gelu = g.node("Mul", [e, half], [f"/{p}/mlp/Mul_half_output_0"], f"/{p}/mlp/Mul_half")
        down = linear(gelu, p + ".mlp.c_proj", MLP, WIDTH)
        h = g.node("Add", [h, down], [f"/{p}/Add_mlp_output_0"], f"/{p}/Add_mlp")

    h = layer_norm(h, "ln_f")
    # LM head: logits = hidden @ wte^T, on [batch*seq, width], then back to [batch, seq, vocab].
    batch_seq = g.node("Shape", [h], ["/lm_head/Shape_output_0"], "/lm_head/Shape", end=2)
    flat = g.node("Reshape", [h, g.ints("flat_shape", [-1, WIDTH])], ["/lm_head/Reshape_output_0"],
                  "/lm_head/Reshape")
    head = wte if tied else g.weight("lm_head.weight", [VOCAB, WIDTH])
    logits2d = g.node("Gemm", [flat, head], ["/lm_head/Gemm_output_0"], "/lm_head/Gemm", transB=1)
    out_shape = g.node("Concat", [batch_seq, g.ints("vocab", [VOCAB])], ["/lm_head/Concat_output_0"],
                       "/lm_head/Concat", axis=0)
    g.node("Reshape", [logits2d, out_shape], ["logits"], "/lm_head/Reshape_out")

    graph = helper.make_graph(
        g.nodes, "gpt_tied_light" if tied else "gpt_untied_light",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "seq", VOCAB])],
        g.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="make_gpt_tied_light.py")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for tied, name in ((True, "gpt_tied_light.onnx"), (False, "gpt_untied_light.onnx")):
        with open(os.path.join(here, name), "wb") as out:
            out.write(build(tied).SerializeToString())


if __name__ == "__main__":
    main()
