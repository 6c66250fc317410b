// Calibration (cost_model/calibration.h, calibrate_spec.h): the fit recovers the rates that made
// synthetic measurements, classes and types are keyed and looked up as documented, calibrated rates
// survive the specification's JSON, and the roofline model uses them.
#include "cost_model/calibration.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "cost_model/cost_model.h"
#include "cost_model/device_spec.h"

namespace placer::testing {
namespace calibration_test {

// Times made by t = o + max(f / F, b / B) with a little multiplicative noise.
std::vector<CalibrationSample> synthetic(OpClass c, const EffectiveRate& truth, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> log_work(3, 9), noise(-0.02, 0.02);
  std::vector<CalibrationSample> out;
  for (int i = 0; i < n; ++i) {
    CalibrationSample s{c, ComputeType::FP32, std::pow(10.0, log_work(rng) + 1), std::pow(10.0, log_work(rng)), 0, ""};
    s.measured = (truth.overhead + std::max(s.flops / truth.flops, s.bytes / truth.bandwidth)) * (1 + noise(rng));
    out.push_back(s);
  }
  return out;
}

TEST(Calibration, FitRecoversTheRatesThatMadeTheTimes) {
  const EffectiveRate matrix{5e10, 2e10, 3e-6, 0}, elementwise{4e9, 8e9, 1e-6, 0};
  std::vector<CalibrationSample> samples = synthetic(OpClass::Matrix, matrix, 200, 1);
  for (const CalibrationSample& s : synthetic(OpClass::Elementwise, elementwise, 200, 2))
    samples.push_back(s);
  // Started from a datasheet 10x off.
  const CalibratedRates rates = fitRates(samples, {7e11, 2e11, 1e-5, 0});
  ASSERT_TRUE(rates.count("matrix/fp32"));
  ASSERT_TRUE(rates.count("elementwise/fp32"));
  ASSERT_TRUE(rates.count("any/fp32")) << "the fallback of every class of the type";
  EXPECT_FALSE(rates.count("MatMul/fp32")) << "the samples name no op type";
  EXPECT_FALSE(rates.count("normalization/fp32")) << "no samples";
  for (auto [key, truth] : {std::pair{"matrix/fp32", matrix}, std::pair{"elementwise/fp32", elementwise}}) {
    const EffectiveRate& r = rates.at(key);
    EXPECT_NEAR(r.flops / truth.flops, 1, 0.1) << key;
    EXPECT_NEAR(r.bandwidth / truth.bandwidth, 1, 0.1) << key;
    EXPECT_NEAR(r.overhead / truth.overhead, 1, 0.2) << key;
    EXPECT_EQ(r.samples, 200);
  }
}

TEST(Calibration, RatesAreLookedUpByClassThenAnyAndTypesByWhatTheDeviceHas) {
  CalibratedRates rates{{"matrix/fp32", {1e10, 1e10, 0, 5}}, {"any/fp32", {2e10, 2e10, 0, 9}}};
  EXPECT_EQ(findRate(rates, "MatMul", OpClass::Matrix, ComputeType::FP32)->samples, 5);
  EXPECT_EQ(findRate(rates, "Transpose", OpClass::Movement, ComputeType::FP32)->samples, 9);
  EXPECT_EQ(findRate(rates, "MatMul", OpClass::Matrix, ComputeType::FP16), nullptr);
  rates["Conv/fp32"] = {3e10, 3e10, 0, 4};
  EXPECT_EQ(findRate(rates, "Conv", OpClass::Matrix, ComputeType::FP32)->samples, 4) << "the op type's first";
  EXPECT_EQ(findRate(rates, "Gemm", OpClass::Matrix, ComputeType::FP32)->samples, 5) << "then its class's";
  EXPECT_EQ(rateType(ComputeType::TF32, {}), ComputeType::FP32) << "no tf32 rate: fp32";
  EXPECT_EQ(rateType(ComputeType::TF32, {{ComputeType::TF32, 1e14}}), ComputeType::TF32);
  EXPECT_EQ(rateType(ComputeType::INT4, {{ComputeType::INT8, 1e14}}), ComputeType::INT8);
  EXPECT_EQ(calibratedSeconds(OpWork{2e9, 1e9, 1e8, 1e8, true, ""}, {1e10, 1e9, 1e-6, 0}), 0.2 + 1e-6);
  for (OpClass c : {OpClass::Matrix, OpClass::Normalization, OpClass::Elementwise, OpClass::Reduction,
                    OpClass::Movement, OpClass::Any})
    EXPECT_EQ(parseOpClass(toString(c)), c);
}

TEST(Calibration, CalibratedRatesRoundTripAndAreValidated) {
  auto spec = devicePreset("cpu-only-8");
  ASSERT_TRUE(spec.hasValue());
  spec->cpus.calibrated = {{"matrix/fp32", {1.5e11, 3e10, 2e-5, 54}},
                           {"any/int8", {1e11, 2e10, 0, 3}},
                           {"Conv/fp32", {1.2e11, 3e10, 1e-5, 53}}};
  auto back = parseDeviceSpec(deviceSpecToJson(*spec).dump(), "cal.json");
  ASSERT_TRUE(back.hasValue()) << back.status().message();
  EXPECT_EQ(*back, *spec);
  auto bad = [&](const std::string& calibrated) {
    nlohmann::ordered_json j = deviceSpecToJson(*spec);
    j["cpus"]["calibrated"] = nlohmann::ordered_json::parse(calibrated);
    auto parsed = parseDeviceSpec(j.dump(), "cal.json");
    return parsed.hasValue() ? std::string() : parsed.status().message();
  };
  EXPECT_NE(bad(R"({"matrix/fp33": {"flops": 1, "bandwidth": 1, "overhead": 0}})").find(
                "cal.json: cpus.calibrated[\"matrix/fp33\"]: not a rate key"),
            std::string::npos);
  EXPECT_NE(bad(R"({"conv/fp32": {"flops": 1, "bandwidth": 1, "overhead": 0}})").find("not a rate key"),
            std::string::npos)
      << "neither a class nor an op type";
  EXPECT_NE(bad(R"({"matrix/fp32": {"flops": 0, "bandwidth": 1, "overhead": 0}})").find(
                "cpus.calibrated[\"matrix/fp32\"].flops must be a finite number > 0"),
            std::string::npos);
  EXPECT_NE(bad(R"({"matrix/fp32": {"flops": 1, "bandwidth": 1}})").find(".overhead: missing field"),
            std::string::npos);
  EXPECT_NE(bad(R"({"matrix/fp32": {"flops": 1, "bandwidth": 1, "overhead": 0, "speed": 2}})").find("unknown field"),
            std::string::npos);
}

TEST(Calibration, TheRooflineModelUsesCalibratedRates) {
  OnnxGraph g;
  for (const char* name : {"a", "b", "y"}) {
    TensorInfo t;
    t.name = name;
    t.element_type = 1;
    t.shape = Shape{64, 64};
    g.tensors.push_back(t);
  }
  g.tensors[2].producer = 0;
  OnnxNode matmul;
  matmul.name = "mm";
  matmul.op_type = "MatMul";
  matmul.inputs = {0, 1};
  matmul.outputs = {2};
  g.nodes.push_back(matmul);
  auto spec = devicePreset("cpu-only-8");
  ASSERT_TRUE(spec.hasValue());
  const double datasheet = *RooflineCostModel().estimate(g, 0, *spec).cpu;
  spec->cpus.calibrated = {{"matrix/fp32", {1e9, 1e12, 5e-6, 3}}};
  const double calibrated = *RooflineCostModel().estimate(g, 0, *spec).cpu;
  EXPECT_NE(datasheet, calibrated);
  EXPECT_DOUBLE_EQ(calibrated, 5e-6 + 2.0 * 64 * 64 * 64 / 1e9);
}

}  // namespace calibration_test
}  // namespace placer::testing
