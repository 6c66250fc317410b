"""Places an ONNX model on two accelerators through onnx-placer's Python module and writes its stages.

Usage: python3 place.py MODEL.onnx OUT_DIR
"""
import os
import sys

import onnx
import onnx_placer

model_path, out_dir = sys.argv[1], sys.argv[2]
try:
    result = onnx_placer.place(onnx.load(model_path), accelerators=2)
except onnx_placer.Error as error:
    sys.exit(f"place.py: {error.message}")
os.makedirs(out_dir, exist_ok=True)
for k, stage in enumerate(result.stages):
    onnx.save(stage, os.path.join(out_dir, f"stage{k}.onnx"))
print(f"{len(result.stages)} stage(s), {result.certificate['summary']}")
