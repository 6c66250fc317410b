// onnx_placer::Options::fromJson: the C ABI's and the Python module's options object read into the
// public C++ API's Options. Every key is checked: an unknown one, or a value of the wrong type, is
// Code::BadOptions naming the key (what the command line's unknown flags are).
#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "onnx_placer/options.h"

namespace onnx_placer {

namespace {

using Json = nlohmann::json;

Status bad(const std::string& key, const std::string& what) {
  return Status(Code::BadOptions, "options: \"" + key + "\" " + what);
}

Status readString(const Json& v, const std::string& key, std::string& out) {
  if (!v.is_string()) return bad(key, "must be a string");
  out = v.get<std::string>();
  return Status::Ok();
}

Status readNumber(const Json& v, const std::string& key, double& out) {
  if (!v.is_number()) return bad(key, "must be a number");
  out = v.get<double>();
  if (!std::isfinite(out)) return bad(key, "must be a finite number");
  return Status::Ok();
}

template <typename Int>
Status readInteger(const Json& v, const std::string& key, Int& out) {
  if (!v.is_number_integer()) return bad(key, "must be an integer");
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<Int>::max())) return bad(key, "is too large");
    out = static_cast<Int>(u);
    return Status::Ok();
  }
  const auto i = v.get<std::int64_t>();
  if (i < static_cast<std::int64_t>(std::numeric_limits<Int>::min()) ||
      (i > 0 && static_cast<std::uint64_t>(i) > static_cast<std::uint64_t>(std::numeric_limits<Int>::max())))
    return bad(key, "is out of range");
  out = static_cast<Int>(i);
  return Status::Ok();
}

template <typename T, typename Read>
Status readOptional(const Json& v, const std::string& key, std::optional<T>& out, Read read) {
  T value{};
  if (Status s = read(v, key, value); !s) return s;
  out = value;
  return Status::Ok();
}

Status readStrings(const Json& v, const std::string& key, std::vector<std::string>& out) {
  if (v.is_string()) {
    out.push_back(v.get<std::string>());
    return Status::Ok();
  }
  if (!v.is_array()) return bad(key, "must be a string or an array of strings");
  for (const Json& item : v) {
    if (!item.is_string()) return bad(key, "must be a string or an array of strings");
    out.push_back(item.get<std::string>());
  }
  return Status::Ok();
}

using Reader = std::function<Status(const Json&, const std::string&, Options&)>;

Reader stringKey(std::string Options::*field) {
  return [field](const Json& v, const std::string& key, Options& o) { return readString(v, key, o.*field); };
}

Reader stringsKey(std::vector<std::string> Options::*field) {
  return [field](const Json& v, const std::string& key, Options& o) { return readStrings(v, key, o.*field); };
}

template <typename T>
Reader optionalKey(std::optional<T> Options::*field, Status (*read)(const Json&, const std::string&, T&)) {
  return [field, read](const Json& v, const std::string& key, Options& o) {
    return readOptional(v, key, o.*field, read);
  };
}

// "devices": a name, a file, or the device set itself as an object.
Status readDevices(const Json& v, const std::string& key, Options& o) {
  if (v.is_object()) {
    o.devices_json = v.dump();
    return Status::Ok();
  }
  return readString(v, key, o.devices);
}

// "replicas": "auto" or a count, as a string or an integer.
Status readReplicas(const Json& v, const std::string& key, Options& o) {
  if (v.is_number_integer()) {
    o.replicas = std::to_string(v.get<long long>());
    return Status::Ok();
  }
  return readString(v, key, o.replicas);
}

Status readDims(const Json& v, const std::string& key, Options& o) {
  if (!v.is_object()) return bad(key, "must be an object of dimension names and integers");
  for (const auto& [name, value] : v.items()) {
    std::int64_t n = 0;
    if (Status s = readInteger(value, key + "." + name, n); !s) return s;
    o.dims[name] = n;
  }
  return Status::Ok();
}

// "time_limit": seconds, or null for the default.
Status readTimeLimit(const Json& v, const std::string& key, Options& o) {
  if (v.is_null()) return Status::Ok();
  return readOptional(v, key, o.time_limit, readNumber);
}

const std::map<std::string, Reader>& readers() {
  static const std::map<std::string, Reader> table = {
      // The machine.
      {"devices", readDevices},
      {"devices_json", stringKey(&Options::devices_json)},
      {"topology", stringKey(&Options::topology)},
      {"map", stringKey(&Options::map)},
      {"map_cost", stringKey(&Options::map_cost)},
      {"replicas", readReplicas},
      {"accelerators", optionalKey(&Options::accelerators, readInteger<int>)},
      {"cpus", optionalKey(&Options::cpus, readInteger<int>)},
      {"memory", optionalKey(&Options::memory, readNumber)},
      // The model and its costs.
      {"dims", readDims},
      {"phase", stringKey(&Options::phase)},
      {"shared_weights", stringKey(&Options::shared_weights)},
      {"cost_profiles", stringsKey(&Options::cost_profiles)},
      {"cost_plugin", stringKey(&Options::cost_plugin)},
      {"model_name", stringKey(&Options::model_name)},
      // The solver.
      {"objective", stringKey(&Options::objective)},
      {"algorithm", stringKey(&Options::algorithm)},
      {"time_limit", readTimeLimit},
      {"max_ideals", optionalKey(&Options::max_ideals, readInteger<std::int64_t>)},
      {"mip_gap", optionalKey(&Options::mip_gap, readNumber)},
      {"mip_solver", stringKey(&Options::mip_solver)},
      {"subgraphs_per_accelerator", optionalKey(&Options::subgraphs_per_accelerator, readInteger<int>)},
      {"orders", stringKey(&Options::orders)},
      {"seed", optionalKey(&Options::seed, readInteger<std::uint64_t>)},
      {"target_ratio", optionalKey(&Options::target_ratio, readNumber)},
      {"cluster_target", optionalKey(&Options::cluster_target, readInteger<int>)},
      {"alpha", optionalKey(&Options::alpha, readNumber)},
      {"threads", optionalKey(&Options::threads, readInteger<int>)},
      // The passes and what is written.
      {"pipeline", stringKey(&Options::pipeline)},
      {"pass_plugins", stringsKey(&Options::pass_plugins)},
      {"annotate", stringKey(&Options::annotate)},
  };
  return table;
}

}  // namespace

Expected<Options> Options::fromJson(std::string_view json) {
  Options options;
  if (json.find_first_not_of(" \t\r\n") == std::string_view::npos) return options;
  Json parsed = Json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return Status(Code::BadOptions, "options: not valid JSON");
  if (!parsed.is_object()) return Status(Code::BadOptions, "options: must be a JSON object");
  for (const auto& [key, value] : parsed.items()) {
    auto reader = readers().find(key);
    if (reader == readers().end()) {
      std::string known;
      for (const auto& [name, r] : readers())
        known += (known.empty() ? "" : ", ") + name;
      return Status(Code::BadOptions, "options: unknown key \"" + key + "\" (known keys: " + known + ")");
    }
    if (Status s = reader->second(value, key, options); !s) return s;
  }
  return options;
}

}  // namespace onnx_placer
