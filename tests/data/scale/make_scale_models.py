#!/usr/bin/python3
"""Writes five large-model test fixtures next to this script, in the "light" form of
tests/data/models (see README.md there and here).

  swin_t_light.onnx             torchvision 0.14's swin_t (weights=None), exported by torch 1.13's
                                torch.onnx.export, opset 14, batch 1, input `input` float32
                                [1, 3, 224, 224], output `logits` [1, 1000] (torch declares its first
                                dimension symbolic, "Gemmlogits_dim_0"; set to 1 here).
                                The shifted-window attention mask, the padding and the window
                                partition are exported as the shape arithmetic torchvision writes
                                (Shape, Gather, Range, ScatterND, Where, ...), not folded away.
  transformer_encdec_light.onnx torch.nn.Transformer (d_model 512, 8 heads, 6 encoder + 6 decoder
                                layers, feed-forward 2048, ReLU, post-LayerNorm, batch_first=True),
                                exported by torch 1.13, opset 14; inputs `src` and `tgt` float32
                                [1, 64, 512], output `out` [1, 64, 512]. The causal target mask is
                                built inside the module with nn.Transformer.generate_square_
                                subsequent_mask(64) = triu(full((64, 64), -inf), 1): the export
                                keeps it as a Constant [64, 64] (-inf, 16 KiB, not a weight and
                                left as exported) followed by a Trilu node.
  inception_v3_torch_light.onnx torchvision 0.14's inception_v3 (weights=None, aux_logits=False,
                                init_weights=False; transform_input is False), exported by torch
                                1.13, opset 14, batch 1, input `input` float32 [1, 3, 299, 299],
                                output `logits` [1, 1000]. In eval mode the exporter folds each
                                BatchNorm into its Conv (the Conv gets a bias; these weights are
                                named onnx::Conv_<k>) and drops the Dropout; each 3x3 average pool
                                (count_include_pad) is a Constant pads, Pad and AveragePool.
  llama7b_light.onnx            a Llama-2-7B decoder written with onnx.helper (function `llama`):
                                vocabulary 32000, hidden 4096, 32 layers, 32 heads of 128 (no
                                grouped KV heads), SwiGLU MLP 11008, RMSNorm eps 1e-5, rotary
                                position embeddings, causal self-attention, untied LM head;
                                float16 weights (6.74 G parameters, 13.5 GB) and float16
                                activations; input `input_ids` int64 [1, 128], output `logits`
                                float32 [1, 128, 32000]. Opset 17, IR 8.
  llama_tiny_light.onnx         the same function with vocabulary 512, hidden 64, 4 layers, 4 heads
                                of 16, MLP 172, sequence 16, 64 rotary positions; float16 too.
                                It runs in ONNX Runtime 1.30's CPU provider, which has no float16
                                kernels for MatMul, Add, Mul, Neg, ... and computes those in float32
                                through Casts it inserts itself (InsertCastTransformer). The 7B model
                                would allocate 13.5 GB of weights and is not meant to be run.

The Llama graph follows Hugging Face's LlamaForCausalLM in float16, per layer:
  RMSNorm:   Cast to float32, Pow 2, ReduceMean over the last axis, Add eps, Sqrt, Div, Cast back
             to float16, Mul by the norm weight (the variance is computed in float32, as in HF);
  attention: q, k, v = MatMul by [hidden, hidden] weights, Reshape/Transpose to [1, heads, seq, 128];
             rotary embedding x * cos + rotate_half(x) * sin with rotate_half(x) = Concat(-x[64:],
             x[:64]) (Slice, Neg, Concat), cos/sin the first `seq` rows (Slice) of the float16
             tables `model.rotary_emb.cos_cached`/`sin_cached` [4096, 128] (weights here);
             scores = MatMul(q, k^T) * 1/sqrt(128) + causal mask; Softmax in float32 (Cast, Softmax,
             Cast back, as HF's softmax(dtype=float32)); MatMul with v, Transpose/Reshape, o_proj
             MatMul, residual Add;
  MLP:       down(SiLU(gate(x)) * up(x)) with SiLU = x * Sigmoid(x), residual Add.
The causal mask [seq, seq] is computed once: Cast(Trilu(Expand(-65504.0, [seq, seq]), k=1)), float16's
minimum (HF's finfo.min) above the diagonal, 0 elsewhere; Expand and Trilu work in float32 because
ONNX Runtime's CPU provider has no float16 Trilu kernel (with one it warns and inserts Casts itself). The final RMSNorm, the LM head MatMul by
`lm_head.weight` [4096, 32000] and a Cast of the logits to float32 (HF's logits.float()) end the graph.
Linear weights are stored as [in, out] (HF's nn.Linear weight transposed) so MatMul reads them
directly; their names are HF's parameter names.

The torch exports use opset 14, the lowest the transformer's mask allows (triu exports as Trilu, new
in opset 14); ONNX Runtime runs swin_t and the transformer (inception_v3 not tried). Opset 14 has no LayerNormalization or Gelu operator, so LayerNorm is ReduceMean/Sub/Pow/Add/Sqrt/Div/Mul/Add
and swin's GELU Div/Erf/Add/Mul/Mul.

Light form: every weight tensor (initializer) of more than 16 elements is a ConstantOfShape node named
`<weight>__light_ConstantOfShape` whose input is a small int64 initializer `<weight>__light_shape` and
whose `value` is a one-element tensor of the weight's data type holding 0.01; its output keeps the
weight's name. Shapes, data types and byte counts are the real model's, the files are tiny. In the torch
exports this is a post-processing step; initializers of at most 16 elements stay as they are. Before
export every torch parameter is re-drawn from N(0, 0.02) with a fixed seed so that no two parameters are
equal: torch's exporter would otherwise merge equal initializers (e.g. all-zero biases, all-one
LayerNorm weights) into one and read the copies through Identity nodes.

Deterministic: running it twice writes byte-identical files (fixed seeds, fixed producer fields, no
timestamps). Needs Debian's interpreter with python3-torch 1.13, python3-torchvision 0.14,
python3-onnx 1.12 and python3-numpy:

    /usr/bin/python3 make_scale_models.py          # all five files
    /usr/bin/python3 make_scale_models.py llama    # only the two Llama files (no torch needed)
"""
import io
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, mapping

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from light_onnx import SMALL, Graph, light_nodes  # noqa: E402  (tests/data/light_onnx.py)

PRODUCER = "make_scale_models.py"
TORCH_OPSET = 14  # Trilu (torch.triu) needs 14


def unique_node_names(graph):
    """Every node gets a non-empty name no other node has (suffixes `_dup<k>` only where needed)."""
    seen = set()
    for index, node in enumerate(graph.node):
        name = node.name or f"/{node.op_type}_unnamed_{index}"
        base, k = name, 1
        while name in seen:
            name, k = f"{base}_dup{k}", k + 1
        node.name = name
        seen.add(name)


def lighten(model):
    """Replaces every initializer of more than SMALL elements by its light ConstantOfShape node (put at
    the front of graph.node) and drops it from graph.input if it is listed there."""
    graph = model.graph
    keep, shapes, nodes, removed = [], [], [], set()
    for init in graph.initializer:
        if int(np.prod(init.dims)) <= SMALL:
            keep.append(init)
            continue
        shape, node = light_nodes(init.name, list(init.dims), init.data_type)
        shapes.append(shape)
        nodes.append(node)
        removed.add(init.name)
    inputs = [i for i in graph.input if i.name not in removed]
    rest = list(graph.node)
    del graph.input[:]
    graph.input.extend(inputs)
    del graph.node[:]
    graph.node.extend(nodes + rest)
    del graph.initializer[:]
    graph.initializer.extend(keep + shapes)
    return model


def finish(model, graph_name, producer_version):
    model.graph.name = graph_name
    model.producer_name = PRODUCER
    model.producer_version = producer_version
    model.doc_string = ""
    unique_node_names(model.graph)
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as error:  # keep going: the report says which file and why
        print(f"{graph_name}: full_check failed ({error}); plain check instead", file=sys.stderr)
        onnx.checker.check_model(model)
    return model


# ---- torch exports ---------------------------------------------------------------------------------

def randomize(module, seed):
    """Re-draws every parameter from N(0, 0.02) so that no two are equal (see the docstring)."""
    import torch
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for _, p in sorted(module.named_parameters()):
            p.copy_(torch.randn(p.shape, generator=generator) * 0.02)


def export(module, args, input_names, output_names):
    import torch
    buffer = io.BytesIO()
    # Gradients stay enabled on purpose: under no_grad torch 1.13's nn.TransformerEncoderLayer takes
    # its fused fast path (aten::_transformer_encoder_layer_fwd), which has no ONNX export.
    torch.onnx.export(module, args, buffer, opset_version=TORCH_OPSET, input_names=input_names,
                      output_names=output_names, do_constant_folding=True)
    model = onnx.load_from_string(buffer.getvalue())
    # torch declares some output dimensions symbolic (swin_t's logits: "Gemmlogits_dim_0") although
    # every input shape is static: declare the shapes the module actually returns.
    outputs = module(*args)
    outputs = outputs if isinstance(outputs, (tuple, list)) else [outputs]
    for declared, value in zip(model.graph.output, outputs):
        dims = declared.type.tensor_type.shape.dim
        assert len(dims) == value.dim()
        for dim, size in zip(dims, value.shape):
            assert not dim.HasField("dim_value") or dim.dim_value == size
            dim.dim_value = size  # clears dim_param
    return model


def swin_t():
    import torch
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.swin_t(weights=None).eval()
    randomize(model, 1)
    x = torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(2))
    model = lighten(export(model, (x,), ["input"], ["logits"]))
    return finish(model, "swin_t_light", f"torch {torch.__version__} / torchvision {torchvision.__version__}")


def transformer_encdec():
    import torch

    class EncoderDecoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.t = torch.nn.Transformer(d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                                          dim_feedforward=2048, batch_first=True)

        def forward(self, src, tgt):
            mask = torch.nn.Transformer.generate_square_subsequent_mask(tgt.size(1))  # causal
            return self.t(src, tgt, tgt_mask=mask)

    torch.manual_seed(0)
    model = EncoderDecoder().eval()
    randomize(model, 1)
    generator = torch.Generator().manual_seed(2)
    src = torch.randn(1, 64, 512, generator=generator)
    tgt = torch.randn(1, 64, 512, generator=generator)
    model = lighten(export(model, (src, tgt), ["src", "tgt"], ["out"]))
    return finish(model, "transformer_encdec_light", f"torch {torch.__version__}")


def inception_v3():
    import torch
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.inception_v3(weights=None, aux_logits=False, init_weights=False).eval()
    randomize(model, 1)
    x = torch.randn(1, 3, 299, 299, generator=torch.Generator().manual_seed(2))
    model = lighten(export(model, (x,), ["input"], ["logits"]))
    return finish(model, "inception_v3_torch_light",
                  f"torch {torch.__version__} / torchvision {torchvision.__version__}")


# ---- Llama, written with onnx.helper -----------------------------------------------------------------

LLAMA_7B = dict(vocab=32000, hidden=4096, layers=32, heads=32, head_dim=128, mlp=11008, seq=128,
                positions=4096)
LLAMA_TINY = dict(vocab=512, hidden=64, layers=4, heads=4, head_dim=16, mlp=172, seq=16, positions=64)


def llama(vocab, hidden, layers, heads, head_dim, mlp, seq, positions, dtype=TensorProto.FLOAT16, eps=1e-5):
    assert heads * head_dim == hidden and head_dim % 2 == 0 and seq <= positions
    g = Graph(dtype)
    half = head_dim // 2
    fp32 = TensorProto.FLOAT

    embed = g.weight("model.embed_tokens.weight", [vocab, hidden])
    h = g.node("Gather", [embed, "input_ids"], "/model/embed_tokens/Gather", axis=0)  # [1, seq, hidden]

    # Rotary tables: rows 0..seq-1 of cos/sin [positions, head_dim] (static positions 0..seq-1).
    zero, seq_end = g.ints("zero", [0]), g.ints("seq_end", [seq])
    cos = g.node("Slice", [g.weight("model.rotary_emb.cos_cached", [positions, head_dim]), zero, seq_end, zero],
                 "/model/rotary_emb/Slice_cos")
    sin = g.node("Slice", [g.weight("model.rotary_emb.sin_cached", [positions, head_dim]), zero, seq_end, zero],
                 "/model/rotary_emb/Slice_sin")

    # Causal mask [seq, seq]: dtype's minimum above the diagonal, 0 on and below it.
    # Built in float32 (ONNX Runtime's CPU provider has no float16 Trilu), then Cast to dtype.
    lowest = float(np.finfo(mapping.TENSOR_TYPE_TO_NP_TYPE[dtype]).min)
    full = g.node("Expand", [g.scalar("mask_min", lowest, fp32), g.ints("mask_shape", [seq, seq])],
                  "/model/mask/Expand")
    mask = g.node("Trilu", [full, g.ints("mask_diagonal", [1], scalar=True)], "/model/mask/Trilu", upper=1)
    if dtype != fp32:
        mask = g.node("Cast", [mask], "/model/mask/Cast", to=dtype)

    heads_shape = g.ints("heads_shape", [1, seq, heads, head_dim])
    merged_shape = g.ints("merged_shape", [1, seq, hidden])
    last = g.ints("last_axis", [-1])
    half_start, half_end, full_end = g.ints("half_start", [0]), g.ints("half", [half]), g.ints("head_dim", [head_dim])
    two, epsilon = g.scalar("two", 2.0, fp32), g.scalar("rms_eps", eps, fp32)
    scale = g.scalar("attn_scale", 1.0 / np.sqrt(head_dim))

    def rms_norm(x, weight_name, path):
        w = g.weight(weight_name, [hidden])
        x32 = x if dtype == fp32 else g.node("Cast", [x], path + "/Cast", to=fp32)
        var = g.node("Pow", [x32, two], path + "/Pow")
        var = g.node("ReduceMean", [var], path + "/ReduceMean", axes=[-1], keepdims=1)
        var = g.node("Add", [var, epsilon], path + "/Add")
        std = g.node("Sqrt", [var], path + "/Sqrt")
        y = g.node("Div", [x32, std], path + "/Div")
        if dtype != fp32:
            y = g.node("Cast", [y], path + "/Cast_1", to=dtype)
        return g.node("Mul", [w, y], path + "/Mul")

    def linear(x, weight_name, path, fan_in, fan_out):
        return g.node("MatMul", [x, g.weight(weight_name, [fan_in, fan_out])], path + "/MatMul")

    def rotary(x, path, tag):
        x1 = g.node("Slice", [x, half_start, half_end, last], f"{path}/Slice_{tag}_1")
        x2 = g.node("Slice", [x, half_end, full_end, last], f"{path}/Slice_{tag}_2")
        rotated = g.node("Concat", [g.node("Neg", [x2], f"{path}/Neg_{tag}"), x1], f"{path}/Concat_{tag}", axis=-1)
        a = g.node("Mul", [x, cos], f"{path}/Mul_{tag}_cos")
        b = g.node("Mul", [rotated, sin], f"{path}/Mul_{tag}_sin")
        return g.node("Add", [a, b], f"{path}/Add_{tag}")

    for i in range(layers):
        w, p = f"model.layers.{i}", f"/model/layers.{i}"
        # Self-attention.
        x = rms_norm(h, w + ".input_layernorm.weight", p + "/input_layernorm")
        a = p + "/self_attn"

        def heads_of(tag):
            t = linear(x, f"{w}.self_attn.{tag}_proj.weight", f"{a}/{tag}_proj", hidden, hidden)
            t = g.node("Reshape", [t, heads_shape], f"{a}/Reshape_{tag}")
            return g.node("Transpose", [t], f"{a}/Transpose_{tag}", perm=[0, 2, 1, 3])  # [1, heads, seq, d]

        q, k, v = heads_of("q"), heads_of("k"), heads_of("v")
        q, k = rotary(q, a, "q"), rotary(k, a, "k")
        kt = g.node("Transpose", [k], a + "/Transpose_kt", perm=[0, 1, 3, 2])
        scores = g.node("MatMul", [q, kt], a + "/MatMul_qk")
        scores = g.node("Mul", [scores, scale], a + "/Mul_scale")
        scores = g.node("Add", [scores, mask], a + "/Add_mask")
        if dtype != fp32:
            scores = g.node("Cast", [scores], a + "/Cast_scores", to=fp32)
        probs = g.node("Softmax", [scores], a + "/Softmax", axis=-1)
        if dtype != fp32:
            probs = g.node("Cast", [probs], a + "/Cast_probs", to=dtype)
        context = g.node("MatMul", [probs, v], a + "/MatMul_v")
        context = g.node("Transpose", [context], a + "/Transpose_out", perm=[0, 2, 1, 3])
        context = g.node("Reshape", [context, merged_shape], a + "/Reshape_out")
        h = g.node("Add", [h, linear(context, w + ".self_attn.o_proj.weight", a + "/o_proj", hidden, hidden)],
                   p + "/Add_attn")
        # SwiGLU MLP.
        x = rms_norm(h, w + ".post_attention_layernorm.weight", p + "/post_attention_layernorm")
        m = p + "/mlp"
        gate = linear(x, w + ".mlp.gate_proj.weight", m + "/gate_proj", hidden, mlp)
        up = linear(x, w + ".mlp.up_proj.weight", m + "/up_proj", hidden, mlp)
        silu = g.node("Mul", [gate, g.node("Sigmoid", [gate], m + "/act_fn/Sigmoid")], m + "/act_fn/Mul")
        down = linear(g.node("Mul", [silu, up], m + "/Mul"), w + ".mlp.down_proj.weight", m + "/down_proj", mlp, hidden)
        h = g.node("Add", [h, down], p + "/Add_mlp")

    h = rms_norm(h, "model.norm.weight", "/model/norm")
    logits = linear(h, "lm_head.weight", "/lm_head", hidden, vocab)
    if dtype == fp32:
        g.node("Identity", [logits], "/lm_head/Identity", outputs=["logits"])
    else:
        g.node("Cast", [logits], "/lm_head/Cast", outputs=["logits"], to=fp32)

    names = [n.name for n in g.nodes]
    assert len(set(names)) == len(names), "node names must be unique"
    graph = helper.make_graph(
        g.nodes, "llama",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, seq])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, seq, vocab])],
        g.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def main(argv):
    which = argv[1:] or ["all"]
    builds = [("llama7b_light", lambda: llama(**LLAMA_7B)), ("llama_tiny_light", lambda: llama(**LLAMA_TINY))]
    if which != ["llama"]:
        builds = [("swin_t_light", swin_t), ("transformer_encdec_light", transformer_encdec),
                  ("inception_v3_torch_light", inception_v3)] + builds
    for name, build in builds:
        model = build()
        if name.startswith("llama"):
            model = finish(model, name, "1")
        path = os.path.join(HERE, name + ".onnx")
        data = model.SerializeToString()
        with open(path, "wb") as out:
            out.write(data)
        print(f"{path}: {len(model.graph.node)} nodes, {len(data)} bytes")


if __name__ == "__main__":
    main(sys.argv)
