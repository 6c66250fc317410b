"""onnx_placer: place an ONNX model's operators on a machine's accelerators and CPUs.

The Python face of onnx-placer's public API (the same solver, options and messages as the
``onnx-placer place`` command)::

    import onnx, onnx_placer
    result = onnx_placer.place(onnx.load("model.onnx"), accelerators=2, algorithm="dp")
    print(result.certificate["summary"], result.placement["MatMul_0"])
    for k, stage in enumerate(result.stages):
        onnx.save(stage, f"stage{k}.onnx")

``place`` takes a model in memory or a file and returns a :class:`Result`; ``place_path`` is for
models with external data or over protobuf's 2 GB, and writes its outputs to a directory. Failures
raise :class:`Error` subclasses carrying the command-line tool's exit code and message. The ``onnx``
package is imported only when a ``ModelProto`` is asked for, so placing bytes works without it.
"""

import json
import os

from . import _onnx_placer

__version__ = _onnx_placer.__version__
__all__ = ["place", "place_path", "Result", "Progress", "Error", "BadModelError", "BadOptionsError",
           "InfeasibleError", "SolverError", "__version__"]

Progress = _onnx_placer.Progress


class Error(Exception):
    """A placement that failed. ``code`` is the exit status ``onnx-placer`` gives the same failure
    (1 bad model, 2 bad options, 3 infeasible, 4 solver failure) and ``message`` its message."""

    code = 4

    def __init__(self, message, code=None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class BadModelError(Error):
    """The model (or a file it needs: devices, profiles) is unreadable or malformed (code 1)."""

    code = 1


class BadOptionsError(Error, ValueError):
    """An option is unknown, of the wrong type or out of range, or options contradict (code 2)."""

    code = 2


class InfeasibleError(Error):
    """No placement exists on these devices: the model does not fit, there is no CPU, ... (code 3)."""

    code = 3


class SolverError(Error):
    """The solver failed: an internal error, a time-out without a placement, too many ideals (code 4)."""

    code = 4


_ERRORS = {1: BadModelError, 2: BadOptionsError, 3: InfeasibleError, 4: SolverError}


def _call(function, *args):
    """Calls the extension, turning a failed status into its Error (code 130, a stop, into
    KeyboardInterrupt: it only happens when a signal handler or a progress callback stopped it)."""
    try:
        return function(*args)
    except _onnx_placer.StatusError as e:
        code, message = e.args
        if code == 130:
            raise KeyboardInterrupt(message) from None
        raise _ERRORS.get(code, Error)(message, code) from None


def _onnx():
    try:
        import onnx
    except ImportError as e:
        raise ImportError("onnx_placer: a ModelProto needs the onnx package (python3-onnx); "
                          "use the *_bytes attributes without it") from e
    return onnx


def _model_proto(data):
    model = _onnx().ModelProto()
    model.ParseFromString(data)
    return model


class Result:
    """A placement: the annotated model, the stage sub-models, the report, the plan and the
    certificate. Every output is built on first use and kept."""

    def __init__(self, native, files=None):
        self._native = native
        self._cache = {}
        #: For place_path: the files written ("model", "stages_dir", "report", "placement").
        self.files = files or {}

    def _cached(self, key, build):
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    @property
    def report(self):
        """The report ``onnx-placer place --report`` writes, as a dict."""
        return self._cached("report", lambda: json.loads(self._native.report_json()))

    @property
    def plan(self):
        """The plan written into the annotated model's metadata, as a dict."""
        return self._cached("plan", lambda: json.loads(self._native.placement_json()))

    @property
    def placement(self):
        """Node name → device ("gpu:0", ..., "cpu"), for every node of the model."""
        return self._cached("placement", lambda: {n: d for n, d, _ in _call(self._native.placement)})

    @property
    def stage_of(self):
        """Node name → pipeline stage."""
        return self._cached("stage_of", lambda: {n: s for n, _, s in _call(self._native.placement)})

    @property
    def certificate(self):
        """How close to optimal the placement is proven to be: a dict with status ("optimal",
        "feasible", "time-limit"), value, lower_bound, ratio (value / lower_bound), bound_method,
        bound_space ("contiguous" or "any") and summary (one line)."""
        return self._cached("certificate", lambda: _call(self._native.certificate))

    @property
    def annotated_bytes(self):
        """The annotated model, serialized (what ``place -o`` writes)."""
        return self._cached("annotated_bytes", lambda: _call(self._native.annotated_model))

    @property
    def annotated(self):
        """The annotated model as an ``onnx.ModelProto``."""
        return _model_proto(self.annotated_bytes)

    @property
    def stage_bytes(self):
        """The stage sub-models, serialized, in pipeline order (``--stages-dir``'s stage<k>.onnx)."""
        return self._cached("stage_bytes", lambda: [_call(self._native.stage_model, k)
                                                    for k in range(self._native.stage_count())])

    @property
    def stages(self):
        """The stage sub-models as ``onnx.ModelProto``s, in pipeline order."""
        return [_model_proto(data) for data in self.stage_bytes]

    @property
    def manifest(self):
        """The stage manifest (``--stages-dir``'s pipeline.json), as a dict."""
        return self._cached("manifest", lambda: json.loads(_call(self._native.stage_manifest_json)))

    def __repr__(self):
        return "<onnx_placer.Result: {} stages, {}>".format(self._native.stage_count(),
                                                           self.certificate["summary"])


def _json_default(value):
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError("a value of type {}".format(type(value).__name__))


def _options_json(devices, options):
    """The JSON object Options::fromJson reads: the key names and checks are the C++ API's, so an
    unknown key or a wrong type fails with the same message as through the C ABI."""
    options = {key: value for key, value in options.items() if value is not None}  # None: the default
    if devices is not None:
        options["devices"] = os.fspath(devices) if isinstance(devices, os.PathLike) else devices
    for key, value in options.items():
        try:
            json.dumps(value, default=_json_default)
        except (TypeError, ValueError) as e:
            raise BadOptionsError('options: "{}" cannot be given {} ({})'.format(key, type(value).__name__, e),
                                  2) from None
    return json.dumps(options, default=_json_default)


def place(model, devices=None, *, progress=None, **options):
    """Places ``model``'s operators on devices and returns a :class:`Result`.

    ``model`` is an ``onnx.ModelProto``, the bytes of a model (``bytes``, ``bytearray``,
    ``memoryview``) or the path of a model file (``str`` or ``os.PathLike``; a model with external
    data or over 2 GB needs :func:`place_path`). ``devices`` is a bundled preset's name, a device
    specification file, or a specification as a dict; None is the default preset.

    ``options`` are ``place``'s options under the C ABI's names: accelerators, cpus, memory (bytes
    per accelerator), topology (a preset or file of the topology form, instead of ``devices``: the
    stages are mapped onto its physical devices), map ("optimal" or "consecutive"), map_cost
    ("auto", "p2p", "allreduce"), replicas (replicas per accelerator stage: an int or "auto"), dims
    (dict of symbolic dimension values), phase ("prompt" or "token", for a decoder with a KV cache),
    shared_weights, cost_profiles (list
    of paths), cost_plugin, model_name (for the report and messages when the model is not a file),
    objective ("throughput" or "latency"), algorithm ("auto", "dp", "dpl", "cluster-dp",
    "slicegraph", "ip", "ip-noncontig", "greedy"), time_limit (seconds; 8 for auto), max_ideals,
    mip_gap, mip_solver, subgraphs_per_accelerator, target_ratio (auto stops once its split is
    proven within it), cluster_target and alpha (cluster-dp's clusters), orders, seed, threads,
    pipeline and annotate ("ort", "metadata",
    "onnx-ir11"); an option given as None keeps its default. ``progress``, if given, is called now and then with a :class:`Progress`.

    The solve runs without the GIL; Ctrl-C stops it and raises KeyboardInterrupt. Raises
    :class:`BadModelError`, :class:`BadOptionsError`, :class:`InfeasibleError` or
    :class:`SolverError` with the message ``onnx-placer`` prints; TypeError for a ``model`` of
    another type.
    """
    options_json = _options_json(devices, options)
    if isinstance(model, (str, os.PathLike)):
        return Result(_call(_onnx_placer.place_file, os.fspath(model), options_json, progress))
    if isinstance(model, (bytes, bytearray, memoryview)):
        return Result(_call(_onnx_placer.place_bytes, model, options_json, progress))
    if hasattr(model, "SerializeToString") and type(model).__name__ == "ModelProto":
        return Result(_call(_onnx_placer.place_bytes, model.SerializeToString(), options_json, progress))
    raise TypeError("onnx_placer.place: model must be an onnx.ModelProto, bytes or a path, not {}"
                    .format(type(model).__name__))


def place_path(model_path, out_dir, devices=None, *, force=False, stage_data="reference", progress=None,
               **options):
    """Places the model file ``model_path`` and writes the outputs into ``out_dir``, all or none:

    - ``<stem>.placed.onnx``: the annotated model (``model.onnx`` gives ``model.placed.onnx``);
    - ``stages/``: ``stage<k>.onnx`` per pipeline stage and ``pipeline.json``;
    - ``report.json``: the report; ``placement.json``: the plan.

    For models with external data or over protobuf's 2 GB: the model's data files are never
    written; with ``stage_data="reference"`` each is hard-linked beside the annotated model and into
    ``stages/`` (no bytes copied; ``out_dir`` must be on the data's file system), with ``"copy"`` the
    annotated model gets ``<stem>.placed.onnx.data`` and each stage ``stage<k>.onnx.data`` holding
    only its weights. ``out_dir`` is created if needed; ``force`` replaces a ``stages/`` that holds
    other files. The input is never written over. ``devices``, ``progress``
    and ``options`` are :func:`place`'s. Returns a :class:`Result` whose ``files`` name the files
    written; its in-memory outputs (``annotated_bytes``, ``stage_bytes``, ...) are built again on
    first use, so for a model over 2 GB read the files instead.
    """
    options_json = _options_json(devices, options)
    model_path = os.fspath(model_path)
    out_dir = os.fspath(out_dir)
    stem = os.path.basename(model_path)
    if stem.endswith(".onnx"):
        stem = stem[:-len(".onnx")]
    files = {
        "model": os.path.join(out_dir, stem + ".placed.onnx"),
        "stages_dir": os.path.join(out_dir, "stages"),
        "report": os.path.join(out_dir, "report.json"),
        "placement": os.path.join(out_dir, "placement.json"),
    }
    created = not os.path.isdir(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    try:
        native = _call(_onnx_placer.place_to_files, model_path, files["model"], files["stages_dir"],
                       files["report"], files["placement"], bool(force), str(stage_data), options_json,
                       progress)
    except BaseException:
        if created:  # nothing is left behind: the outputs were written all or none
            try:
                os.rmdir(out_dir)
            except OSError:
                pass
        raise
    return Result(native, files)
