// _onnx_placer: the extension under the Python package onnx_placer (python/onnx_placer/__init__.py),
// a thin layer over the public C++ API of libonnx_placer.so. It places a model given as bytes (any
// contiguous buffer), as a file or into files, with the options as the JSON text Options::fromJson
// reads, and hands back the Result's outputs as bytes, str and plain Python values. The package turns
// those into ModelProtos and dicts, and a failure's StatusError(code, message) into its Error class.
//
// The solve runs on a worker thread with the GIL released, so other Python threads keep running; the
// calling thread waits for it and, every 50 ms, runs Python's signal handlers: a Ctrl-C (or any
// handler that raises) sets the stop flag the solve honours, and the exception is raised once the
// worker has stopped. A progress callback runs on the worker thread under the GIL; if it raises, the
// solve is stopped the same way and its exception is raised.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "onnx_placer/placer.h"

namespace py = pybind11;

namespace {

// A failed Status, raised in Python as _onnx_placer.StatusError(code, message).
struct StatusError {
  int code;
  std::string message;
};

[[noreturn]] void raise(const onnx_placer::Status& status) {
  throw StatusError{static_cast<int>(status.code()), status.message()};
}

onnx_placer::Options parseOptions(const std::string& json) {
  auto options = onnx_placer::Options::fromJson(json);
  if (!options) raise(options.status());
  return std::move(*options);
}

// A contiguous read-only view of a bytes-like object, released when done (under the GIL, as the
// buffer protocol requires; callers keep it outside the GIL-free section).
class ByteView {
 public:
  explicit ByteView(const py::object& object) {
    if (PyObject_GetBuffer(object.ptr(), &view_, PyBUF_SIMPLE) != 0) throw py::error_already_set();
  }
  ByteView(const ByteView&) = delete;
  ByteView& operator=(const ByteView&) = delete;
  ~ByteView() { PyBuffer_Release(&view_); }
  const void* data() const { return view_.buf; }
  std::size_t size() const { return static_cast<std::size_t>(view_.len); }

 private:
  Py_buffer view_{};
};

using Placed = onnx_placer::Expected<onnx_placer::Result>;

// Runs `solve(options)` on a worker thread without the GIL, as the file's opening comment explains.
// `progress` is None or a callable taking a Progress. Returns the Result, or raises.
onnx_placer::Result runSolve(onnx_placer::Options options, const py::object& progress,
                             const std::function<Placed(const onnx_placer::Options&)>& solve) {
  std::atomic<bool> stop{false};
  std::optional<py::error_already_set> raised;  // by the progress callback or a signal handler
  options.stop = &stop;
  if (!progress.is_none()) {
    options.progress = [&](const onnx_placer::Progress& p) {
      py::gil_scoped_acquire acquire;
      if (raised) return;
      try {
        progress(p);
      } catch (py::error_already_set& e) {
        raised.emplace(std::move(e));
        stop = true;
      }
    };
  }

  std::optional<Placed> placed;
  std::mutex mutex;
  std::condition_variable finished;
  {
    py::gil_scoped_release release;
    std::thread worker([&] {
      Placed out = onnx_placer::Status(onnx_placer::Code::Failure, "internal error: the solve did not run");
      try {
        out = solve(options);
      } catch (const std::exception& e) {
        out = onnx_placer::Status(onnx_placer::Code::Failure, std::string("internal error: ") + e.what());
      } catch (...) {
        out = onnx_placer::Status(onnx_placer::Code::Failure, "internal error: an unknown exception");
      }
      std::lock_guard lock(mutex);
      placed.emplace(std::move(out));
      finished.notify_one();
    });
    std::unique_lock lock(mutex);
    while (!finished.wait_for(lock, std::chrono::milliseconds(50), [&] { return placed.has_value(); })) {
      lock.unlock();
      {
        py::gil_scoped_acquire acquire;
        if (!raised && PyErr_CheckSignals() != 0) {
          raised.emplace();  // fetches the handler's exception (KeyboardInterrupt for Ctrl-C)
          stop = true;
        }
      }
      lock.lock();
    }
    lock.unlock();
    worker.join();
  }
  if (raised) throw std::move(*raised);
  if (!*placed) raise(placed->status());
  return std::move(placed->value());
}

// Bytes built on first use (they may take a while: the GIL is released meanwhile), copied into a
// Python bytes object.
py::bytes bytesOf(const std::function<onnx_placer::Expected<std::string_view>()>& build) {
  std::optional<onnx_placer::Expected<std::string_view>> bytes;
  {
    py::gil_scoped_release release;
    bytes.emplace(build());
  }
  if (!*bytes) raise(bytes->status());
  return py::bytes((*bytes)->data(), (*bytes)->size());
}

py::dict certificateOf(const onnx_placer::Result& result) {
  const onnx_placer::Certificate c = result.certificate();
  py::dict out;
  out["status"] = c.status;
  out["value"] = c.value;
  out["lower_bound"] = c.lower_bound;
  out["ratio"] = c.ratio;
  out["bound_method"] = c.bound_method;
  out["bound_space"] = c.bound_space;
  out["summary"] = c.summary;
  return out;
}

void bindResult(py::module_& m) {
  py::class_<onnx_placer::Result>(m, "Result", "A placement's outputs, as the C++ API's Result gives them.")
      .def("report_json", &onnx_placer::Result::reportJson, "The report `place --report` writes (JSON text).")
      .def("placement_json", &onnx_placer::Result::placementJson,
           "The plan written into the annotated model's metadata (JSON text).")
      .def(
          "placement",
          [](const onnx_placer::Result& r) {
            py::list out;
            for (const auto& n : r.placement()) out.append(py::make_tuple(n.node, n.device, n.stage));
            return out;
          },
          "Every node as a (node name, device, stage) tuple.")
      .def("certificate", &certificateOf, "The certificate's fields as a dict.")
      .def(
          "annotated_model",
          [](const onnx_placer::Result& r) { return bytesOf([&] { return r.annotatedModel(); }); },
          "The annotated model's bytes.")
      .def("stage_count", &onnx_placer::Result::stageCount, "The number of pipeline stages.")
      .def(
          "stage_model",
          [](const onnx_placer::Result& r, std::size_t i) { return bytesOf([&] { return r.stageModel(i); }); },
          py::arg("index"), "The bytes of stage `index`'s sub-model.")
      .def(
          "stage_manifest_json",
          [](const onnx_placer::Result& r) {
            const py::bytes text = bytesOf([&] { return r.stageManifestJson(); });
            return py::str(text.attr("decode")("utf-8"));
          },
          "The stage manifest, pipeline.json (JSON text).");
}

void bindPlace(py::module_& m) {
  m.def(
      "place_bytes",
      [](const py::object& model, const std::string& options_json, const py::object& progress) {
        onnx_placer::Options options = parseOptions(options_json);
        const ByteView view(model);
        return runSolve(std::move(options), progress, [&](const onnx_placer::Options& o) {
          return onnx_placer::place(view.data(), view.size(), o);
        });
      },
      py::arg("model"), py::arg("options_json"), py::arg("progress") = py::none(),
      "Places the model serialized in the bytes-like `model`.");
  m.def(
      "place_file",
      [](const std::string& path, const std::string& options_json, const py::object& progress) {
        return runSolve(parseOptions(options_json), progress,
                        [&](const onnx_placer::Options& o) { return onnx_placer::placeFile(path, o); });
      },
      py::arg("path"), py::arg("options_json"), py::arg("progress") = py::none(),
      "Places the model file at `path`.");
  m.def(
      "place_to_files",
      [](const std::string& path, const std::string& model_out, const std::string& stages_dir,
         const std::string& report, const std::string& placement, bool force, const std::string& stage_data,
         const std::string& options_json,
         const py::object& progress) {
        const onnx_placer::OutputFiles files{model_out, stages_dir, report, placement, force, stage_data};
        return runSolve(parseOptions(options_json), progress, [&](const onnx_placer::Options& o) {
          return onnx_placer::placeToFiles(path, files, o);
        });
      },
      py::arg("path"), py::arg("model_out"), py::arg("stages_dir"), py::arg("report"), py::arg("placement"),
      py::arg("force"), py::arg("stage_data"), py::arg("options_json"), py::arg("progress") = py::none(),
      "Places the model file at `path` and writes the outputs (an empty path is not written), all or none.");
}

}  // namespace

PYBIND11_MODULE(_onnx_placer, m) {
  m.doc() = "The extension under the onnx_placer package; use the package, not this module.";
  m.attr("__version__") = onnx_placer::version();
  m.attr("abi_version") = onnx_placer::abiVersion();

  static py::exception<StatusError> status_error(m, "StatusError");
  status_error.doc() = "A failed placement: args are (code, message), code being the CLI's exit status.";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      PyErr_SetObject(status_error.ptr(), py::make_tuple(e.code, e.message).ptr());
    }
  });

  py::class_<onnx_placer::Progress>(m, "Progress", "A long solve's progress, given to `progress` callbacks.")
      .def_readonly("phase", &onnx_placer::Progress::phase, "What is running: \"ideals\", \"dp\", ...")
      .def_readonly("done", &onnx_placer::Progress::done, "How much of it is done.")
      .def_readonly("total", &onnx_placer::Progress::total, "Out of how much (0: unknown).")
      .def_readonly("detail", &onnx_placer::Progress::detail, "A detail line.")
      .def("__repr__", [](const onnx_placer::Progress& p) {
        return "Progress(phase=" + py::repr(py::str(p.phase)).cast<std::string>() + ", done=" + std::to_string(p.done) +
               ", total=" + std::to_string(p.total) + ")";
      });
  bindResult(m);
  bindPlace(m);
}
