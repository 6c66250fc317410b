"""The Python module onnx_placer against the command-line tool: a model given as a ModelProto, as
bytes or as a path gives the same placement; the same model and options give the CLI's placement,
report values, annotated model and stage sub-models; onnx.checker accepts the ModelProtos it returns;
every error path raises its Error subclass with the CLI's message, without crashing; place_path
writes its files; Ctrl-C and a raising progress callback stop a solve.

Run by ctest (test PythonModule) with Debian's python3 and python3-onnx, as
``python3 -m unittest -v test_onnx_placer`` with PYTHONPATH=<build>/python, ONNX_PLACER_CLI the
onnx-placer executable and ONNX_PLACER_TEST_DATA_DIR tests/data.
"""

import json
import os
import pathlib
import signal
import subprocess
import tempfile
import threading
import time
import unittest

import onnx
import onnx.checker

import onnx_placer

CLI = os.environ.get("ONNX_PLACER_CLI", "onnx-placer")
DATA = pathlib.Path(os.environ.get("ONNX_PLACER_TEST_DATA_DIR", pathlib.Path(__file__).parents[1] / "data"))
MODELS = DATA / "models"


def stable(report):
    """The report without what differs from run to run: how long the solve took, and the bound over
    every placement, which a time-limited packing program helps prove (a slower run proves less; it
    must still be a bound)."""
    report = json.loads(json.dumps(report))
    assert report["anyLowerBound"] <= report["upperBound"]
    report["solver"].pop("solver_seconds", None)
    report["solver"].pop("total_seconds", None)
    report.pop("anyLowerBound", None)
    report.pop("anyBoundMethod", None)
    return report


def check(model):
    """onnx.checker on a ModelProto as the C++ tests run it (tests/onnx_io/annotated_model_test.cc):
    ONNX 1.12's checker stops at IR 8, and the IR 10 fields it does not know are left alone."""
    if model.ir_version > 8:
        copy = onnx.ModelProto()
        copy.CopyFrom(model)
        copy.ir_version = 8
        model = copy
    onnx.checker.check_model(model, full_check=True)


class WorkDir(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="onnx_placer_py_")
        self.work = pathlib.Path(self._tmp.name)

    def tearDown(self):
        self._tmp.cleanup()


class Place(WorkDir):
    def test_version(self):
        self.assertEqual(onnx_placer.__version__, "0.2.0")
        out = subprocess.run([CLI, "--version"], capture_output=True, text=True, check=True).stdout
        self.assertEqual(out, "onnx-placer {}\n".format(onnx_placer.__version__))

    def test_model_proto_bytes_and_path_agree(self):
        path = MODELS / "light_squeezenet.onnx"
        options = dict(accelerators=2, algorithm="dp", model_name=path.name)
        from_path = onnx_placer.place(path, **options)
        from_str = onnx_placer.place(str(path), **options)
        from_bytes = onnx_placer.place(path.read_bytes(), **options)
        from_bytearray = onnx_placer.place(bytearray(path.read_bytes()), **options)
        from_proto = onnx_placer.place(onnx.load(str(path)), **options)
        self.assertTrue(from_path.placement)
        for other in (from_str, from_bytes, from_bytearray, from_proto):
            self.assertEqual(other.placement, from_path.placement)
            self.assertEqual(other.plan, from_path.plan)
            self.assertEqual(stable(other.report), stable(from_path.report))
        self.assertEqual(from_bytes.annotated_bytes, from_path.annotated_bytes)
        self.assertEqual(from_bytes.stage_bytes, from_path.stage_bytes)
        certificate = from_path.certificate
        self.assertEqual(certificate["status"], "optimal")
        self.assertEqual(certificate["ratio"], 1.0)
        self.assertEqual(certificate["bound_method"], "dp")
        self.assertTrue(certificate["summary"].startswith("optimal among contiguous splits"))
        self.assertEqual(set(from_path.stage_of), set(from_path.placement))
        self.assertIn("stages", repr(from_path))

    def test_same_as_the_cli(self):
        name = "bert_base_l3_light.onnx"
        stages_dir = self.work / "stages"
        cli = subprocess.run([CLI, "place", str(MODELS / name), "--accelerators", "2", "--algorithm", "dp", "-q",
                              "--report", str(self.work / "report.json"), "-o", str(self.work / "annotated.onnx"),
                              "--stages-dir", str(stages_dir)], capture_output=True, text=True)
        self.assertEqual(cli.returncode, 0, cli.stderr)
        result = onnx_placer.place((MODELS / name).read_bytes(), accelerators=2, algorithm="dp", model_name=name)

        self.assertEqual(stable(result.report), stable(json.loads((self.work / "report.json").read_text())))
        self.assertEqual(result.annotated_bytes, (self.work / "annotated.onnx").read_bytes())
        self.assertEqual(len(result.stage_bytes), 3)
        for k, data in enumerate(result.stage_bytes):
            self.assertEqual(data, (stages_dir / "stage{}.onnx".format(k)).read_bytes(), "stage {}".format(k))
        self.assertEqual(result.manifest, json.loads((stages_dir / "pipeline.json").read_text()))
        # The placement is the plan the CLI wrote into its annotated model's metadata.
        annotated = onnx.load(str(self.work / "annotated.onnx"))
        plan = json.loads({p.key: p.value for p in annotated.metadata_props}["onnx_placer.plan"])
        self.assertEqual(result.plan, plan)
        self.assertEqual(len(result.placement), 164)
        self.assertEqual(result.placement, {node: entry["device"] for node, entry in plan["nodes"].items()})
        self.assertEqual(set(result.placement.values()), {"gpu:0", "gpu:1", "cpu"})

    def test_checker_accepts_the_model_protos(self):
        model = onnx.load(str(MODELS / "resnet50_light.onnx"))
        # annotate="metadata" keeps the input's IR version: the checker runs on the model as returned.
        result = onnx_placer.place(model, accelerators=3, algorithm="dp", annotate="metadata")
        self.assertIsInstance(result.annotated, onnx.ModelProto)
        self.assertEqual(result.annotated.ir_version, model.ir_version)
        onnx.checker.check_model(result.annotated, full_check=True)
        self.assertEqual(len(result.stages), len(result.manifest["stages"]))
        self.assertGreaterEqual(len(result.stages), 3)
        for stage in result.stages:
            self.assertIsInstance(stage, onnx.ModelProto)
            check(stage)
        # The default (ONNX Runtime's layer annotations) is IR 10, which ONNX 1.12's checker refuses
        # by its version alone; with the version lowered it accepts the rest.
        result = onnx_placer.place(model, accelerators=3, algorithm="dp")
        self.assertEqual(result.annotated.ir_version, 10)
        check(result.annotated)
        for stage in result.stages:
            check(stage)

    def test_devices_as_a_preset_a_file_or_a_dict(self):
        path = MODELS / "light_squeezenet.onnx"
        preset = onnx_placer.place(path, "pcie3-4x16gb", accelerators=2, algorithm="dp")
        default = onnx_placer.place(path, accelerators=2, algorithm="dp")
        self.assertEqual(preset.placement, default.placement)
        spec = preset.report.get("devices")
        self.assertIsNotNone(spec, "the report names its devices")
        none_is_default = onnx_placer.place(path, None, accelerators=2, algorithm="dp", time_limit=None)
        self.assertEqual(none_is_default.placement, default.placement)
        with self.assertRaises(onnx_placer.BadModelError) as e:
            onnx_placer.place(path, {"accelerators": {"count": 1}})
        self.assertEqual(e.exception.code, 1)

    def test_a_topology_maps_the_stages_onto_its_devices(self):
        path = MODELS / "resnet50_light.onnx"
        placed = onnx_placer.place(path, topology="dgx1-8xv100-nvlink", cpus=0, algorithm="dp")
        mapping = placed.report["mapping"]
        names = [stage["device_name"] for stage in placed.report["stages"]]
        self.assertEqual(mapping["mapping"], names)
        self.assertEqual(len(set(names)), len(names))
        self.assertLessEqual(mapping["maxStageTime"], mapping["consecutiveMaxStageTime"])
        consecutive = onnx_placer.place(path, topology="dgx1-8xv100-nvlink", cpus=0, algorithm="dp",
                                        map="consecutive")
        self.assertEqual([s["device"] for s in consecutive.report["stages"]],
                         ["gpu:{}".format(i) for i in range(len(names))])
        with self.assertRaises(onnx_placer.BadOptionsError):
            onnx_placer.place(path, topology="dgx1-8xv100-nvlink", map_cost="ring")

    def test_replicas_run_each_stage_on_several_devices(self):
        path = MODELS / "resnet50_light.onnx"
        placed = onnx_placer.place(path, topology="dgx1-8xv100-nvlink", cpus=0, replicas=2, algorithm="dp")
        self.assertEqual(placed.report["replicas"]["replicas"], 2)
        devices = [d for s in placed.report["stages"] for d in s["replica_device_names"]]
        self.assertEqual(len(devices), 2 * len(placed.report["stages"]))
        self.assertEqual(len(set(devices)), len(devices))
        searched = onnx_placer.place(path, topology="dgx1-8xv100-nvlink", cpus=0, replicas="auto")
        values = [c["value"] for c in searched.report["replicas"]["candidates"]]
        self.assertEqual(searched.report["max_load_seconds"], min(values))
        with self.assertRaises(onnx_placer.BadOptionsError):
            onnx_placer.place(path, replicas="two")

    def test_a_machine_of_two_kinds_keeps_each_stage_on_its_kind(self):
        path = MODELS / "resnet50_light.onnx"
        placed = onnx_placer.place(path, topology="mixed-2xa100-2xv100", cpus=0)
        kind_of = {"gpu0": "v100", "gpu1": "a100", "gpu2": "v100", "gpu3": "a100"}
        stages = placed.report["stages"]
        self.assertEqual({s["device_kind"] for s in stages}, {"a100", "v100"})
        for stage in stages:
            self.assertEqual(stage["device_kind"], kind_of[stage["device_name"]])
        # Proven optimal among contiguous splits with the kinds priced apart.
        self.assertEqual(placed.report["ratio"], 1.0)
        self.assertEqual(placed.report["boundMethod"], "dp")
        with self.assertRaises(onnx_placer.SolverError):
            onnx_placer.place(path, topology="mixed-2xa100-2xv100", algorithm="slicegraph")

    def test_progress_is_reported(self):
        events = []
        result = onnx_placer.place(MODELS / "bert_base_l3_light.onnx", algorithm="slicegraph", time_limit=2,
                                   progress=events.append)
        self.assertTrue(result.placement)
        self.assertTrue(events)
        self.assertIsInstance(events[0], onnx_placer.Progress)
        self.assertTrue(events[0].phase)


class Errors(WorkDir):
    def setUp(self):
        super().setUp()
        self.bytes = (MODELS / "light_squeezenet.onnx").read_bytes()

    def assertRaisesWith(self, error, code, text, *args, **kwargs):
        with self.assertRaises(error) as caught:
            onnx_placer.place(*args, **kwargs)
        self.assertIsInstance(caught.exception, onnx_placer.Error)
        self.assertEqual(caught.exception.code, code)
        self.assertIn(text, str(caught.exception))
        self.assertEqual(caught.exception.message, str(caught.exception))
        return caught.exception

    def test_every_error_raises_its_class_with_the_cli_message(self):
        self.assertRaisesWith(onnx_placer.BadModelError, 1, "not a valid ONNX model", self.bytes[:len(self.bytes) // 2])
        self.assertRaisesWith(onnx_placer.BadModelError, 1, "empty.onnx", b"", model_name="empty.onnx")
        self.assertRaisesWith(onnx_placer.BadModelError, 1, "no-such.onnx", str(self.work / "no-such.onnx"))
        self.assertRaisesWith(onnx_placer.BadOptionsError, 2, 'unknown key "acelerators"', self.bytes, acelerators=2)
        e = self.assertRaisesWith(onnx_placer.BadOptionsError, 2, "", self.bytes, accelerators="two")
        self.assertEqual(str(e), 'options: "accelerators" must be an integer')
        self.assertIsInstance(e, ValueError)
        self.assertRaisesWith(onnx_placer.BadOptionsError, 2, "unknown pass 'no-such-pass'", self.bytes,
                              pipeline="subdivide,no-such-pass,partition,expand")
        self.assertRaisesWith(onnx_placer.BadOptionsError, 2, '"algorithm" greedy is a latency solver', self.bytes,
                              algorithm="greedy")
        self.assertRaisesWith(onnx_placer.BadOptionsError, 2, '"seed"', self.bytes, seed=-1)
        self.assertRaisesWith(onnx_placer.BadOptionsError, 2, '"dims.seq" must be an integer', self.bytes,
                              dims={"seq": "x"})
        self.assertRaisesWith(onnx_placer.BadOptionsError, 2, '"threads" cannot be given object', self.bytes,
                              threads=object())
        self.assertRaisesWith(onnx_placer.BadModelError, 1, "neither a file nor a preset", self.bytes,
                              "no-such-preset")
        self.assertRaisesWith(onnx_placer.BadModelError, 1, "no input has a symbolic dimension named 'batch'",
                              self.bytes, dims={"batch": 2})
        self.assertRaisesWith(onnx_placer.InfeasibleError, 3, "there are no CPUs", self.bytes, cpus=0, memory=10)

    def test_a_model_of_another_type_is_a_type_error(self):
        for model in (42, None, 1.5, ["a.onnx"], onnx.GraphProto()):
            with self.assertRaises(TypeError) as e:
                onnx_placer.place(model)
            self.assertIn("must be an onnx.ModelProto, bytes or a path", str(e.exception))

    def test_a_non_contiguous_buffer_is_refused(self):
        with self.assertRaises(BufferError):
            onnx_placer.place(memoryview(self.bytes)[::2])

    def test_a_raising_progress_callback_stops_the_solve(self):
        def progress(_):
            raise RuntimeError("stop here")
        started = time.monotonic()
        with self.assertRaisesRegex(RuntimeError, "stop here"):
            onnx_placer.place(MODELS / "bert_base_l6_light.onnx", algorithm="slicegraph", time_limit=60,
                              progress=progress)
        self.assertLess(time.monotonic() - started, 30)

    def test_ctrl_c_stops_the_solve(self):
        # SliceGraph on BERT-12 runs for about 5 s on a 2-core machine; SIGINT comes after 0.5 s.
        timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        started = time.monotonic()
        try:
            with self.assertRaises(KeyboardInterrupt):
                onnx_placer.place(MODELS / "bert_base_l12_light.onnx", algorithm="slicegraph", time_limit=60)
        finally:
            timer.cancel()
        self.assertLess(time.monotonic() - started, 4)


class PlacePath(WorkDir):
    def test_writes_the_outputs_and_returns_them(self):
        out = self.work / "out" / "nested"
        result = onnx_placer.place_path(MODELS / "mobilenet_v2_light.onnx", out, accelerators=2, algorithm="dp")
        self.assertEqual(sorted(p.name for p in out.iterdir()),
                         ["mobilenet_v2_light.placed.onnx", "placement.json", "report.json", "stages"])
        self.assertEqual(result.files["model"], str(out / "mobilenet_v2_light.placed.onnx"))
        self.assertEqual((out / "mobilenet_v2_light.placed.onnx").read_bytes(), result.annotated_bytes)
        self.assertEqual(json.loads((out / "placement.json").read_text()), result.plan)
        self.assertEqual(json.loads((out / "report.json").read_text()), result.report)
        self.assertEqual(json.loads((out / "stages" / "pipeline.json").read_text()), result.manifest)
        for k, data in enumerate(result.stage_bytes):
            self.assertEqual((out / "stages" / "stage{}.onnx".format(k)).read_bytes(), data)
        # The same placement as place() on the file.
        self.assertEqual(onnx_placer.place(MODELS / "mobilenet_v2_light.onnx", accelerators=2,
                                           algorithm="dp").placement, result.placement)
        # Placed again into the same directory: the earlier outputs are replaced.
        again = onnx_placer.place_path(MODELS / "mobilenet_v2_light.onnx", out, accelerators=3, algorithm="dp")
        self.assertEqual(len(list((out / "stages").glob("stage*.onnx"))), len(again.stage_bytes))

    def test_a_failure_leaves_nothing_behind(self):
        out = self.work / "out"
        with self.assertRaises(onnx_placer.InfeasibleError):
            onnx_placer.place_path(MODELS / "light_squeezenet.onnx", out, cpus=0, memory=10)
        self.assertFalse(out.exists())
        with self.assertRaises(onnx_placer.BadModelError):
            onnx_placer.place_path(self.work / "missing.onnx", out)
        self.assertFalse(out.exists())
        # A stage directory holding other files is refused unless force=True.
        (out / "stages").mkdir(parents=True)
        (out / "stages" / "notes.txt").write_text("mine")
        with self.assertRaises(onnx_placer.Error):
            onnx_placer.place_path(MODELS / "light_squeezenet.onnx", out, accelerators=2)
        self.assertEqual([p.name for p in out.iterdir()], ["stages"])
        onnx_placer.place_path(MODELS / "light_squeezenet.onnx", out, accelerators=2, force=True)
        self.assertFalse((out / "stages" / "notes.txt").exists())

    def test_external_data_is_linked_or_copied(self):
        """A model saved with onnx's external data: with stage_data="reference" the outputs hard-link
        its data file, with "copy" they get their own; every written model passes the checker from
        its own directory, and the data file is never written."""
        import numpy as np
        from onnx import TensorProto, helper, numpy_helper
        weights = [numpy_helper.from_array(np.arange(64 * 64, dtype=np.float32).reshape(64, 64) / (1 + i), "w%d" % i)
                   for i in range(2)]
        graph = helper.make_graph(
            [helper.make_node("MatMul", ["x", "w0"], ["h"]), helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("MatMul", ["r", "w1"], ["y"])], "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])], weights)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        (self.work / "model").mkdir()
        path = self.work / "model" / "m.onnx"
        onnx.save_model(model, str(path), save_as_external_data=True, location="m.onnx.data", size_threshold=0)
        data = self.work / "model" / "m.onnx.data"
        before = data.read_bytes()
        options = dict(accelerators=2, cpus=0, memory=30000, annotate="metadata")
        for mode in ("reference", "copy"):
            out = self.work / mode
            result = onnx_placer.place_path(path, out, stage_data=mode, **options)
            self.assertEqual(len(result.stage_bytes), 2, "each 16 KB weight on its own accelerator")
            self.assertEqual(json.loads((out / "stages" / "pipeline.json").read_text())["stage_data"], mode)
            onnx.checker.check_model(str(out / "m.placed.onnx"))
            for k in range(2):
                onnx.checker.check_model(str(out / "stages" / "stage{}.onnx".format(k)))
            if mode == "reference":
                self.assertTrue(os.path.samefile(out / "m.onnx.data", data))
                self.assertTrue(os.path.samefile(out / "stages" / "m.onnx.data", data))
            else:
                self.assertEqual((out / "m.placed.onnx.data").read_bytes(), before)
                self.assertEqual(sorted(p.stat().st_size for p in (out / "stages").glob("*.data")), [16384, 16384])
        self.assertEqual(data.read_bytes(), before)
        with self.assertRaises(onnx_placer.Error) as raised:
            onnx_placer.place_path(path, self.work / "bad", stage_data="both", **options)
        self.assertIn("stage_data", str(raised.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2)
