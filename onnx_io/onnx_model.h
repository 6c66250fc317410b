// An ONNX model as onnx-placer sees it: operators to place and the tensors between them, with static
// shapes and sizes where shape inference could find them. Plain project types, so cost models and
// passes can use them without ONNX or protobuf headers (only onnx_io/ includes those).
//
// Weights are not operators to place: initializers, Constant nodes, ConstantOfShape and Identity nodes
// of constants, and every node constant folding evaluates (its inputs all constant, or shapes: see
// onnx_io/constant_folding.h) produce *weight tensors*. Their producer nodes are folded into the
// operators that read them (`OnnxNode::folded`), and their bytes count towards those operators' memory.
//
// A control-flow node (If, Loop, Scan) is one operator, placed whole: the tensors its bodies read from
// the enclosing graph are its inputs, and its bodies are kept, with the shapes inferred inside them, so
// the cost model can cost it as its bodies (`OnnxNode::subgraphs`, cost_model/README.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/shape.h"
#include "core/status.h"
#include "onnx_io/decoder_phase.h"

namespace placer {

struct TensorInfo {
  std::string name;
  int element_type = 0;        // ONNX TensorProto.DataType (1 = float32, 7 = int64, ...)
  std::optional<Shape> shape;  // static shape, when known
  int producer = -1;           // index into OnnxGraph::nodes; -1 for graph inputs and weights
  std::vector<int> consumers;  // indices into OnnxGraph::nodes, each once
  bool is_weight = false;      // an initializer or the output of a folded constant producer
  bool is_graph_input = false;
  bool is_graph_output = false;
  bool external_data = false;  // initializer stored outside the model file

  // Bytes of the tensor; nullopt when its shape or element size is unknown.
  std::optional<double> bytes() const;
};

// Bytes per element of an ONNX element type (0.5 for the 4-bit types), or 0 when unknown (strings).
double elementBytes(int element_type);

struct OnnxNode;

// One graph attribute of a control-flow node (If's then_branch and else_branch, Loop's and Scan's
// body), for its cost: the operators inside, with the shapes inference found there. `tensors` holds
// every tensor those operators read or write — those of enclosing scopes included, copied with what
// is known of them there — so a body is self-contained. Constant producers inside are weights, as at
// the top level. Nested control flow nests.
struct OnnxSubgraph {
  std::string attribute;  // "then_branch", "else_branch", "body"
  std::vector<OnnxNode> nodes;
  std::vector<TensorInfo> tensors;  // OnnxNode::inputs/outputs of `nodes` index this table
};

struct OnnxNode {
  int onnx_index = -1;          // position in GraphProto.node
  std::string name;             // the model's name, or a generated unique one
  bool generated_name = false;  // the model left the node unnamed
  std::string op_type;
  std::string domain;
  std::vector<int> inputs;   // tensor indices; -1 for an omitted optional input
  std::vector<int> outputs;  // tensor indices; -1 for an omitted optional output
  std::map<std::string, std::vector<std::int64_t>> int_attributes;
  std::map<std::string, double> float_attributes;
  std::map<std::string, std::string> string_attributes;  // Einsum's "equation", ...
  // Small integer inputs whose values are constant (at most 16 elements, by input position): what
  // a cost formula may read, e.g. GroupQueryAttention's total_sequence_length or DFT's axis.
  std::map<int, std::vector<std::int64_t>> constant_inputs;
  std::vector<int> folded;  // onnx indices of constant producers folded into this node
  int subgraph_nodes = 0;   // nodes inside If/Loop/Scan bodies (the node is placed as one opaque unit)
  std::vector<OnnxSubgraph> subgraphs;  // the bodies of If/Loop/Scan (empty for other operators)
  // How many times the body runs per execution: Loop's constant trip count M, Scan's scan length;
  // nullopt for If and when unknown (the loader then warns, and the body counts once).
  std::optional<std::int64_t> body_runs;
  // Bytes of initializers and constants defined inside the bodies: weights that go wherever the node
  // goes. (Weights of enclosing scopes that a body reads are implicit inputs of the node.)
  double subgraph_weight_bytes = 0;
};

// A node of the model that constant folding replaced by its value (onnx_io/constant_folding.h): not
// an operator to place; its outputs are weights whose values OnnxGraph::folded_values holds.
struct FoldedNode {
  int onnx_index = -1;
  std::string op_type;
  std::string name;  // the model's name (may be empty)
};

struct OnnxGraph {
  std::string path;
  std::int64_t ir_version = 0;
  std::map<std::string, std::int64_t> opsets;  // domain ("" = default) -> version
  std::vector<OnnxNode> nodes;                 // the operators to place, in the model's order
  std::vector<TensorInfo> tensors;
  std::map<std::string, int> tensor_index;
  std::vector<std::string> warnings;  // what the loader had to assume
  // Nodes folded to constants, in model order, and their outputs' values (tensor name -> a
  // serialized onnx::TensorProto), which stage sub-models receive as initializers.
  std::vector<FoldedNode> folded_nodes;
  std::map<std::string, std::string> folded_values;
  // The values the graph inputs' symbolic dimensions were loaded with (--dim, else the default), by
  // name; and that of the unnamed dynamic ones (-1: the inputs have none).
  std::map<std::string, std::int64_t> input_dims;
  std::int64_t unnamed_dim = -1;
  // A decoder with a KV cache (decoder.h): each layer's past input and present output (tensor
  // indices), and the phase it was loaded for ("prompt" or "token"; empty for other models).
  std::vector<std::pair<int, int>> kv_cache;
  std::string phase;

  // Weight bytes held by a node: the weight tensors it reads (each once per reading node) and those
  // defined inside its bodies.
  double weightBytes(int node) const;
};

struct LoadOptions {
  std::map<std::string, std::int64_t> dims;  // --dim NAME=VALUE for symbolic dimensions
  std::int64_t default_dim = 1;              // any other symbolic or unknown input dimension
  // The decoding phase a decoder with a KV cache is loaded for (onnx_io/decoder.h), which sets its
  // past, sequence and total lengths; unset: the prompt. An error for a model without a KV cache.
  std::optional<DecoderPhase> phase = std::nullopt;
  // `dims` are every dimension's value as is: no phase fills any in (a reload at other values).
  bool dims_complete = false;
  // Run ONNX's shape inference in a child process (fork), so that a model that makes it crash (it
  // trusts shapes that disagree, e.g. a sequence longer than a position table) is an error naming
  // the file, not a crash of the caller. The child gets a copy without the weights' data.
  bool isolate_shape_inference = true;
};

// Where a model comes from: a file, or a serialized ModelProto in memory (an embedder's model, which
// it never has to write to disk). Every reader of the model (the loader, the annotated model's and
// the stage sub-models' writers) reads the same source, so its bytes must outlive them: `owner`
// keeps them alive when the source holds a copy, otherwise the caller does. Relative external-data
// locations of a model in memory resolve from `directory` (default: the working directory, as ONNX
// Runtime does for a model given as bytes).
struct ModelSource {
  ModelSource() = default;
  ModelSource(std::filesystem::path file) : path(std::move(file)) {}  // NOLINT: implicit by design
  ModelSource(const char* file) : path(file) {}                       // NOLINT: implicit by design
  ModelSource(const std::string& file) : path(file) {}                // NOLINT: implicit by design
  // A model in memory: `bytes` are not copied; `name` is what messages call it.
  static ModelSource inMemory(std::string_view bytes, std::string name = "model bytes",
                              std::filesystem::path directory = {});
  // The same, owning a copy of the bytes.
  static ModelSource owning(std::string bytes, std::string name = "model bytes",
                            std::filesystem::path directory = {});

  bool fromMemory() const { return from_memory; }
  // The file's path, or the in-memory model's name: what messages and reports call the model.
  std::string displayName() const;
  // The directory relative external-data locations resolve from (absolute, lexically normal).
  std::filesystem::path dataDirectory() const;

  std::filesystem::path path;  // the file (empty for a model in memory)
  std::string_view bytes;      // the serialized model, when in memory
  std::shared_ptr<const std::string> owner;
  std::string name;
  std::filesystem::path directory;
  bool from_memory = false;
};

// Loads, validates and shape-infers a model. Fails with the file named on: unreadable, truncated or
// non-ONNX files, a graph with a cycle, a node reading a tensor nobody produces.
Expected<OnnxGraph> loadOnnx(const ModelSource& source, const LoadOptions& options = {});

}  // namespace placer
