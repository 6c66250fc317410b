#!/usr/bin/python3
"""Writes gpt_tied_light.onnx and gpt_untied_light.onnx next to this script.

GPT-2 small's shapes (vocabulary 50257, width 768, 12 heads of 64, MLP 3072, 1024 positions, 12
pre-LayerNorm blocks) in the "light" form of the other test models (see README.md): every weight of
more than 16 elements is a ConstantOfShape node (value 0.01 float32) whose input is a small int64
shape initializer `<weight>__light_shape` and whose output keeps the weight's name, so shapes and
byte counts are the real ones and the file is tiny.

In gpt_tied_light.onnx the token embedding `wte` [50257, 768] is read by the input Gather and by the
LM head, Gemm(hidden, wte, transB=1): tied input and output embeddings, as in GPT-2. In
gpt_untied_light.onnx the tie is cut: the LM head reads its own copy, `lm_head.weight` (same shape,
same value); the two models compute identical logits.

Input: input_ids int64 [batch, seq] (symbolic); output: logits float32 [batch, seq, 50257].
The position embedding is wpe[0:seq]: a Slice of `wpe` up to Shape(input_ids)[1], the same rows as
Gather(wpe, Range(0, seq)) but without Range, which has no exact roofline formula in onnx-placer; a
loader that folds int64 shape arithmetic sizes it statically. No causal mask. GELU is
0.5 x (1 + erf(x / sqrt 2)) in Div/Erf/Add/Mul (opset 17 has no Gelu operator).

Deterministic: running it twice writes byte-identical files. Needs only Debian's python3-onnx (1.12)
and python3-numpy: /usr/bin/python3 make_gpt_tied_light.py
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from light_onnx import Graph  # noqa: E402  (tests/data/light_onnx.py: the light weight form)

# 12 blocks, as GPT-2 small: with 4, the LM head alone outweighs the 4 blocks together and a 4-way
# placement leaves devices idle (tests/onnx_io/tied_embedding_test.cc expects every device used).
VOCAB, WIDTH, HEADS, MLP, POSITIONS, BLOCKS = 50257, 768, 12, 3072, 1024, 12
HEAD = WIDTH // HEADS

def build(tied):
    g = Graph()
    wte = g.weight("wte", [VOCAB, WIDTH])
    wpe = g.weight("wpe", [POSITIONS, WIDTH])

    # Token embeddings, plus the first `seq` rows of the position embedding (broadcast over batch).
    tokens = g.node("Gather", [wte, "input_ids"], "/wte/Gather", axis=0)
    seq = g.node("Shape", ["input_ids"], "/Shape", start=1, end=2)  # [seq]
    zero = g.ints("zero", [0])
    positions = g.node("Slice", [wpe, zero, seq, zero], "/wpe/Slice")  # wpe[0:seq]: [seq, width]
    h = g.node("Add", [tokens, positions], "/Add")

    heads_shape = g.ints("heads_shape", [0, 0, HEADS, HEAD])  # [batch, seq, heads, head]
    merged_shape = g.ints("merged_shape", [0, 0, WIDTH])  # [batch, seq, width]
    qkv_split = g.ints("qkv_split", [WIDTH, WIDTH, WIDTH])
    scale = g.scalar("attn_scale", 1.0 / np.sqrt(HEAD))  # 1/8
    sqrt2, one, half = g.scalar("sqrt2", np.sqrt(2.0)), g.scalar("one", 1.0), g.scalar("half", 0.5)

    def layer_norm(x, weight_prefix, path):
        gamma = g.weight(weight_prefix + ".weight", [WIDTH])
        beta = g.weight(weight_prefix + ".bias", [WIDTH])
        return g.node("LayerNormalization", [x, gamma, beta], path + "/LayerNormalization", axis=-1, epsilon=1e-5)

    def linear(x, weight_prefix, path, fan_in, fan_out):
        w = g.weight(weight_prefix + ".weight", [fan_in, fan_out])
        b = g.weight(weight_prefix + ".bias", [fan_out])
        y = g.node("MatMul", [x, w], path + "/MatMul")
        return g.node("Add", [y, b], path + "/Add")

    for i in range(BLOCKS):
        w, p = f"h.{i}", f"/h.{i}"
        # Attention.
        x = layer_norm(h, w + ".ln_1", p + "/ln_1")
        qkv = linear(x, w + ".attn.c_attn", p + "/attn/c_attn", WIDTH, 3 * WIDTH)
        q, k, v = g.node("Split", [qkv, qkv_split], p + "/attn/Split", outputs=3, axis=-1)

        def heads(t, tag, perm):
            r = g.node("Reshape", [t, heads_shape], f"{p}/attn/Reshape_{tag}")
            return g.node("Transpose", [r], f"{p}/attn/Transpose_{tag}", perm=perm)

        qh = heads(q, "q", [0, 2, 1, 3])  # [batch, heads, seq, head]
        kt = heads(k, "k", [0, 2, 3, 1])  # [batch, heads, head, seq]
        vh = heads(v, "v", [0, 2, 1, 3])  # [batch, heads, seq, head]
        scores = g.node("MatMul", [qh, kt], p + "/attn/MatMul_qk")
        scores = g.node("Mul", [scores, scale], p + "/attn/Mul_scale")
        probs = g.node("Softmax", [scores], p + "/attn/Softmax", axis=-1)
        context = g.node("MatMul", [probs, vh], p + "/attn/MatMul_v")
        context = g.node("Transpose", [context], p + "/attn/Transpose_out", perm=[0, 2, 1, 3])
        context = g.node("Reshape", [context, merged_shape], p + "/attn/Reshape_out")
        attn = linear(context, w + ".attn.c_proj", p + "/attn/c_proj", WIDTH, WIDTH)
        h = g.node("Add", [h, attn], p + "/Add_attn")
        # MLP.
        x = layer_norm(h, w + ".ln_2", p + "/ln_2")
        up = linear(x, w + ".mlp.c_fc", p + "/mlp/c_fc", WIDTH, MLP)
        e = g.node("Div", [up, sqrt2], p + "/mlp/act/Div")
        e = g.node("Erf", [e], p + "/mlp/act/Erf")
        e = g.node("Add", [e, one], p + "/mlp/act/Add")
        e = g.node("Mul", [up, e], p + "/mlp/act/Mul")
        gelu = g.node("Mul", [e, half], p + "/mlp/act/Mul_half")
        down = linear(gelu, w + ".mlp.c_proj", p + "/mlp/c_proj", MLP, WIDTH)
        h = g.node("Add", [h, down], p + "/Add_mlp")

    h = layer_norm(h, "ln_f", "/ln_f")
    # LM head: logits = hidden @ E^T on [batch*seq, width], then back to [batch, seq, vocab].
    # E is `wte` itself (tied) or its copy `lm_head.weight` (untied).
    head = wte if tied else g.weight("lm_head.weight", [VOCAB, WIDTH])
    batch_seq = g.node("Shape", [h], "/lm_head/Shape", end=2)  # [batch, seq]
    flat = g.node("Reshape", [h, g.ints("flat_shape", [-1, WIDTH])], "/lm_head/Reshape")
    logits2d = g.node("Gemm", [flat, head], "/lm_head/Gemm", transB=1)
    out_shape = g.node("Concat", [batch_seq, g.ints("vocab", [VOCAB])], "/lm_head/Concat", axis=0)
    g.node("Reshape", [logits2d, out_shape], "/lm_head/Reshape_out", outputs=["logits"])

    names = [n.name for n in g.nodes]
    assert len(set(names)) == len(names), "node names must be unique"
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
