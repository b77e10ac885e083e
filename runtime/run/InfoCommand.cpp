//===- InfoCommand.cpp - tpc-run info: summarize a program ----------------===//

#include "runtime/backend/Backend.h"
#include "runtime/program/ProgramFile.h"
#include "runtime/program/ProgramMemory.h"
#include "runtime/run/Command.h"
#include "runtime/util/Bytes.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>

namespace tpc {

namespace {

/// What one rank allocates: parameters (and fp32 masters), gradients,
/// optimizer moments and the arena the entry points share.
void print_memory(const program::Program &prog) {
  ProgramMemory m = memory_of(prog);
  auto mib = [](double bytes) { return format_bytes(bytes, ByteUnit::MiB); };
  std::printf("memory       per rank, training with AdamW: %s (parameters "
              "%s, gradients %s, optimizer state %s, arena %s)\n",
              mib(m.total()).c_str(), mib(m.parameters).c_str(),
              mib(m.gradients).c_str(), mib(m.optimizer_state).c_str(),
              mib(m.arena).c_str());
}

/// Each stage's ranks, chunks, layers and the micro-batches each chunk
/// keeps in flight, and the parameters its functions read.
void print_pipeline(const program::Program &prog) {
  const program::Pipeline &p = prog.pipeline();
  std::printf("pipeline     %lld stages x %lld chunk%s, schedule %s, %lld "
              "micro-batches per step\n",
              (long long)p.stages(), (long long)p.virtual_stages(),
              p.virtual_stages() == 1 ? "" : "s", p.schedule().c_str(),
              (long long)p.micro_batches());
  std::map<int, int> param_of_tensor;
  for (int i = 0; i < prog.parameters_size(); ++i)
    param_of_tensor[prog.parameters(i).tensor()] = i;
  const int64_t per_stage = prog.tp() * prog.dp();
  for (int64_t s = 0; s < p.stages(); ++s) {
    std::string chunks;
    int64_t layers = 0;
    for (int64_t c = s; c < p.stages() * p.virtual_stages(); c += p.stages()) {
      chunks +=
          (chunks.empty() ? "" : ", ") + std::to_string(c) + " (" +
          std::to_string(c < p.layers_size() ? p.layers(c) : 0) + " layers, " +
          std::to_string(c < p.slots_size() ? p.slots(c) : 0) + " in flight)";
      layers += c < p.layers_size() ? p.layers(c) : 0;
    }
    std::set<int> params;
    for (const program::Function &fn : prog.functions())
      if (fn.has_chunk() && fn.chunk().chunk() % p.stages() == s)
        for (const program::Instruction &inst : fn.body())
          for (int id : inst.inputs())
            if (auto it = param_of_tensor.find(id); it != param_of_tensor.end())
              params.insert(it->second);
    int64_t elements = 0;
    for (int i : params)
      elements +=
          num_elements(prog.tensors(prog.parameters(i).tensor()).shape());
    std::printf("stage %-6lld ranks %lld-%lld: chunks %s; %zu parameters, "
                "%lld elements per rank\n",
                (long long)s, (long long)(s * per_stage),
                (long long)((s + 1) * per_stage - 1), chunks.c_str(),
                params.size(), (long long)elements);
  }
}

/// On the CUDA backend, the path each kind of attention op takes
/// (runtime/backends/cuda/kernels/Attention.cu), with its count.
void print_cuda_attention(const program::Program &prog) {
  static const char *const training_ops[] = {
      op::kSelfAttention,    op::kSelfAttentionGrad,
      op::kCrossAttention,   op::kCrossAttentionGrad,
      op::kGroupedAttention, op::kGroupedAttentionGrad};
  static const char *const decoding_ops[] = {op::kDecodeAttention,
                                             op::kDecodeCrossAttention,
                                             op::kDecodeGroupedAttention};
  std::map<std::string, int> training, decoding;
  const char *type = "";
  for (const program::Function &fn : prog.functions())
    for (const program::Instruction &inst : fn.body()) {
      for (const char *name : training_ops)
        if (inst.op() == name && inst.inputs_size() > 0) {
          ++training[name];
          type = dtype_text(prog.tensors(inst.inputs(0)).dtype());
        }
      for (const char *name : decoding_ops)
        if (inst.op() == name)
          ++decoding[name];
    }
  auto list = [](const std::map<std::string, int> &ops) {
    std::string text;
    for (const auto &[name, count] : ops)
      text += (text.empty() ? "" : ", ") + name + " x" + std::to_string(count);
    return text;
  };
  if (!training.empty())
    std::printf("attention    %s: cuBLASLt GEMMs in %s (fp32 sums) around "
                "fused mask, softmax and dropout kernels, the probabilities "
                "in %s, recomputed by the backward\n",
                list(training).c_str(), type, type);
  if (!decoding.empty())
    std::printf("attention    %s: the decoding kernel, scores and "
                "probabilities in fp32\n",
                list(decoding).c_str());
}

} // namespace

int info_command(const std::string &path, const program::Program &prog,
                 const CommandOptions &opt) {
  int64_t global = 0, local = 0;
  for (const program::Parameter &p : prog.parameters()) {
    int64_t n = 1;
    for (int64_t d : p.global_shape())
      n *= d;
    global += n;
    local += num_elements(prog.tensors(p.tensor()).shape());
  }
  std::printf("program      %s\n", path.c_str());
  if (!prog.source().empty())
    std::printf("source       %s\n", prog.source().c_str());
  if (prog.stacks() > 1)
    std::printf(
        "parallelism  %lld stacks x tp %lld = %lld ranks (stack-parallel "
        "decoding: rank r holds stack r / tp; generate only)\n",
        (long long)prog.stacks(), (long long)prog.tp(),
        (long long)(prog.stacks() * prog.tp()));
  else if (prog.pp() > 1)
    std::printf("parallelism  tp %lld x dp %lld x pp %lld = %lld ranks "
                "(rank r on stage r / %lld)\n",
                (long long)prog.tp(), (long long)prog.dp(),
                (long long)prog.pp(),
                (long long)(prog.tp() * prog.dp() * prog.pp()),
                (long long)(prog.tp() * prog.dp()));
  else
    std::printf("parallelism  tp %lld x dp %lld = %lld ranks\n",
                (long long)prog.tp(), (long long)prog.dp(),
                (long long)(prog.tp() * prog.dp()));
  if (prog.pp() > 1)
    print_pipeline(prog);
  std::printf("batch        micro-batch %lld, seq %lld\n",
              (long long)prog.micro_batch(), (long long)prog.seq());
  std::printf(
      "parameters   %d tensors, %lld elements (padded), %lld per rank\n",
      prog.parameters_size(), (long long)global, (long long)local);
  // The parameters' types: their working copies, master copies and
  // gradients (the first parameter's; tpc-mixed-precision treats all alike).
  if (prog.parameters_size() > 0) {
    const program::Parameter &p = prog.parameters(0);
    program::DType compute = prog.tensors(p.tensor()).dtype();
    program::DType grad =
        p.grad_dtype() == program::DTYPE_UNSPECIFIED ? compute : p.grad_dtype();
    bool master = p.master_dtype() != program::DTYPE_UNSPECIFIED;
    std::printf("precision    %s weights%s, %s gradients%s\n",
                dtype_text(compute), master ? " with f32 masters" : "",
                dtype_text(grad),
                compute == program::F16 ? ", dynamic loss scaling" : "");
  }
  // The distributed optimizer's partition: each bucket's elements in dp
  // shards of ceil(n / dp); a rank keeps optimizer state for its shards.
  int64_t buckets = 0, shards = 0;
  std::map<std::string, int64_t> elements;
  for (const program::Parameter &p : prog.parameters())
    elements[p.name()] = num_elements(prog.tensors(p.tensor()).shape());
  for (const program::Function &fn : prog.functions())
    for (const program::Instruction &inst : fn.body()) {
      if (inst.op() != op::kBucketReduceScatter)
        continue;
      int64_t n = 0;
      for (const std::string &name :
           split_name_list(find_attr(inst, "params")->s()))
        n += elements.count(name) ? elements[name] : 0;
      ++buckets;
      shards += (n + prog.dp() - 1) / std::max<int64_t>(prog.dp(), 1);
    }
  const program::Model &model = prog.model();
  if (model.optimizer() != program::Model::NO_OPTIMIZER) {
    std::printf("optimizer    %s", model.optimizer() == program::Model::ADAMW
                                       ? abi::kAdamW
                                       : abi::kSgd);
    if (buckets > 0)
      std::printf(", distributed over dp %lld: %lld buckets, state for at "
                  "most %lld of %lld elements per rank",
                  (long long)prog.dp(), (long long)buckets, (long long)shards,
                  (long long)local);
    std::printf("\n");
  }
  if (model.vocab() > 0)
    std::printf("loss         vocabulary %lld%s, ignore index %lld\n",
                (long long)model.vocab(),
                model.vocab_parallel() ? " (vocab-parallel logits)" : "",
                (long long)model.ignore_index());
  if (model.decode_capacity() > 0)
    std::printf("decoding     up to %lld positions\n",
                (long long)model.decode_capacity());
  if (prog.model_flops_per_token() > 0)
    std::printf("model FLOPs  %lld per token (6N + attention)\n",
                (long long)prog.model_flops_per_token());
  for (const program::Function &fn : prog.functions())
    std::printf("entry point  %s: %d inputs, %d outputs, %d instructions, "
                "arena %lld bytes\n",
                fn.name().c_str(), fn.inputs_size(), fn.outputs_size(),
                fn.body_size(), (long long)fn.arena_bytes());
  if (!prog.summary().empty())
    std::printf("summary      %s\n", prog.summary().c_str());
  // A pipeline stage holds its own parameters (listed per stage above).
  if (prog.pp() <= 1)
    print_memory(prog);
  std::string device =
      describe_backend(opt.backend, {opt.device, opt.tf32, opt.cpu_gemm});
  if (!device.empty())
    std::printf("%s", device.c_str());
  if (opt.backend == "cuda")
    print_cuda_attention(prog);
  return 0;
}

} // namespace tpc
