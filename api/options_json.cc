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

const std::map<std::string, Reader>& readers() {
  static const std::map<std::string, Reader> table = [] {
    std::map<std::string, Reader> t;
    t["devices"] = [](const Json& v, const std::string& key, Options& o) {
      if (v.is_object()) {
        o.devices_json = v.dump();
        return Status::Ok();
      }
      return readString(v, key, o.devices);
    };
    t["devices_json"] = [](const Json& v, const std::string& key, Options& o) {
      return readString(v, key, o.devices_json);
    };
    t["topology"] = [](const Json& v, const std::string& key, Options& o) {
      return readString(v, key, o.topology);
    };
    t["map"] = [](const Json& v, const std::string& key, Options& o) { return readString(v, key, o.map); };
    t["map_cost"] = [](const Json& v, const std::string& key, Options& o) {
      return readString(v, key, o.map_cost);
    };
    t["replicas"] = [](const Json& v, const std::string& key, Options& o) {
      if (v.is_number_integer()) {
        o.replicas = std::to_string(v.get<long long>());
        return Status::Ok();
      }
      return readString(v, key, o.replicas);
    };
    t["accelerators"] = [](const Json& v, const std::string& key, Options& o) {
      return readOptional(v, key, o.accelerators, readInteger<int>);
    };
    t["cpus"] = [](const Json& v, const std::string& key, Options& o) {
      return readOptional(v, key, o.cpus, readInteger<int>);
    };
    t["memory"] = [](const Json& v, const std::string& key, Options& o) {
      return readOptional(v, key, o.memory, readNumber);
    };
    t["dims"] = [](const Json& v, const std::string& key, Options& o) {
      if (!v.is_object()) return bad(key, "must be an object of dimension names and integers");
      for (const auto& [name, value] : v.items()) {
        std::int64_t n = 0;
        if (Status s = readInteger(value, key + "." + name, n); !s) return s;
        o.dims[name] = n;
      }
      return Status::Ok();
    };
    t["phase"] = [](const Json& v, const std::string& key, Options& o) {
      return readString(v, key, o.phase);
    };
    t["shared_weights"] = [](const Json& v, const std::string& key, Options& o) {
      return readString(v, key, o.shared_weights);
    };
    t["cost_profiles"] = [](const Json& v, const std::string& key, Options& o) {
      return readStrings(v, key, o.cost_profiles);
    };
    t["cost_plugin"] = [](const Json& v, const std::string& key, Options& o) {
      return readString(v, key, o.cost_plugin);
    };
    t["model_name"] = [](const Json& v, const std::string& key, Options& o) {
      return readString(v, key, o.model_name);
    };
    t["objective"] = [](const Json& v, const std::string& key, Options& o) {
      return readString(v, key, o.objective);
    };
    t["algorithm"] = [](const Json& v, const std::string& key, Options& o) {
      return readString(v, key, o.algorithm);
    };
    t["time_limit"] = [](const Json& v, const std::string& key, Options& o) {
      if (v.is_null()) return Status::Ok();
      return readOptional(v, key, o.time_limit, readNumber);
    };
    t["max_ideals"] = [](const Json& v, const std::string& key, Options& o) {
      return readOptional(v, key, o.max_ideals, readInteger<std::int64_t>);
    };
    t["mip_gap"] = [](const Json& v, const std::string& key, Options& o) {
      return readOptional(v, key, o.mip_gap, readNumber);
    };
    t["mip_solver"] = [](const Json& v, const std::string& key, Options& o) {
      return readString(v, key, o.mip_solver);
    };
    t["subgraphs_per_accelerator"] = [](const Json& v, const std::string& key, Options& o) {
      return readOptional(v, key, o.subgraphs_per_accelerator, readInteger<int>);
    };
    t["orders"] = [](const Json& v, const std::string& key, Options& o) {
      return readString(v, key, o.orders);
    };
    t["seed"] = [](const Json& v, const std::string& key, Options& o) {
      return readOptional(v, key, o.seed, readInteger<std::uint64_t>);
    };
    t["target_ratio"] = [](const Json& v, const std::string& key, Options& o) {
      return readOptional(v, key, o.target_ratio, readNumber);
    };
    t["cluster_target"] = [](const Json& v, const std::string& key, Options& o) {
      return readOptional(v, key, o.cluster_target, readInteger<int>);
    };
    t["alpha"] = [](const Json& v, const std::string& key, Options& o) {
      return readOptional(v, key, o.alpha, readNumber);
    };
    t["threads"] = [](const Json& v, const std::string& key, Options& o) {
      return readOptional(v, key, o.threads, readInteger<int>);
    };
    t["pipeline"] = [](const Json& v, const std::string& key, Options& o) {
      return readString(v, key, o.pipeline);
    };
    t["pass_plugins"] = [](const Json& v, const std::string& key, Options& o) {
      return readStrings(v, key, o.pass_plugins);
    };
    t["annotate"] = [](const Json& v, const std::string& key, Options& o) {
      return readString(v, key, o.annotate);
    };
    return t;
  }();
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
