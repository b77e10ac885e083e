//===- Abi.h - The names the compiler and the runtime agree on --*- C++ -*-===//
//
// The contract between tpc-compile and tpc-run beyond program.proto's
// fields: the entry points a program may hold, the compiler attributes that
// the export pass turns into program fields, the program format version, and
// the metadata keys of a training checkpoint. The export pass (passes/) and
// the runtime (runtime/, tools/) both spell these names from here, so a
// rename is one edit. Free of LLVM so that the runtime can include it.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_PROGRAM_ABI_H
#define TPC_RUNTIME_PROGRAM_ABI_H

#include "runtime/program/OpSchema.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace tpc::abi {

/// The program format this build writes and reads. Fields added without a
/// new version are optional: a reader sees their default (0) in older files.
/// Version 3 added Program.model and Function.logits_output, which the
/// runtime reads instead of scanning function bodies.
inline constexpr uint32_t kProgramVersion = 3;

// Entry points. forward(tokens, targets) -> (loss sum, count, logits);
// train_step: forward and backward of one micro-batch, accumulating
// gradients; apply_step(lr, inv_count) -> grad norm; decode_step(tokens,
// pos) -> logits, one position with KV caches.
inline constexpr char kForward[] = "forward";
inline constexpr char kTrainStep[] = "train_step";
inline constexpr char kApplyStep[] = "apply_step";
/// A pipelined program's apply_step of one stage, which updates the
/// parameters that stage holds.
inline std::string stage_apply_step(int64_t stage) {
  return "stage" + std::to_string(stage) + "_" + kApplyStep;
}
inline constexpr char kDecodeStep[] = "decode_step";
// decode_recurrent(tokens, pos, previous final activation) -> (logits, final
// activation): a shared-weights StagFormer's recurrent decoding, one pass of
// the last stack per token; decode_step then also returns its final
// activation.
inline constexpr char kDecodeRecurrent[] = "decode_recurrent";
// Stack-parallel decoding (Program.stacks > 1): the ranks of stack s run
// decode_stack_<s>(tokens, pos[, memory]) -> final, one position of that
// stack alone, where memory is stack s-1's final activation of the
// previous position (stack 0 has none); the ranks of the last stack then
// run decode_head(finals...) -> logits, the output layer over the final
// activations the logits read (the last stack's, or every stack's under
// the alpha combination, in stack order).
inline constexpr char kDecodeStackPrefix[] = "decode_stack_";
inline constexpr char kDecodeHead[] = "decode_head";

// Inputs of forward (and so of train_step) beyond tokens and targets that a
// batch fills: an encoder's token types [B,T] i32 and key lengths [B] i32
// (BERT), and with BERT's sentence-order head each row's label [B,1] i32 and
// the weight of that loss in the loss sum (f32 scalar). The model marks
// each such argument with kInputAttr naming what it is; tpc-export records
// where they are (Function.token_types_input, ...), and the runtime feeds
// them from the batcher and the trainer. They follow the targets; an fp16
// train_step's loss scale comes after them.
inline constexpr char kInputAttr[] = "tpc.input";
inline constexpr char kTokenTypesInput[] = "token_types";
inline constexpr char kKeyLengthsInput[] = "key_lengths";
inline constexpr char kSentenceOrderInput[] = "sentence_order";
inline constexpr char kSentenceOrderWeightInput[] = "sentence_order_weight";

// Attributes the compiler sets and the export pass reads. Every attribute
// whose name starts with kCompilerAttrPrefix is bookkeeping: it is not
// copied into an instruction's attributes.
inline constexpr char kCompilerAttrPrefix[] = "tpc.";
/// On an op: the arena byte offset of each result (tpc-plan-memory).
inline constexpr char kOffsetsAttr[] = "tpc.offsets";
/// Ops whose result may lie on the arena bytes of their one operand where
/// the operand is read for the last time (tpc-plan-memory places them so):
/// the runtime then copies nothing and reduces in place.
inline bool reuses_operand_bytes(std::string_view op) {
  return op == op::kF || op == op::kG || op == op::kAllReduce;
}
/// On a function: the bytes of its arena (tpc-plan-memory).
inline constexpr char kArenaBytesAttr[] = "tpc.arena_bytes";
/// On the module: the cost report's model FLOPs of one training step per
/// token (6N plus attention), which tpc-run's MFU uses.
inline constexpr char kModelFlopsAttr[] = "tpc.model_flops_per_token";
// Module attribute: the stacks of a stack-parallel program (Program.stacks).
inline constexpr char kStacksAttr[] = "tpc.stacks";

// Pipeline parallelism (tpc-pipeline-cut, tpc-pipeline). On an op: its
// chunk. On the module: the cut, a dictionary {stages, virtual_stages,
// layers (per chunk)}, and after tpc-pipeline the schedule {schedule,
// micro_batches} and each stage's actions as text.
inline constexpr char kChunkAttr[] = "tpc.chunk";
inline constexpr char kPipelineAttr[] = "tpc.pipeline";
inline constexpr char kPipelineActionsAttr[] = "tpc.pipeline_actions";
/// On a kept argument of a chunk's backward function: [role, result], the
/// result of the chunk's forward (role 0) or backward_input (role 1) that
/// it is; tpc-plan-memory gives both one offset.
inline constexpr char kFromAttr[] = "tpc.from";
/// On a chunk function: the arena offset of each argument; its arguments
/// live in its arena (tpc-plan-memory), where the runtime writes the data
/// and receives the messages.
inline constexpr char kArgOffsetsAttr[] = "tpc.arg_offsets";
/// On a chunk's forward and backward functions: the bytes of their arena
/// that one micro-batch in flight holds (its slot); the rest of the arena,
/// after it, is scratch that a stage's functions share.
inline constexpr char kSlotBytesAttr[] = "tpc.slot_bytes";
/// On a chunk function: {chunk, role (0 forward, 1 backward_input, 2
/// backward_weight, 3 eval), recv, send}: how many of its leading inputs
/// are received and of its leading outputs are sent (after the data inputs
/// of forward and eval: the step's own arguments).
inline constexpr char kChunkFunctionAttr[] = "tpc.chunk_function";

// Metadata of every checkpoint: safetensors' "format" ("pt", as PyTorch
// writes it, so that Hugging Face's loaders accept the file), the program's
// source model, and the tp and dp sizes of the job that wrote it.
inline constexpr char kFormatKey[] = "format";
inline constexpr char kFormatPyTorch[] = "pt";
inline constexpr char kSourceKey[] = "tpc.source";
inline constexpr char kTpKey[] = "tpc.tp";
inline constexpr char kDpKey[] = "tpc.dp";
/// The optimizer whose state the checkpoint holds (kAdamW or kSgd), as
/// tensors named kOptimizerStatePrefix + <state> + "." + <parameter>.
inline constexpr char kOptimizerKey[] = "tpc.optimizer";
inline constexpr char kOptimizerStatePrefix[] = "optimizer.";
// The optimizers, as checkpoints and tpc-run's --optimizer name them.
inline constexpr char kAdamW[] = "adamw";
inline constexpr char kSgd[] = "sgd";
// Their state: AdamW's first and second moments, SGD's momentum.
inline constexpr char kAdamWFirstMoment[] = "m";
inline constexpr char kAdamWSecondMoment[] = "v";
inline constexpr char kSgdMomentum[] = "momentum";

// Metadata of a training checkpoint: where the trainer stands.
inline constexpr char kTrainerStepKey[] = "tpc.trainer_step";
inline constexpr char kDataPositionKey[] = "tpc.data_position";
inline constexpr char kSeedKey[] = "tpc.seed";
inline constexpr char kStepsKey[] = "tpc.steps";
inline constexpr char kGradAccumKey[] = "tpc.grad_accum";
inline constexpr char kWindowsKey[] = "tpc.windows";
/// AdamW's t: the updates applied, fewer than the trainer's steps by those
/// that loss scaling skipped.
inline constexpr char kOptimizerStepKey[] = "tpc.optimizer_step";
/// Dynamic loss scaling (fp16): the scale and the finite steps since it
/// last changed.
inline constexpr char kLossScaleKey[] = "tpc.loss_scale";
inline constexpr char kGoodStepsKey[] = "tpc.loss_scale_good_steps";

} // namespace tpc::abi

#endif // TPC_RUNTIME_PROGRAM_ABI_H
