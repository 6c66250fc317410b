// Decoders with a KV cache: which graph inputs are the past keys and values, which outputs the
// presents, and which symbolic dimensions are the batch, the new tokens, the past and their total;
// and the dimension values a decoding phase implies.
//
// Names follow the transformers/optimum and ONNX Runtime GenAI exports:
// `past_key_values.<layer>.key|value` in, `present.<layer>.key|value` out (also `past_key_<layer>`,
// `past.<layer>`, ...: an input whose name holds "past" and a layer number, an output whose name
// holds "present" and one; key, value, or both in one tensor). A past and a present of the same layer
// and kind are a pair. The dimensions come from `input_ids` (or `inputs_embeds`): [batch, sequence];
// a past input: [batch, heads, past, head size] (its symbolic dimension other than the batch); and
// `attention_mask`: [batch, total].
//
// A phase fixes them: `prompt` runs the prompt with no past (past = 0, sequence as given), `token`
// one generated token after `past` of them (sequence = 1); the total is past + sequence.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "onnx_io/decoder_phase.h"

namespace placer {

// The kind of cache tensor a past or present name holds: "key", "value" or "kv" (both in one
// tensor), case-insensitively ("past_key_values" names the cache, not a kind).
std::string kvKind(std::string name);

struct KvCacheLayout {
  struct Pair {
    int layer = 0;
    std::string kind;  // "key", "value" or "kv" (both in one tensor)
    std::string past, present;
  };
  std::vector<Pair> pairs;  // by layer, then kind
  // The symbolic dimensions' names; empty where the model has none.
  std::string batch, sequence, past, total;

  bool empty() const { return pairs.empty(); }
};

// The KV cache of `graph`'s inputs and outputs (empty when it has none).
KvCacheLayout findKvCache(const onnx::GraphProto& graph);

// The dimension values `phase` gives a decoder with `layout`, added to `dims` (the user's --dim
// values). InvalidInput naming the model (`source`) when a given value contradicts the phase (a past
// length for the prompt, a sequence other than 1 for a token).
Status applyDecoderPhase(const KvCacheLayout& layout, DecoderPhase phase, std::int64_t default_dim,
                         const std::string& source, std::map<std::string, std::int64_t>& dims);

}  // namespace placer
