#!/usr/bin/python3
"""Writes the dynamic-shape fixtures next to this script, exported from PyTorch with dynamic axes.

tiny_gpt_dynamic.onnx
    A small GPT (vocabulary 96, width 32, 4 heads of 8, MLP 64, 4 pre-LayerNorm blocks, 64
    positions) with input `input_ids` int64 [batch, seq] and output `logits` float32
    [batch, seq, 96], both axes symbolic (`dynamic_axes`). Its shape arithmetic is what real exports
    carry: positions from Range(0, seq), the causal mask from Trilu over a ConstantOfShape([seq,
    seq]), and every attention reshape from Shape(x) gathered and concatenated. A stage written at
    one (batch, seq) must run at any other.

tiny_decoder_kv.onnx
    The same blocks as a KV-cache decoder in the transformers/optimum convention: inputs
    `input_ids` [batch, seq], `attention_mask` [batch, total_seq] (total_seq = past_seq + seq),
    `position_ids` [batch, seq] and per layer `past_key_values.<i>.key` / `.value`
    [batch, 4, past_seq, 8]; outputs `logits` [batch, seq, 96] and `present.<i>.key` / `.value`
    [batch, 4, total_seq, 8] (the past with this step's keys and values appended). One model runs
    the prompt (past_seq = 0) and every generated token (seq = 1).

The weights are random (seed 0), so every output depends on the input. Needs Debian's python3-torch
(1.13) and python3-onnx: /usr/bin/python3 make_dynamic_models.py
"""
import math
import os

import torch
from torch import nn

VOCAB, WIDTH, HEADS, MLP, POSITIONS, BLOCKS = 96, 32, 4, 64, 64, 4
HEAD = WIDTH // HEADS
OPSET = 17
HERE = os.path.dirname(os.path.abspath(__file__))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(WIDTH), nn.LayerNorm(WIDTH)
        self.qkv, self.proj = nn.Linear(WIDTH, 3 * WIDTH), nn.Linear(WIDTH, WIDTH)
        self.up, self.down = nn.Linear(WIDTH, MLP), nn.Linear(MLP, WIDTH)

    def heads(self, x):
        b, t, _ = x.shape
        return x.view(b, t, HEADS, HEAD).transpose(1, 2)

    def attend(self, x, past=None, bias=None):
        """Causal self-attention; with `past` (key, value), this step's keys and values are appended."""
        b, t, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(WIDTH, dim=2)
        q, k, v = self.heads(q), self.heads(k), self.heads(v)
        if past is not None:
            k, v = torch.cat([past[0], k], dim=2), torch.cat([past[1], v], dim=2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(HEAD)
        total = k.shape[2]
        # Query i (at position total - t + i) sees keys 0 .. total - t + i.
        causal = torch.ones(t, total, dtype=torch.bool).tril(diagonal=total - t)
        scores = scores.masked_fill(~causal, -1e4)
        if bias is not None:
            scores = scores + bias
        y = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, WIDTH)
        return x + self.proj(y), (k, v)

    def forward(self, x, past=None, bias=None):
        x, present = self.attend(x, past, bias)
        return x + self.down(nn.functional.gelu(self.up(self.ln2(x)))), present


class Gpt(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(VOCAB, WIDTH), nn.Embedding(POSITIONS, WIDTH)
        self.blocks = nn.ModuleList(Block() for _ in range(BLOCKS))
        self.ln, self.head = nn.LayerNorm(WIDTH), nn.Linear(WIDTH, VOCAB, bias=False)

    def forward(self, input_ids):
        positions = torch.arange(input_ids.shape[1], dtype=torch.int64)
        x = self.wte(input_ids) + self.wpe(positions)
        for block in self.blocks:
            x, _ = block(x)
        return self.head(self.ln(x))


class Decoder(Gpt):
    def forward(self, input_ids, attention_mask, position_ids, *past):
        x = self.wte(input_ids) + self.wpe(position_ids)
        # Padding in attention_mask (0) masks those keys for every query.
        bias = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * -1e4
        presents = []
        for i, block in enumerate(self.blocks):
            x, (k, v) = block(x, (past[2 * i], past[2 * i + 1]), bias)
            presents += [k, v]
        return (self.head(self.ln(x)), *presents)


def export_gpt():
    torch.manual_seed(0)
    model = Gpt().eval()
    ids = torch.randint(0, VOCAB, (2, 8))
    torch.onnx.export(model, (ids,), os.path.join(HERE, "tiny_gpt_dynamic.onnx"), opset_version=OPSET,
                      input_names=["input_ids"], output_names=["logits"],
                      dynamic_axes={"input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}})


def export_decoder():
    torch.manual_seed(0)
    model = Decoder().eval()
    batch, seq, past_seq = 2, 3, 5
    ids = torch.randint(0, VOCAB, (batch, seq))
    mask = torch.ones(batch, past_seq + seq, dtype=torch.int64)
    positions = torch.arange(past_seq, past_seq + seq, dtype=torch.int64).expand(batch, seq)
    past = [torch.randn(batch, HEADS, past_seq, HEAD) for _ in range(2 * BLOCKS)]
    past_names, present_names, axes = [], [], {}
    for i in range(BLOCKS):
        for kind in ("key", "value"):
            past_names.append(f"past_key_values.{i}.{kind}")
            present_names.append(f"present.{i}.{kind}")
            axes[past_names[-1]] = {0: "batch", 2: "past_sequence_length"}
            axes[present_names[-1]] = {0: "batch", 2: "total_sequence_length"}
    axes.update({"input_ids": {0: "batch", 1: "sequence_length"},
                 "attention_mask": {0: "batch", 1: "total_sequence_length"},
                 "position_ids": {0: "batch", 1: "sequence_length"},
                 "logits": {0: "batch", 1: "sequence_length"}})
    torch.onnx.export(model, (ids, mask, positions, *past), os.path.join(HERE, "tiny_decoder_kv.onnx"),
                      opset_version=OPSET,
                      input_names=["input_ids", "attention_mask", "position_ids", *past_names],
                      output_names=["logits", *present_names], dynamic_axes=axes)


if __name__ == "__main__":
    with torch.no_grad():
        export_gpt()
        export_decoder()
