// Tests for device specifications: the bundled presets (and their copies in cost_model/presets/),
// the solvers' view and transfer costs, the JSON round trip, and every validation error.
#include "cost_model/device_spec.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace placer::testing {
namespace device_spec_test {

namespace fs = std::filesystem;

fs::path presetDir() {
  return fs::path(ONNX_PLACER_TEST_DATA_DIR) / "../../cost_model/presets";
}

const char* kValid = R"({
  "name": "test rig",
  "accelerators": {"count": 4, "memory": 17179869184, "peak_flops": 1.4e13, "memory_bandwidth": 9.0e11},
  "cpus": {"count": 1, "peak_flops": 5.0e10, "memory_bandwidth": 2.0e10},
  "link": {"bandwidth": 1.2e10, "latency": 1.0e-5}
})";

TEST(DeviceSpec, ParsesTheDocumentedFormat) {
  auto spec = parseDeviceSpec(kValid, "d.json");
  ASSERT_TRUE(spec) << spec.status().message();
  EXPECT_EQ(spec->name, "test rig");
  EXPECT_EQ(spec->accelerators.count, 4);
  EXPECT_EQ(spec->accelerators.memory, 17179869184.0);
  EXPECT_EQ(spec->accelerators.peak_flops, 1.4e13);
  EXPECT_EQ(spec->accelerators.memory_bandwidth, 9.0e11);
  EXPECT_EQ(spec->cpus.count, 1);
  EXPECT_EQ(spec->cpus.peak_flops, 5.0e10);
  EXPECT_EQ(spec->cpus.memory_bandwidth, 2.0e10);
  EXPECT_EQ(spec->link.bandwidth, 1.2e10);
  EXPECT_EQ(spec->link.latency, 1.0e-5);
}

TEST(DeviceSpec, DefaultsNameLatencyAndFieldsOfAbsentDevices) {
  auto spec = parseDeviceSpec(R"({"comment": "no accelerators here",
                                  "accelerators": {"count": 0},
                                  "cpus": {"count": 2.0, "peak_flops": 1e10, "memory_bandwidth": 1e10}})",
                              "some/dir/cpus.json");
  ASSERT_TRUE(spec) << spec.status().message();
  EXPECT_EQ(spec->name, "cpus.json");
  EXPECT_EQ(spec->accelerators, AcceleratorSpec{});
  EXPECT_EQ(spec->cpus.count, 2);
  EXPECT_EQ(spec->link, LinkSpec{});

  auto no_latency = parseDeviceSpec(R"({"accelerators": {"count": 1, "memory": 1, "peak_flops": 1,
                                                         "memory_bandwidth": 1},
                                        "cpus": {"count": 0}, "link": {"bandwidth": 2}})",
                                    "l.json");
  ASSERT_TRUE(no_latency) << no_latency.status().message();
  EXPECT_EQ(no_latency->link.latency, 0);
  EXPECT_EQ(no_latency->cpus, CpuSpec{});
}

TEST(DeviceSpec, DeviceSetIsTheSolversView) {
  auto spec = parseDeviceSpec(kValid, "d.json");
  ASSERT_TRUE(spec) << spec.status().message();
  DeviceSet devices = spec->deviceSet();
  EXPECT_EQ(devices.accelerators, 4);
  EXPECT_EQ(devices.memory, 17179869184.0);
  EXPECT_EQ(devices.cpus, 1);
  EXPECT_EQ(devices.count(), 5);
}

TEST(DeviceSpec, TransferSecondsIsLatencyPlusBytesOverBandwidth) {
  DeviceSpec spec;
  spec.accelerators.count = 1;
  spec.link = {.bandwidth = 1.0e10, .latency = 2.0e-5};
  EXPECT_DOUBLE_EQ(spec.transferSeconds(0), 2.0e-5);
  EXPECT_DOUBLE_EQ(spec.transferSeconds(1.0e10), 1.0 + 2.0e-5);
  EXPECT_DOUBLE_EQ(spec.transferSeconds(4.0e6), 4.0e-4 + 2.0e-5);
  spec.link.latency = 0;
  EXPECT_DOUBLE_EQ(spec.transferSeconds(5.0e9), 0.5);

  DeviceSpec no_link;  // no accelerators, so nothing can cross a link
  EXPECT_EQ(no_link.transferSeconds(0), 0);
  EXPECT_TRUE(std::isinf(no_link.transferSeconds(1)));
}

// The overheads (cost_model/README.md, "Overheads"): optional, 0 by default (the paper's model), and
// what a tensor at a stage boundary costs each kind of device.
TEST(DeviceSpec, OverheadsAreOptionalAndPriceBoundaries) {
  auto plain = parseDeviceSpec(kValid, "d.json");
  ASSERT_TRUE(plain) << plain.status().message();
  EXPECT_EQ(plain->accelerators.op_overhead, 0);
  EXPECT_EQ(plain->accelerators.boundary_overhead, 0);
  EXPECT_EQ(plain->cpus.op_overhead, 0);
  EXPECT_EQ(plain->cpus.boundary_overhead, 0);
  EXPECT_EQ(plain->cpus.boundary_bandwidth, 0);
  EXPECT_DOUBLE_EQ(plain->acceleratorBoundarySeconds(1.2e6), plain->transferSeconds(1.2e6));
  EXPECT_EQ(plain->cpuBoundarySeconds(1.2e6), 0) << "CPUs share host memory in the paper's model";

  auto spec = parseDeviceSpec(R"({
    "accelerators": {"count": 2, "memory": 1e9, "peak_flops": 1e12, "memory_bandwidth": 1e11,
                     "op_overhead": 5e-6, "boundary_overhead": 3e-5},
    "cpus": {"count": 2, "peak_flops": 1e10, "memory_bandwidth": 1e10,
             "op_overhead": 2e-6, "boundary_overhead": 2e-5, "boundary_bandwidth": 4e9},
    "link": {"bandwidth": 1e10, "latency": 1e-5}})",
                              "o.json");
  ASSERT_TRUE(spec) << spec.status().message();
  EXPECT_EQ(spec->accelerators.op_overhead, 5e-6);
  EXPECT_EQ(spec->cpus.op_overhead, 2e-6);
  EXPECT_DOUBLE_EQ(spec->acceleratorBoundarySeconds(1e6), 1e-5 + 1e6 / 1e10 + 3e-5);
  EXPECT_DOUBLE_EQ(spec->cpuBoundarySeconds(1e6), 2e-5 + 1e6 / 4e9);
  EXPECT_DOUBLE_EQ(spec->cpuBoundarySeconds(0), 2e-5);

  auto negative = parseDeviceSpec(R"({"accelerators": {"count": 0},
    "cpus": {"count": 1, "peak_flops": 1, "memory_bandwidth": 1, "op_overhead": -1e-6}})",
                                  "n.json");
  ASSERT_FALSE(negative);
  EXPECT_NE(negative.status().message().find("cpus.op_overhead must not be negative"), std::string::npos)
      << negative.status().message();
}

TEST(DeviceSpec, JsonRoundTrip) {
  std::vector<DeviceSpec> specs;
  for (const std::string& name : devicePresetNames()) {
    auto preset = devicePreset(name);
    ASSERT_TRUE(preset) << preset.status().message();
    specs.push_back(*preset);
  }
  DeviceSpec odd{.name = "", .accelerators = {3, 1.5e9, 1.0 / 3.0, 0.1}, .cpus = {0, 0, 0}, .link = {7, 0}, .topology = {}, .kinds = {}};
  specs.push_back(odd);
  DeviceSpec overheads = odd;
  overheads.accelerators.op_overhead = 4e-6;
  overheads.accelerators.boundary_overhead = 1.0 / 7.0;
  overheads.cpus = {2, 1e10, 2e10, 3e-6, 2e-5, 5e9};
  specs.push_back(overheads);
  DeviceSpec typed = overheads;
  typed.accelerators.peak_flops_by_type = {{ComputeType::FP16, 1.0 / 3.0}, {ComputeType::INT4, 7e15}};
  typed.cpus.peak_flops_by_type = {{ComputeType::INT8, 2.5e10}};
  specs.push_back(typed);
  for (const DeviceSpec& spec : specs) {
    std::string text = deviceSpecToJson(spec).dump(2);
    auto back = parseDeviceSpec(text, "round-trip.json");
    ASSERT_TRUE(back) << back.status().message() << "\n" << text;
    EXPECT_EQ(*back, spec) << text;
  }
  // Every field is written, in the documented order.
  auto json = deviceSpecToJson(specs.front());
  std::vector<std::string> keys;
  for (const auto& [key, value] : json.items())
    keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"name", "accelerators", "cpus", "link"}));
  EXPECT_EQ(json["accelerators"].size(), 6u);
  EXPECT_EQ(json["link"].size(), 2u);
  // peak_flops_by_type only when it has entries, right after peak_flops.
  auto with_types = deviceSpecToJson(typed);
  std::vector<std::string> cpu_keys;
  for (const auto& [key, value] : with_types["cpus"].items())
    cpu_keys.push_back(key);
  EXPECT_EQ(cpu_keys,
            (std::vector<std::string>{"count", "peak_flops", "peak_flops_by_type", "memory_bandwidth",
                                      "op_overhead", "boundary_overhead", "boundary_bandwidth"}));
  EXPECT_EQ(with_types["accelerators"]["peak_flops_by_type"].dump(),
            R"({"fp16":0.3333333333333333,"int4":7e+15})");
  EXPECT_FALSE(deviceSpecToJson(odd)["accelerators"].contains("peak_flops_by_type"));
}

// Per-format peak rates (cost_model/README.md, "Compute types"): optional, read into a map keyed by
// ComputeType; a format without an entry is absent (it runs at peak_flops).
TEST(DeviceSpec, PeakFlopsByTypeIsOptionalAndKeyedByFormat) {
  auto plain = parseDeviceSpec(kValid, "d.json");
  ASSERT_TRUE(plain) << plain.status().message();
  EXPECT_TRUE(plain->accelerators.peak_flops_by_type.empty());
  EXPECT_TRUE(plain->cpus.peak_flops_by_type.empty());

  auto spec = parseDeviceSpec(R"({
    "accelerators": {"count": 1, "memory": 1e9, "peak_flops": 1e13,
                     "peak_flops_by_type": {"tf32": 1e14, "fp16": 2e14, "bf16": 2e14, "fp8": 4e14, "int8": 4e14,
                                            "int4": 8e14},
                     "memory_bandwidth": 1e12},
    "cpus": {"count": 1, "peak_flops": 1e11, "peak_flops_by_type": {"int8": 4e11}, "memory_bandwidth": 1e10},
    "link": {"bandwidth": 1e10}})",
                              "t.json");
  ASSERT_TRUE(spec) << spec.status().message();
  const PeakFlopsByType want = {{ComputeType::TF32, 1e14}, {ComputeType::FP16, 2e14},
                                {ComputeType::BF16, 2e14}, {ComputeType::FP8, 4e14},
                                {ComputeType::INT8, 4e14}, {ComputeType::INT4, 8e14}};
  EXPECT_EQ(spec->accelerators.peak_flops_by_type, want);
  EXPECT_EQ(spec->cpus.peak_flops_by_type, (PeakFlopsByType{{ComputeType::INT8, 4e11}}));
}

TEST(DeviceSpecPresets, NamesAreSortedAndIncludeTheDefault) {
  std::vector<std::string> names = devicePresetNames();
  EXPECT_EQ(names,
            (std::vector<std::string>{"cpu-only-8", "dgx-h100", "dgx1-8xv100", "dgx1-8xv100-nvlink",
                                      "mixed-2xa100-2xv100", "pcie3-4x16gb", "pcie4-2xa100-40gb"}));
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  auto preset = devicePreset(kDefaultDevicePreset);
  ASSERT_TRUE(preset) << preset.status().message();
  EXPECT_EQ(preset->deviceSet().accelerators, 4);
  EXPECT_EQ(preset->deviceSet().memory, 16.0 * (1ull << 30));
  EXPECT_EQ(preset->deviceSet().cpus, 1);
}

TEST(DeviceSpecPresets, FiguresAreTheDatasheetOnes) {
  auto v100 = devicePreset("pcie3-4x16gb");
  ASSERT_TRUE(v100) << v100.status().message();
  EXPECT_EQ(v100->accelerators.peak_flops, 14e12);
  EXPECT_EQ(v100->accelerators.memory_bandwidth, 900e9);
  EXPECT_EQ(v100->link.bandwidth, 12e9);

  auto dgx1 = devicePreset("dgx1-8xv100");
  ASSERT_TRUE(dgx1) << dgx1.status().message();
  EXPECT_EQ(dgx1->deviceSet().accelerators, 8);
  EXPECT_EQ(dgx1->deviceSet().memory, 16.0 * (1ull << 30));
  EXPECT_EQ(dgx1->accelerators.peak_flops, 15.7e12);
  EXPECT_EQ(dgx1->deviceSet().cpus, 1);

  auto a100 = devicePreset("pcie4-2xa100-40gb");
  ASSERT_TRUE(a100) << a100.status().message();
  EXPECT_EQ(a100->deviceSet().accelerators, 2);
  EXPECT_EQ(a100->deviceSet().memory, 40.0 * (1ull << 30));
  EXPECT_EQ(a100->accelerators.peak_flops, 19.5e12);
  EXPECT_EQ(a100->accelerators.memory_bandwidth, 1555e9);
  EXPECT_EQ(a100->link.bandwidth, 25e9);

  // Per-format rates: tensor-core datasheet figures, dense (cost_model/presets/*.json cite them).
  EXPECT_EQ(v100->accelerators.peak_flops_by_type,
            (PeakFlopsByType{{ComputeType::FP16, 112e12}, {ComputeType::INT8, 56e12}}));
  EXPECT_EQ(dgx1->accelerators.peak_flops_by_type,
            (PeakFlopsByType{{ComputeType::FP16, 125e12}, {ComputeType::INT8, 62.8e12}}));
  EXPECT_EQ(a100->accelerators.peak_flops_by_type, (PeakFlopsByType{{ComputeType::TF32, 156e12},
                                                                    {ComputeType::FP16, 312e12},
                                                                    {ComputeType::BF16, 312e12},
                                                                    {ComputeType::INT8, 624e12},
                                                                    {ComputeType::INT4, 1248e12}}));

  // H100 SXM5 80 GB datasheet: 67 TFLOP/s FP32, 3.35 TB/s; dense tensor rates (sparse halved).
  auto h100 = devicePreset("dgx-h100");
  ASSERT_TRUE(h100) << h100.status().message();
  EXPECT_EQ(h100->deviceSet().accelerators, 8);
  EXPECT_EQ(h100->accelerators.peak_flops, 67e12);
  EXPECT_EQ(h100->accelerators.memory_bandwidth, 3.35e12);
  EXPECT_EQ(h100->accelerators.peak_flops_by_type.at(ComputeType::FP16), 989.5e12);
  EXPECT_EQ(h100->accelerators.peak_flops_by_type.at(ComputeType::FP8), 1979e12);

  auto cpu = devicePreset("cpu-only-8");
  ASSERT_TRUE(cpu) << cpu.status().message();
  EXPECT_EQ(cpu->deviceSet().accelerators, 0);
  EXPECT_EQ(cpu->deviceSet().cpus, 8);

  for (const std::string& name : devicePresetNames()) {
    auto spec = devicePreset(name);
    ASSERT_TRUE(spec) << spec.status().message();
    EXPECT_FALSE(spec->name.empty()) << name;
    EXPECT_GE(spec->cpus.peak_flops, 50e9) << name;  // ~50-130 GFLOP/s per core
    EXPECT_LE(spec->cpus.peak_flops, 130e9) << name;
    EXPECT_GE(spec->cpus.memory_bandwidth, 10e9) << name;
    EXPECT_LE(spec->cpus.memory_bandwidth, 20e9) << name;
    // int8 at the FP32 rate on the cores without VNNI, four times it on the DGX H100's Sapphire
    // Rapids core (AVX-512 VNNI); estimates, in each preset's comment.
    const double int8 = name == "dgx-h100" ? 4 * spec->cpus.peak_flops : spec->cpus.peak_flops;
    EXPECT_EQ(spec->cpus.peak_flops_by_type, (PeakFlopsByType{{ComputeType::INT8, int8}})) << name;
  }
}

TEST(DeviceSpecPresets, FilesMatchTheCompiledInPresets) {
  std::set<std::string> files;
  for (const auto& entry : fs::directory_iterator(presetDir()))
    files.insert(entry.path().filename().string());
  std::set<std::string> expected;
  for (const std::string& name : devicePresetNames())
    expected.insert(name + ".json");
  EXPECT_EQ(files, expected);

  for (const std::string& name : devicePresetNames()) {
    auto from_file = readDeviceSpec(presetDir() / (name + ".json"));
    ASSERT_TRUE(from_file) << from_file.status().message();
    auto compiled_in = devicePreset(name);
    ASSERT_TRUE(compiled_in) << compiled_in.status().message();
    EXPECT_EQ(*from_file, *compiled_in) << name;
  }
}

TEST(DeviceSpecPresets, UnknownPresetListsTheKnownOnes) {
  auto spec = devicePreset("dgx1-8xv10");
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.status().code(), StatusCode::InvalidInput);
  const std::string& message = spec.status().message();
  EXPECT_NE(message.find("\"dgx1-8xv10\""), std::string::npos) << message;
  EXPECT_NE(message.find("did you mean \"dgx1-8xv100\""), std::string::npos) << message;
  for (const std::string& name : devicePresetNames())
    EXPECT_NE(message.find(name), std::string::npos) << message;
}

TEST(DeviceSpecFiles, UnreadableFileNamesThePath) {
  fs::path missing = fs::temp_directory_path() / "device-spec-test-does-not-exist.json";
  auto spec = readDeviceSpec(missing);
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.status().code(), StatusCode::IoError);
  EXPECT_NE(spec.status().message().find(missing.string()), std::string::npos) << spec.status().message();

  auto directory = readDeviceSpec(presetDir());
  ASSERT_FALSE(directory);
  EXPECT_EQ(directory.status().code(), StatusCode::IoError);
  EXPECT_NE(directory.status().message().find("presets"), std::string::npos) << directory.status().message();
}

TEST(DeviceSpecFiles, ErrorsInAFileNameItsPath) {
  fs::path path = fs::temp_directory_path() / ("device-spec-test-" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out(path);
    out << R"({"accelerators": {"count": 1}, "cpus": {"count": 0}})";
  }
  auto spec = readDeviceSpec(path);
  fs::remove(path);
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.status().code(), StatusCode::InvalidInput);
  EXPECT_EQ(spec.status().message(), path.string() + ": accelerators.memory: missing field");
}

// One invalid document and the pieces its message must contain (always led by "d.json").
struct BadSpec {
  std::string label;
  std::string text;
  std::vector<std::string> expected;
};

void PrintTo(const BadSpec& bad, std::ostream* os) {
  *os << bad.label;
}

class DeviceSpecErrors : public ::testing::TestWithParam<BadSpec> {};

TEST_P(DeviceSpecErrors, AreInvalidInputNamingFileAndField) {
  const BadSpec& bad = GetParam();
  auto spec = parseDeviceSpec(bad.text, "d.json");
  ASSERT_FALSE(spec) << bad.label;
  EXPECT_EQ(spec.status().code(), StatusCode::InvalidInput);
  const std::string& message = spec.status().message();
  EXPECT_TRUE(message.starts_with("d.json")) << message;
  for (const std::string& piece : bad.expected)
    EXPECT_NE(message.find(piece), std::string::npos) << "'" << piece << "' not in: " << message;
}

// kValid with `from` replaced by `to` (which must occur exactly once).
std::string edited(const std::string& from, const std::string& to) {
  std::string text = kValid;
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

const std::string kAccelerators =
    R"("accelerators": {"count": 4, "memory": 17179869184, "peak_flops": 1.4e13, "memory_bandwidth": 9.0e11})";

std::vector<BadSpec> badSpecs() {
  return {
      {"MalformedJson",
       "{\n  \"name\": \"x\",\n  \"cpus\" 1}",
       {"d.json:3:10: malformed JSON", "expected ':'"}},
      {"Empty", "", {"d.json:1:1: malformed JSON"}},
      {"NumberOverflow", edited("1.4e13", "1e999"), {"d.json:3:69: malformed JSON", "1e999"}},
      {"NotAnObject", "[1, 2]", {"d.json: expected a JSON object", "got array"}},
      {"DuplicateField",
       edited(R"("count": 1,)", R"("count": 1, "count": 2,)"),
       {"d.json: cpus.count: duplicate field"}},
      {"UnknownTopLevelField",
       edited(R"("name")", R"("nmae")"),
       {"d.json: nmae: unknown field", "did you mean \"name\"", "comment"}},
      {"UnknownFieldTypo",
       edited(R"("memory")", R"("memroy")"),
       {"d.json: accelerators.memroy: unknown field", "did you mean \"memory\""}},
      {"UnknownLinkField",
       edited(R"("latency")", R"("jitter")"),
       {"d.json: link.jitter: unknown field", "bandwidth, latency"}},
      {"CommentNotString",
       edited(R"("name": "test rig",)", R"("comment": 3,)"),
       {"d.json: comment must be a string", "got number"}},
      {"NameNotString", edited(R"("test rig")", "null"), {"d.json: name must be a string", "got null"}},
      {"MissingAccelerators", edited(kAccelerators + ",", ""), {"d.json: accelerators: missing section"}},
      {"MissingCpus",
       edited(R"("cpus": {"count": 1, "peak_flops": 5.0e10, "memory_bandwidth": 2.0e10},)", ""),
       {"d.json: cpus: missing section"}},
      {"MissingLinkWithAccelerators",
       edited(R"(,
  "link": {"bandwidth": 1.2e10, "latency": 1.0e-5})",
              ""),
       {"d.json: link: missing section", "accelerators.count > 0"}},
      {"SectionNotObject",
       edited(kAccelerators, R"("accelerators": 4)"),
       {"d.json: accelerators must be an object", "got number"}},
      {"MissingCount", edited(R"("count": 4, )", ""), {"d.json: accelerators.count: missing field"}},
      {"MissingMemory",
       edited(R"("memory": 17179869184, )", ""),
       {"d.json: accelerators.memory: missing field"}},
      {"MissingCpuPeakFlops",
       edited(R"("peak_flops": 5.0e10, )", ""),
       {"d.json: cpus.peak_flops: missing field"}},
      {"MissingBandwidth", edited(R"("bandwidth": 1.2e10, )", ""), {"d.json: link.bandwidth: missing field"}},
      {"NonNumber",
       edited("9.0e11", R"("fast")"),
       {"d.json: accelerators.memory_bandwidth must be a number", "got string"}},
      {"NonNumberCount",
       edited(R"("count": 1)", R"("count": true)"),
       {"d.json: cpus.count must be a number", "got boolean"}},
      {"FractionalCount",
       edited(R"("count": 4)", R"("count": 2.5)"),
       {"d.json: accelerators.count must be an integer in 0..4096", "got 2.5"}},
      {"NegativeCount",
       edited(R"("count": 1)", R"("count": -1)"),
       {"d.json: cpus.count must be an integer in 0..4096", "got -1"}},
      {"HugeCount",
       edited(R"("count": 4)", R"("count": 4097)"),
       {"d.json: accelerators.count must be an integer in 0..4096", "got 4097"}},
      {"NegativeBandwidth", edited("1.2e10", "-3"), {"d.json: link.bandwidth must be positive", "(got -3)"}},
      {"ZeroMemory",
       edited("17179869184", "0"),
       {"d.json: accelerators.memory must be positive", "accelerators.count is 4", "(got 0)"}},
      {"ZeroAcceleratorFlops", edited("1.4e13", "0"), {"d.json: accelerators.peak_flops must be positive"}},
      {"ZeroCpuBandwidth",
       edited("2.0e10", "0.0"),
       {"d.json: cpus.memory_bandwidth must be positive", "cpus.count is 1"}},
      {"NegativeLatency", edited("1.0e-5", "-1e-6"), {"d.json: link.latency must not be negative", "-1e-06"}},
      {"NegativeFigureOfAbsentDevice",
       edited(R"("count": 1, "peak_flops": 5.0e10)", R"("count": 0, "peak_flops": -1)"),
       {"d.json: cpus.peak_flops must not be negative", "(got -1)"}},
      {"NoDevices", R"({"accelerators": {"count": 0}, "cpus": {"count": 0}})", {"d.json: no devices"}},
      {"TypedPeaksNotObject",
       edited(R"("peak_flops": 1.4e13, )", R"("peak_flops": 1.4e13, "peak_flops_by_type": [1], )"),
       {"d.json: accelerators.peak_flops_by_type must be an object", "got array"}},
      {"TypedPeakFp32",
       edited(R"("peak_flops": 1.4e13, )", R"("peak_flops": 1.4e13, "peak_flops_by_type": {"fp32": 1e13}, )"),
       {"d.json: accelerators.peak_flops_by_type.fp32: not allowed",
        "the float32 rate is accelerators.peak_flops"}},
      {"TypedPeakUnknownKey",
       edited(R"("peak_flops": 5.0e10, )", R"("peak_flops": 5.0e10, "peak_flops_by_type": {"fp61": 1e11}, )"),
       {"d.json: cpus.peak_flops_by_type.fp61: unknown field", "did you mean \"fp16\"",
        "known fields: tf32, fp16, bf16, fp8, int8, int4"}},
      {"TypedPeakZero",
       edited(R"("peak_flops": 1.4e13, )", R"("peak_flops": 1.4e13, "peak_flops_by_type": {"int8": 0}, )"),
       {"d.json: accelerators.peak_flops_by_type.int8 must be a finite number > 0", "(got 0)"}},
      {"TypedPeakNegative",
       edited(R"("peak_flops": 5.0e10, )",
              R"("peak_flops": 5.0e10, "peak_flops_by_type": {"int8": -2e11}, )"),
       {"d.json: cpus.peak_flops_by_type.int8 must be a finite number > 0", "(got -200000000000.0)"}},
      {"TypedPeakNotNumber",
       edited(R"("peak_flops": 1.4e13, )",
              R"("peak_flops": 1.4e13, "peak_flops_by_type": {"fp16": "fast"}, )"),
       {"d.json: accelerators.peak_flops_by_type.fp16 must be a number", "got string"}},
      {"TypedPeakDuplicate",
       edited(R"("peak_flops": 1.4e13, )",
              R"("peak_flops": 1.4e13, "peak_flops_by_type": {"fp16": 1e14, "fp16": 2e14}, )"),
       {"d.json: accelerators.peak_flops_by_type.fp16: duplicate field"}},
  };
}

INSTANTIATE_TEST_SUITE_P(All, DeviceSpecErrors, ::testing::ValuesIn(badSpecs()),
                         [](const ::testing::TestParamInfo<BadSpec>& info) { return info.param.label; });

}  // namespace device_spec_test
}  // namespace placer::testing
