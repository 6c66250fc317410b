#include "tools/picture_outputs.h"

#include <cstdio>
#include <iostream>

#include "api/picture/graphviz.h"
#include "api/picture/placement_graph.h"
#include "api/picture/timeline.h"
#include "onnx_io/output_files.h"
#include "tools/interrupt.h"

namespace placer::cli {

namespace {

constexpr int kTimelineMicroBatches = 4;
constexpr double kGraphvizTimeout = 120;

std::filesystem::path dotBeside(const std::filesystem::path& svg) {
  std::filesystem::path dot = svg;
  return dot.extension() == ".dot" ? std::filesystem::path(svg.string() + ".dot")
                                   : dot.replace_extension(".dot");
}

bool samePath(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec;
  std::filesystem::path x = std::filesystem::weakly_canonical(a, ec);
  if (ec) x = std::filesystem::absolute(a).lexically_normal();
  std::filesystem::path y = std::filesystem::weakly_canonical(b, ec);
  if (ec) y = std::filesystem::absolute(b).lexically_normal();
  return x == y;
}

// The picture of `placement` on `problem`, titled "NAME on K accelerator(s) [and C CPU core(s)]".
picture::PlacementView viewOf(const std::string& name, const Problem& problem, const Placement& placement) {
  picture::PlacementView view;
  const DeviceSet& devices = problem.devices;
  view.title = name + " on " + std::to_string(devices.accelerators) + " accelerator(s)" +
               (devices.cpus > 0 ? " and " + std::to_string(devices.cpus) + " CPU core(s)" : "");
  view.problem = &problem;
  view.device_of = placement.device_of;
  view.stage_of = placement.stage_of;
  view.eval = evaluateThroughput(problem, view.device_of);
  return view;
}

}  // namespace

picture::PlacementView placedView(const api::LoadedModel& model, const api::Placed& placed) {
  return viewOf(std::filesystem::path(model.graph.path).filename().string(), placed.problem,
                placed.solve.placement);
}

picture::PlacementView partitionedView(const std::filesystem::path& workload,
                                       const api::Partitioned& partitioned) {
  picture::PlacementView view =
      viewOf(workload.filename().string(), partitioned.problem, partitioned.solve.placement);
  view.seconds = false;
  return view;
}

std::vector<OptionSpec> pictureOptionSpecs() {
  return {{"svg", true}, {"dot", true}, {"timeline", true}};
}

std::optional<std::string> parsePictureOptions(const Args& args, Goal goal, PictureRequest& out) {
  for (auto [name, target] : {std::pair{"svg", &out.svg}, {"dot", &out.dot}, {"timeline", &out.timeline}}) {
    if (auto it = args.values.find(name); it != args.values.end()) {
      if (it->second.empty()) return "--" + std::string(name) + " needs a file name";
      *target = it->second;
    }
  }
  if (out.timeline && goal == Goal::Latency) {
    return "--timeline draws the pipelined schedule: it needs --objective throughput";
  }
  std::vector<PictureFile> files = plannedPictureFiles(out);
  if (auto it = args.values.find("output"); it != args.values.end() && !files.empty()) {
    files.insert(files.begin(), {"-o", it->second, {}});
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    for (std::size_t j = i + 1; j < files.size(); ++j) {
      if (samePath(files[i].path, files[j].path)) {
        return files[i].option + " and " + files[j].option + " name the same file (" +
               files[j].path.string() + "); give each output its own path";
      }
    }
  }
  return std::nullopt;
}

std::vector<PictureFile> plannedPictureFiles(const PictureRequest& request) {
  std::vector<PictureFile> files;
  if (request.svg) files.push_back({"--svg", *request.svg, {}});
  if (request.dot) files.push_back({"--dot", *request.dot, {}});
  if (request.timeline) files.push_back({"--timeline", *request.timeline, {}});
  return files;
}

Expected<std::vector<PictureFile>> drawPictures(const PictureRequest& request,
                                                const picture::PlacementView& view,
                                                const std::atomic<bool>* stop, bool quiet) {
  std::vector<PictureFile> files;
  if (request.svg || request.dot) {
    const std::string dot = picture::placementDot(view);
    if (request.dot) files.push_back({"--dot", *request.dot, dot});
    if (request.svg) {
      auto svg = picture::renderDotSvg(dot, kGraphvizTimeout, stop);
      if (svg) {
        files.push_back({"--svg", *request.svg, std::move(*svg)});
      } else if (svg.status().code() == StatusCode::Unsupported) {
        const std::filesystem::path beside = dotBeside(*request.svg);
        const bool already = request.dot && samePath(*request.dot, beside);
        if (!already) files.push_back({"--svg", beside, dot});
        if (!quiet) {
          say("warning: ", svg.status().message() + ": --svg " + request.svg->string() +
                               " not drawn; its DOT text is " +
                               (already ? "the --dot file " : "written to ") + beside.string() +
                               " (render it with dot -Tsvg)");
        }
      } else {
        return svg.status().withContext("--svg " + request.svg->string());
      }
    }
  }
  if (request.timeline)
    files.push_back({"--timeline", *request.timeline, picture::timelineSvg(view, kTimelineMicroBatches)});
  return files;
}

Status emitWithPictures(const Args& args, const std::string& text,
                        const std::vector<std::filesystem::path>& inputs,
                        const std::vector<PictureFile>& pictures) {
  if (pictures.empty()) return emit(args, text, inputs);
  OutputTransaction outputs(inputs, &interruptFlag());
  const auto output = args.values.find("output");
  if (output != args.values.end()) {
    if (Status s = outputs.stageFile(output->second, text); !s) return s;
  }
  for (const PictureFile& picture : pictures) {
    if (output != args.values.end() && samePath(output->second, picture.path)) {
      return unsupported("-o and " + picture.option + " name the same file (" + picture.path.string() +
                         "); give each output its own path");
    }
    if (Status s = outputs.stageFile(picture.path, picture.bytes); !s) return s.withContext(picture.option);
  }
  if (Status s = outputs.commit(); !s) return s;
  if (output == args.values.end()) {
    std::cout << text;
    std::cout.flush();
  }
  return Status::ok();
}

}  // namespace placer::cli
