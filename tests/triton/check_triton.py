#!/usr/bin/python3
"""Checks a Triton model repository written by `onnx-placer place --emit triton=DIR`.

usage: check_triton.py MODEL_CONFIG.proto REPOSITORY ENSEMBLE_NAME > steps.json

Every config.pbtxt is parsed as a text proto against Triton's model_config.proto (compiled here with
protoc; an unknown field or a malformed value fails). Then: each stage model is onnxruntime_onnx
with one instance pinned to one GPU (or KIND_CPU) and its model in version directory 1; the ensemble
has a version directory; every tensor a step reads is an ensemble input or an earlier step's output;
every ensemble output comes from a step; batching is the same in every model, and with it no dims
hold the batch. Prints the ensemble's steps as JSON (model file, input_map, output_map) for
run_ensemble.mjs, which runs them in ONNX Runtime. Exits 1 naming the first problem.
"""
import json
import os
import subprocess
import sys
import tempfile


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    proto, repository, ensemble_name = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(["protoc", f"--proto_path={os.path.dirname(proto)}", f"--python_out={out}", proto], check=True)
        sys.path.insert(0, out)
        import model_config_pb2  # noqa: E402  (generated above)
        from google.protobuf import text_format  # noqa: E402

        configs = {}
        for name in sorted(os.listdir(repository)):
            path = os.path.join(repository, name, "config.pbtxt")
            if not os.path.isfile(path):
                fail(f"{name} has no config.pbtxt")
            config = model_config_pb2.ModelConfig()
            try:
                text_format.Parse(open(path).read(), config)
            except text_format.ParseError as e:
                fail(f"{path} does not parse against model_config.proto: {e}")
            if config.name != name:
                fail(f"{path} names the model {config.name!r}, its directory is {name!r}")
            if not os.path.isdir(os.path.join(repository, name, "1")):
                fail(f"{name} has no version directory 1")
            configs[name] = config

    if ensemble_name not in configs:
        fail(f"no ensemble model {ensemble_name}")
    ensemble = configs[ensemble_name]
    if ensemble.platform != "ensemble":
        fail(f"{ensemble_name} has platform {ensemble.platform!r}")
    batch = ensemble.max_batch_size
    available = {t.name for t in ensemble.input}
    steps = []
    for step in ensemble.ensemble_scheduling.step:
        stage = configs.get(step.model_name)
        if stage is None:
            fail(f"step model {step.model_name} is not in the repository")
        if stage.platform != "onnxruntime_onnx":
            fail(f"{step.model_name} has platform {stage.platform!r}")
        if stage.max_batch_size != batch:
            fail(f"{step.model_name} has max_batch_size {stage.max_batch_size}, the ensemble {batch}")
        if step.model_version != -1:
            fail(f"step {step.model_name} asks for version {step.model_version}")
        if len(stage.instance_group) != 1 or stage.instance_group[0].count != 1:
            fail(f"{step.model_name} does not have exactly one instance")
        group = stage.instance_group[0]
        kind = model_config_pb2.ModelInstanceGroup.Kind.Name(group.kind)
        if kind == "KIND_GPU" and len(group.gpus) != 1:
            fail(f"{step.model_name} is on GPU but not pinned to one")
        if kind not in ("KIND_GPU", "KIND_CPU"):
            fail(f"{step.model_name} has instance kind {kind}")
        declared_in = {t.name for t in stage.input}
        declared_out = {t.name for t in stage.output}
        if set(step.input_map.keys()) != declared_in or set(step.output_map.keys()) != declared_out:
            fail(f"step {step.model_name} does not map exactly its model's inputs and outputs")
        for tensor in step.input_map.values():
            if tensor not in available:
                fail(f"step {step.model_name} reads {tensor}, which no ensemble input or earlier step gives")
        available.update(step.output_map.values())
        model = os.path.join(repository, step.model_name, "1", "model.onnx")
        if not os.path.isfile(model):
            fail(f"{model} is missing")
        steps.append({"model": model, "gpus": list(group.gpus), "kind": kind,
                      "input_map": dict(step.input_map), "output_map": dict(step.output_map)})
    for t in ensemble.output:
        if t.name not in available:
            fail(f"ensemble output {t.name} comes from no step")
    if batch > 0:
        for config in configs.values():
            for t in list(config.input) + list(config.output):
                if len(t.dims) == 0:
                    fail(f"{config.name}: {t.name} has no dims")
    json.dump({"max_batch_size": batch, "steps": steps}, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
