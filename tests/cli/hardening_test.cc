// Bad input through the CLI: inputs that are not files, numbers out of a double's range, ONNX
// attributes that shape inference would divide by, unknown attributes, graph outputs nothing
// computes, and the fuzzer's crash reproducers (tests/data/repro/). Each gives a clear message naming
// the file and the node or field, a non-zero exit and no output files — never a signal.
#include <gtest/gtest.h>
#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cli/cli_fixture.h"

namespace placer::testing {
namespace hardening_test {

class Hardening : public CliTest {
 protected:
  // Runs `args` with every output option pointed into work/ and checks the exit code, that the message
  // has each of `pieces`, and that nothing was written.
  void expectRefused(std::vector<std::string> args, int exit_code, const std::vector<std::string>& pieces) {
    const std::set<std::string> before = workFiles();
    if (args.front() == "place") {
      for (const char* option : {"-o", "--stages-dir", "--report"})
        args.push_back(option), args.push_back((work_ / (std::string("out") + option)).string());
    } else {
      args.push_back("-o"), args.push_back((work_ / "out.json").string());
    }
    RunResult r = run(args);
    EXPECT_EQ(r.exit_code, exit_code) << r.err;
    for (const std::string& piece : pieces)
      EXPECT_NE(r.err.find(piece), std::string::npos) << "'" << piece << "' not in: " << r.err;
    EXPECT_EQ(workFiles(), before) << "nothing written";
  }

  // A model from ONNX's text format, written into work/.
  std::string modelFile(const std::string& name, const char* text) {
    onnx::ModelProto proto;
    auto status = onnx::OnnxParser::Parse(proto, text);
    EXPECT_TRUE(status.IsOK()) << status.ErrorMessage();
    return write(name, proto.SerializeAsString());
  }
};

TEST_F(Hardening, InputsThatAreNotFilesAreRefusedByName) {
  const std::string dir = (work_ / "a-directory").string();
  fs::create_directories(dir);
  const std::string resnet = model("resnet50_light.onnx");
  expectRefused({"place", dir}, 1, {"cannot read " + dir + ": it is a directory, not a file"});
  expectRefused({"place", "/dev/zero"}, 1, {"/dev/zero: it is a character device, not a file"});
  expectRefused({"partition", dir}, 1, {dir + ": it is a directory"});
  expectRefused({"partition", "/dev/zero"}, 1, {"/dev/zero: it is a character device"});
  expectRefused({"place", resnet, "--devices", dir}, 1, {dir + ": it is a directory"});
  expectRefused({"place", resnet, "--cost-profile", "/dev/zero"}, 1, {"/dev/zero: it is a character device"});
  const std::string workload =
      dataPath("workloads/throughput-inputs/LayerGraphs/bert24_inference.json").string();
  expectRefused({"evaluate", workload, "--split", dir}, 1, {dir + ": it is a directory"});
  expectRefused({"place", (work_ / "missing.onnx").string()}, 1, {"missing.onnx"});
}

TEST_F(Hardening, NumbersOutOfRangeAreMalformedJsonAtTheirPlace) {
  const std::string workload = write("huge.json", R"({"maxSizePerFPGA": 100, "maxFPGAs": 1, "maxCPUs": 1,
  "nodes": [{"id": 0, "cpuLatency": 1e400, "fpgaLatency": 1}], "edges": []})");
  expectRefused({"partition", workload}, 1, {workload + ":2:37: malformed JSON", "1e400"});
  const std::string devices = write("huge-devices.json", R"({"accelerators": {"count": 0},
  "cpus": {"count": 1, "peak_flops": 1e400, "memory_bandwidth": 1}})");
  expectRefused({"place", model("resnet50_light.onnx"), "--devices", devices}, 1,
                {devices + ":2:38: malformed JSON", "1e400"});
  const std::string profile = write("huge-profile.json", R"({"version": 1, "unit": "ms",
  "nodes": {"/conv1/Conv": {"cpu": -1e999}}})");
  expectRefused({"place", model("resnet50_light.onnx"), "--cost-profile", profile}, 1,
                {profile + ":2:36: malformed JSON", "1e999"});
}

// Shape inference divides by strides and indexes by kernel sizes: the attributes are checked first.
TEST_F(Hardening, AttributesShapeInferenceDividesByAreChecked) {
  const std::string zero_stride = modelFile("stride.onnx", R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[1, 3, 8, 8] x) => (float[1, 4, 4, 8] y) {
      w = Constant <value = float[4, 3, 1, 1] {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}> ()
      y = Conv <strides = [2, 0]> (x, w)
    })");
  expectRefused(
      {"place", zero_stride}, 1,
      {zero_stride + ": node 1 (Conv): attribute strides has 0 at position 1; it must be positive"});
  const std::string zero_group = modelFile("group.onnx", R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[1, 3, 8, 8] x) => (float[1, 4, 8, 8] y) {
      w = Constant <value = float[4, 3, 1, 1] {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}> ()
      y = Conv <group = 0> (x, w)
    })");
  expectRefused({"place", zero_group}, 1, {"node 1 (Conv): attribute group is 0; it must be positive"});
  const std::string kernel = modelFile("kernel.onnx", R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[1, 3, 8, 8] x) => (float[1, 3, 8, 8] y) {
      y = MaxPool <kernel_shape = [3, -1]> (x)
    })");
  expectRefused({"place", kernel}, 1, {"node 0 (MaxPool): attribute kernel_shape has -1 at position 1"});
  const std::string unknown = modelFile("unknown.onnx", R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[1, 3, 8, 8] x) => (float[1, 3, 8, 8] y) {
      y = MaxPool <kernel_shape = [1, 1], kernel_sizes = [2, 2]> (x)
    })");
  expectRefused({"place", unknown}, 1,
                {unknown + ": node 0 (MaxPool): Unrecognized attribute: kernel_sizes"});
  // inspect and export-workload read the same way.
  expectRefused({"export-workload", zero_stride}, 1, {"attribute strides has 0"});
  RunResult inspect = run({"inspect", zero_stride});
  EXPECT_EQ(inspect.exit_code, 1) << inspect.err;
}

// Names come from files: messages show their control characters and bytes that are not UTF-8 as
// \xNN, and JSON outputs replace such bytes instead of failing.
TEST_F(Hardening, RawBytesInNamesAreEscaped) {
  onnx::ModelProto proto;
  ASSERT_TRUE(onnx::OnnxParser::Parse(proto, R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[1, 3, 8, 8] x) => (float[1, 4, 4, 8] y) {
      w = Constant <value = float[4, 3, 1, 1] {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}> ()
      y = Conv <strides = [2, 0]> (x, w)
    })")
                  .IsOK());
  proto.mutable_graph()->mutable_node(1)->set_name("evil\x1b[31m\xff\xc3\xa9");
  const std::string file = write("names.onnx", proto.SerializeAsString());
  RunResult r = run({"place", file});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("(Conv \"evil\\x1b[31m\\xff\xc3\xa9\")"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << "no raw escape byte";
  // A valid model with such a name: the report is written, with U+FFFD for the bad byte.
  for (auto& a : *proto.mutable_graph()->mutable_node(1)->mutable_attribute()) {
    if (a.name() == "strides") a.set_ints(1, 2);
  }
  const std::string good = write("named.onnx", proto.SerializeAsString());
  RunResult placed = run({"place", good, "--devices", "cpu-only-8", "-q"});
  ASSERT_EQ(placed.exit_code, 0) << placed.err;
  EXPECT_FALSE(nlohmann::json::parse(placed.out, nullptr, false).is_discarded()) << placed.out;
  RunResult inspected = run({"inspect", good, "--json"});
  ASSERT_EQ(inspected.exit_code, 0) << inspected.err;
}

TEST_F(Hardening, TwoOutputsOnOnePathAreAUsageError) {
  const std::string resnet = model("resnet50_light.onnx");
  const std::string same = (work_ / "out.json").string();
  const std::set<std::string> before = workFiles();
  RunResult r = run({"place", resnet, "--report", same, "-o", (work_ / "." / "out.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("-o and --report name the same file"), std::string::npos) << r.err;
  r = run({"place", resnet, "--stages-dir", same, "--report", same});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--stages-dir and --report name the same file"), std::string::npos) << r.err;
  EXPECT_EQ(workFiles(), before) << "nothing written";
}

TEST_F(Hardening, AGraphOutputNothingComputesIsAnError) {
  onnx::ModelProto proto;
  ASSERT_TRUE(onnx::OnnxParser::Parse(proto, R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[4] x) => (float[4] y) {
      y = Relu(x)
    })")
                  .IsOK());
  *proto.mutable_graph()->add_output() = proto.graph().output(0);
  proto.mutable_graph()->mutable_output(1)->set_name("ghost");
  const std::string file = write("ghost.onnx", proto.SerializeAsString());
  expectRefused(
      {"place", file}, 1,
      {file + ": graph output 1 'ghost' is computed by no node and is no initializer or graph input"});
}

// A graph with no operator left to place — its output is its input, or a computation on weights
// alone, which the loader folds — is refused by name, with nothing written (it used to answer "0
// stage(s)", and then fail on --stages-dir without saying why).
TEST_F(Hardening, AGraphWithNoOperatorIsRefused) {
  const std::string passthrough = modelFile("passthrough.onnx", R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[4] x) => (float[4] x) {
    })");
  const std::string folded = modelFile("folded.onnx", R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[4] x) => (int64[1] s) {
      s = Shape(x)
    })");
  for (const std::string& file : {passthrough, folded}) {
    expectRefused({"place", file}, 1,
                  {file + ": the graph has no operators to place (every output is a graph input, a weight, or "
                          "computed from weights alone)"});
  }
}

// Shape arithmetic the loader folds itself: an overflow or INT64_MIN / -1 folds nothing (the tensors
// stay without a static shape) instead of trapping, and an opset-9 Slice with no `ends` is left to
// shape inference.
TEST_F(Hardening, ShapeArithmeticNeverTraps) {
  const std::string division = modelFile("division.onnx", R"(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2, 3] x) => (float[6] y) {
      lowest = Constant <value = int64[1] {-9223372036854775807}> ()
      one = Constant <value = int64[1] {1}> ()
      minimum = Sub(lowest, one)
      minus = Constant <value = int64[1] {-1}> ()
      quotient = Div(minimum, minus)
      product = Mul(lowest, lowest)
      both = Concat <axis = 0> (quotient, product)
      y = Reshape(x, both)
    })");
  RunResult r = run({"place", division, "-q"});
  EXPECT_GE(r.exit_code, 0) << "killed by signal " << -1000 - r.exit_code;
  EXPECT_LE(r.exit_code, 4) << r.err;
  onnx::ModelProto proto;
  ASSERT_TRUE(onnx::OnnxParser::Parse(proto, R"(
    <ir_version: 4, opset_import: ["" : 9]>
    g (float[2, 3] x) => (float[2, 3] y) {
      shape = Shape(x)
      part = Slice <starts = [0], ends = [1]> (shape)
      y = Relu(x)
    })")
                  .IsOK());
  for (auto& a : *proto.mutable_graph()->mutable_node(1)->mutable_attribute()) {
    if (a.name() == "ends") a.clear_ints();  // the parser cannot write an empty list
  }
  const std::string slice = write("slice.onnx", proto.SerializeAsString());
  r = run({"place", slice, "-q"});
  EXPECT_GE(r.exit_code, 0) << "killed by signal " << -1000 - r.exit_code;
  EXPECT_LE(r.exit_code, 4) << r.err;
}

TEST_F(Hardening, FuzzerReproducersGiveMessagesNotSignals) {
  const struct {
    const char* file;
    const char* message;
  } cases[] = {
      {"fuzz-onnx-1.onnx",
       "node 24 (Conv \"n8\"): attribute strides has 0 at position 0; it must be positive"},
      {"fuzz-onnx-2.onnx", "node 5 (ConstantOfShape): Unrecognized attribute: va,ue"},
      {"fuzz-onnx-3.onnx", "node 30 (MaxPool \"n14\"): Unrecognized attribute: kernel_sha;e"},
      {"fuzz-onnx-4.onnx", "node 26 (Conv \"n10\"): attribute strides has 0 at position 1"},
      {"fuzz-onnx-5.onnx",
       "node 1 (Shape \"shape\") reads tensor 'a_typo', which no node, initializer or graph input produces"},
      {"fuzz-onnx-7.onnx", "the graph has a cycle through node 0 (Shape \"shape\")"},
      {"fuzz-workload-1.json", ":1:319342: malformed JSON: number overflow parsing '3.45e453125'"},
  };
  for (const auto& c : cases) {
    const std::string file = dataPath(std::string("repro/") + c.file).string();
    const bool workload = std::string(c.file).ends_with(".json");
    expectRefused({workload ? "partition" : "place", file}, 1, {file, c.message});
  }
}

// ONNX requires nodes in topological order and its shape inference crashes on a node that reads a
// tensor a later node writes; the loader does not require the order, so it sorts the copy it infers.
TEST_F(Hardening, NodesOutOfTopologicalOrderAreSortedForShapeInference) {
  const std::string file = dataPath("repro/fuzz-onnx-6.onnx").string();  // Shape before the Relu it reads
  RunResult r = run({"inspect", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 tensor(s) without a static shape"), std::string::npos) << r.out;
  r = run({"place", file, "--devices", "cpu-only-8", "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// ONNX's shape inference crashed on a Shape reading a tensor nothing typed: the output of an operator
// without a schema (a custom domain's), or a graph input declared without a type. Such models load.
TEST_F(Hardening, TensorsWithoutATypeDoNotCrashShapeInference) {
  for (const char* name : {"fuzz-onnx-8.onnx", "fuzz-onnx-9.onnx"}) {
    const std::string file = dataPath(std::string("repro/") + name).string();
    RunResult r = run({"inspect", file});
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_NE(r.out.find("tensor(s) without a static shape"), std::string::npos) << r.out;
  }
}

}  // namespace hardening_test
}  // namespace placer::testing
