// Device specifications in the topology form (issue 30): the bundled topology presets parse, price
// a DGX-1 pair without a direct NVLink by hand, and look to the solvers exactly like the equivalent
// accelerators/link spec; the form writes back equal; --accelerators keeps the first devices with
// their links; malformed topologies are refused naming the field.
#include <gtest/gtest.h>

#include <string>

#include "api/model.h"
#include "cost_model/device_spec.h"

namespace placer::testing {
namespace topology_spec_test {

TEST(TopologySpec, Dgx1NvLinkPresetIsTheDgx1PresetOnItsNvLinks) {
  auto nvlink = devicePreset("dgx1-8xv100-nvlink");
  ASSERT_TRUE(nvlink) << nvlink.status().message();
  auto plain = devicePreset("dgx1-8xv100");
  ASSERT_TRUE(plain) << plain.status().message();
  // The solvers' view and the cost model's figures are the plain preset's.
  EXPECT_EQ(nvlink->accelerators, plain->accelerators);
  EXPECT_EQ(nvlink->cpus, plain->cpus);
  EXPECT_EQ(nvlink->link, plain->link);
  EXPECT_EQ(nvlink->deviceSet().accelerators, 8);
  ASSERT_TRUE(nvlink->topology.has_value());
  EXPECT_FALSE(plain->topology.has_value());
  const Topology& t = *nvlink->topology;
  EXPECT_EQ(t.kinds, std::vector<std::string>{"v100"});
  EXPECT_EQ(t.links.size(), 16u + 8u) << "16 NVLink pairs and 8 host links";
  // gpu0 and gpu5 share no NVLink: 50 GB/s over four double links (0-3-2-1-5 or 0-4-7-6-5), four
  // 1 us latencies; 100 MB takes 4 us + 2 ms.
  EXPECT_EQ(t.bandwidth(t.nodeOf("gpu0"), t.nodeOf("gpu5")), 5e10);
  EXPECT_DOUBLE_EQ(t.transferSeconds(t.nodeOf("gpu0"), t.nodeOf("gpu5"), 1e8), 4e-6 + 2e-3);
  // To the host: PCIe.
  EXPECT_DOUBLE_EQ(t.transferSeconds(t.nodeOf("gpu3"), t.hostNode(), 1.2e9), 1e-5 + 0.1);
}

TEST(TopologySpec, DgxH100ReachesEveryGpuThroughItsSwitch) {
  auto h100 = devicePreset("dgx-h100");
  ASSERT_TRUE(h100) << h100.status().message();
  ASSERT_TRUE(h100->topology.has_value());
  const Topology& t = *h100->topology;
  EXPECT_EQ(h100->deviceSet().accelerators, 8);
  EXPECT_EQ(h100->deviceSet().memory, 80.0 * (1ull << 30));
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) {
      if (a == b) continue;
      EXPECT_EQ(t.bandwidth(a, b), 4.5e11);
      EXPECT_EQ(t.hops(a, b), 2);
    }
  }
}

TEST(TopologySpec, WritesBackEqual) {
  for (const char* name : {"dgx1-8xv100-nvlink", "dgx-h100"}) {
    auto spec = devicePreset(name);
    ASSERT_TRUE(spec) << spec.status().message();
    const std::string text = deviceSpecToJson(*spec).dump(2);
    auto again = parseDeviceSpec(text, "written.json");
    ASSERT_TRUE(again) << again.status().message() << "\n" << text;
    EXPECT_EQ(*again, *spec) << name;
  }
}

TEST(TopologySpec, AcceleratorsOverrideKeepsTheFirstDevicesAndTheirLinks) {
  api::PlaceOptions options;
  options.devices = "dgx1-8xv100-nvlink";
  options.accelerators = 4;
  auto spec = api::resolveDevices(options, api::OptionNaming::Flag);
  ASSERT_TRUE(spec) << spec.status().message();
  EXPECT_EQ(spec->deviceSet().accelerators, 4);
  ASSERT_TRUE(spec->topology.has_value());
  EXPECT_EQ(spec->topology->devices.size(), 4u);
  // gpu0-gpu3 are all joined; gpu0-gpu1's widest path is now 0-3-2-1 within the four.
  EXPECT_EQ(spec->topology->bandwidth(0, 1), 5e10);
  options.accelerators = 9;
  auto too_many = api::resolveDevices(options, api::OptionNaming::Flag);
  ASSERT_FALSE(too_many);
  EXPECT_NE(too_many.status().message().find("--accelerators 9: the topology has 8 devices"), std::string::npos)
      << too_many.status().message();
}

std::string errorOf(const std::string& text) {
  auto spec = parseDeviceSpec(text, "t.json");
  return spec ? std::string() : spec.status().message();
}

TEST(TopologySpec, MalformedTopologiesAreRefusedNamingTheField) {
  const std::string kind = R"("kinds": {"a": {"memory": 1e9, "peak_flops": 1e12, "memory_bandwidth": 1e11}})";
  const std::string cpus = R"("cpus": {"count": 0})";
  const std::string host = R"("host": {"bandwidth": 1e10})";
  auto spec = [&](const std::string& devices, const std::string& rest) {
    return "{" + kind + ", \"devices\": " + devices + ", " + rest + ", " + cpus + "}";
  };
  const std::string two = R"([{"name": "g0", "kind": "a"}, {"name": "g1", "kind": "a"}])";
  EXPECT_EQ(errorOf(spec(two, host)), "");
  EXPECT_NE(errorOf(spec(R"([{"name": "g0", "kind": "b"}])", host)).find("devices[0].kind: \"b\" is not in kinds"),
            std::string::npos);
  EXPECT_NE(errorOf(spec(two, R"("links": [{"between": ["g0", "g9"], "bandwidth": 1e9}], )" + host))
                .find("links[0].between: no device or switch is named \"g9\""),
            std::string::npos);
  EXPECT_NE(errorOf(spec(two, R"("links": [{"between": ["g0", "g1"]}], )" + host)).find("links[0].bandwidth: missing field"),
            std::string::npos);
  EXPECT_NE(errorOf(spec(two, R"("links": [])")).find("host: missing section (required with devices)"), std::string::npos);
  EXPECT_NE(errorOf(spec(two, host + R"(, "link": {"bandwidth": 1})")).find("link: unknown field"), std::string::npos);
  EXPECT_NE(errorOf(spec(R"([{"name": "g0", "kind": "a"}, {"name": "g0", "kind": "a"}])", host))
                .find("two devices or switches are named \"g0\""),
            std::string::npos);
  // Devices of more kinds than the solvers tell apart.
  std::string kinds = R"({"kinds": {)", devices;
  for (int k = 0; k < 5; ++k) {
    const std::string name = "k" + std::to_string(k);
    kinds += (k ? ", " : "") + ("\"" + name + "\": {\"memory\": 1e9, \"peak_flops\": 1e12, \"memory_bandwidth\": 1e11}");
    devices += (k ? ", " : "") + ("{\"name\": \"g" + std::to_string(k) + "\", \"kind\": \"" + name + "\"}");
  }
  const std::string kinds5 = kinds + R"(}, "devices": [)" + devices + "], " + host + ", " + cpus + "}";
  EXPECT_NE(errorOf(kinds5).find("devices of 5 kinds: at most 4 kinds of accelerator"), std::string::npos)
      << errorOf(kinds5);
}

// Devices of two kinds make a mixed machine: the solvers see each used kind (in the order of
// "kinds") with its count and memory, the accelerators' figures are the first kind's, and the
// JSON form reads back equal.
TEST(TopologySpec, DevicesOfTwoKindsMakeAMixedMachine) {
  const std::string text =
      R"({"kinds": {"unused": {"memory": 9e9, "peak_flops": 9e12, "memory_bandwidth": 9e11},
                    "big": {"memory": 4e9, "peak_flops": 4e12, "memory_bandwidth": 4e11},
                    "small": {"memory": 1e9, "peak_flops": 1e12, "memory_bandwidth": 1e11}},
          "devices": [{"name": "s0", "kind": "small"}, {"name": "b0", "kind": "big"},
                      {"name": "s1", "kind": "small"}],
          "host": {"bandwidth": 1e10, "latency": 1e-5},
          "cpus": {"count": 1, "peak_flops": 1e10, "memory_bandwidth": 1e10}})";
  auto spec = parseDeviceSpec(text, "mixed.json");
  ASSERT_TRUE(spec) << spec.status().message();
  EXPECT_EQ(spec->usedKinds(), (std::vector<int>{1, 2}));
  EXPECT_EQ(spec->accelerators.peak_flops, 4e12);
  EXPECT_EQ(spec->accelerators.count, 3);
  EXPECT_EQ(spec->kindFigures(1).peak_flops, 1e12);
  EXPECT_EQ(spec->kindFigures(1).count, 2);
  EXPECT_EQ(spec->kindFigures(0).count, 1);
  EXPECT_EQ(spec->kindFigures(0).peak_flops, 4e12);
  const DeviceSet set = spec->deviceSet();
  ASSERT_TRUE(set.mixed());
  EXPECT_EQ(set.accelerators, 3);
  EXPECT_EQ(set.memory, 4e9);
  EXPECT_EQ(set.kinds, (std::vector<AcceleratorKind>{{"big", 1, 4e9}, {"small", 2, 1e9}}));
  EXPECT_EQ(set.kindOf(0), 0);
  EXPECT_EQ(set.kindOf(2), 1);
  EXPECT_EQ(set.memoryOf(1), 1e9);
  auto again = parseDeviceSpec(deviceSpecToJson(*spec).dump(), "again.json");
  ASSERT_TRUE(again) << again.status().message();
  EXPECT_EQ(again->deviceSet(), set);
  EXPECT_EQ(again->kinds, spec->kinds);
}

}  // namespace topology_spec_test
}  // namespace placer::testing
