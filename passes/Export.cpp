//===- Export.cpp - Write a module as a tpc program file --------*- C++ -*-===//

#include "passes/MegatronRule.h"
#include "passes/Passes.h"
#include "passes/Utils.h"
#include "runtime/program/Abi.h"
#include "runtime/program/PipelineSchedule.h"
#include "runtime/program/ProgramFile.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

namespace tpc {
#define GEN_PASS_DEF_EXPORT
#include "passes/Passes.h.inc"
} // namespace tpc

using namespace mlir;
using namespace tpc;

namespace {
FailureOr<program::DType> dtypeOf(Type type) {
  Type element = cast<ShapedType>(type).getElementType();
  if (element.isF32())
    return program::F32;
  if (element.isBF16())
    return program::BF16;
  if (element.isF16())
    return program::F16;
  if (element.isInteger(32))
    return program::I32;
  return failure();
}

program::Layout toProto(LayoutAttr layout) {
  program::Layout out;
  if (!layout)
    return out; // replicated
  switch (layout.getKind()) {
  case LayoutKind::replicated:
    out.set_kind(program::Layout::REPLICATED);
    break;
  case LayoutKind::split:
    out.set_kind(program::Layout::SPLIT);
    out.set_dim(layout.getDim());
    out.set_blocks(layout.getBlocks());
    break;
  case LayoutKind::partial:
    out.set_kind(program::Layout::PARTIAL);
    break;
  }
  return out;
}

/// Converts one op attribute; enums travel as their keywords so that the
/// runtime does not depend on their numbering. Enum attributes are plain i32
/// integers underneath, so they are told apart by their name.
FailureOr<program::Attribute> toProto(StringRef name, Attribute attr) {
  program::Attribute out;
  if (name == "group" && isa<GroupAttr>(attr))
    out.set_s(stringifyGroup(cast<GroupAttr>(attr).getValue()).str());
  else if (name == "stream" && isa<RngStreamAttr>(attr))
    out.set_s(stringifyRngStream(cast<RngStreamAttr>(attr).getValue()).str());
  else if (name == "reduce" && isa<ReduceKindAttr>(attr))
    out.set_s(stringifyReduceKind(cast<ReduceKindAttr>(attr).getValue()).str());
  else if (auto layout = dyn_cast<LayoutAttr>(attr))
    *out.mutable_layout() = toProto(layout);
  else if (auto b = dyn_cast<BoolAttr>(attr))
    out.set_flag(b.getValue());
  else if (isa<UnitAttr>(attr))
    out.set_flag(true);
  else if (auto i = dyn_cast<IntegerAttr>(attr))
    out.set_i(i.getInt());
  else if (auto f = dyn_cast<FloatAttr>(attr))
    out.set_f(f.getValueAsDouble());
  else if (auto s = dyn_cast<StringAttr>(attr))
    out.set_s(s.str());
  else if (auto sym = dyn_cast<FlatSymbolRefAttr>(attr))
    out.set_s(sym.getValue().str());
  else if (auto list = dyn_cast<ArrayAttr>(attr)) {
    // A list of parameters (a gradient bucket): their names, comma-separated.
    std::string names;
    for (Attribute element : list) {
      auto sym = dyn_cast<FlatSymbolRefAttr>(element);
      if (!sym)
        return failure();
      names += (names.empty() ? "" : ",") + sym.getValue().str();
    }
    out.set_s(names);
  } else
    return failure();
  return out;
}

int64_t moduleInt(ModuleOp module, StringRef name) {
  if (auto attr = module->getAttrOfType<IntegerAttr>(name))
    return attr.getInt();
  return 1;
}

struct ExportPass : public tpc::impl::ExportBase<ExportPass> {
  using ExportBase::ExportBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (output.empty()) {
      module.emitError("tpc-export needs output=<path of the program file>");
      return signalPassFailure();
    }
    program::Program prog;
    prog.set_version(abi::kProgramVersion);
    prog.set_tp(getModuleTp(module));
    prog.set_dp(moduleInt(module, kDpAttrName));
    if (int64_t stacks = moduleInt(module, abi::kStacksAttr); stacks > 1)
      prog.set_stacks(stacks);
    if (failed(exportParams(module, prog)))
      return signalPassFailure();
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && failed(exportFunction(func, prog)))
        return signalPassFailure();
    if (failed(exportPipeline(module, prog)))
      return signalPassFailure();
    auto forward = module.lookupSymbol<func::FuncOp>(abi::kForward);
    if (!forward)
      forward = module.lookupSymbol<func::FuncOp>("chunk0_eval");
    if (forward) {
      auto tokens = dyn_cast<RankedTensorType>(forward.getArgumentTypes()[0]);
      if (tokens && tokens.getRank() == 2) {
        prog.set_micro_batch(tokens.getDimSize(0));
        prog.set_seq(tokens.getDimSize(1));
      }
    }
    if (auto flops = module->getAttrOfType<IntegerAttr>(abi::kModelFlopsAttr))
      prog.set_model_flops_per_token(flops.getInt());
    if (failed(exportModel(module, *prog.mutable_model())))
      return signalPassFailure();
    if (auto loc = dyn_cast<FileLineColLoc>(module.getLoc()))
      prog.set_source(loc.getFilename().str());
    prog.set_summary(summarize(prog));
    std::string problem = validate_program(prog);
    if (problem.empty())
      problem = write_program_file(output, prog, interpreter);
    if (!problem.empty()) {
      module.emitError("cannot write the program: ") << problem;
      return signalPassFailure();
    }
  }

  LogicalResult exportParams(ModuleOp module, program::Program &prog) {
    int64_t tp = getModuleTp(module);
    for (auto param : module.getOps<ParamOp>()) {
      // The program tensor is the working copy the functions read.
      FailureOr<RankedTensorType> local = param.getLocalComputeType(tp);
      FailureOr<RankedTensorType> grad = param.getLocalGradType(tp);
      if (failed(local) || failed(grad))
        return param.emitOpError("cannot be exported: its layout has no "
                                 "program equivalent at this tp");
      FailureOr<program::DType> dtype = dtypeOf(*local);
      FailureOr<program::DType> master = dtypeOf(param.getTensorType());
      FailureOr<program::DType> gradDtype = dtypeOf(*grad);
      if (failed(dtype) || failed(master) || failed(gradDtype))
        return param.emitOpError("cannot be exported: its element type or "
                                 "layout has no program equivalent");
      int32_t id = addTensor(prog, param.getSymName(), *dtype,
                             local->getShape(), program::Tensor::PARAMETER);
      paramTensors[param.getSymNameAttr()] = id;
      program::Parameter *p = prog.add_parameters();
      p->set_name(param.getSymName().str());
      p->set_tensor(id);
      if (param.hasMasterCopy())
        p->set_master_dtype(*master);
      p->set_grad_dtype(*gradDtype);
      InitAttr init = param.getInit();
      p->mutable_init()->set_kind(
          static_cast<program::Init::Kind>(static_cast<int>(init.getKind())));
      p->mutable_init()->set_std(init.getEffectiveStd());
      *p->mutable_layout() = toProto(param.getLayoutAttr());
      for (int64_t d : param.getTensorType().getShape())
        p->add_global_shape(d);
      if (auto valid = param->getAttrOfType<IntegerAttr>(kVocabSizeAttrName))
        p->set_valid_extent(valid.getInt());
    }
    return success();
  }

  LogicalResult exportFunction(func::FuncOp func, program::Program &prog) {
    program::Function *fn = prog.add_functions();
    fn->set_name(func.getSymName().str());
    if (auto arena = func->getAttrOfType<IntegerAttr>(abi::kArenaBytesAttr))
      fn->set_arena_bytes(arena.getInt());
    llvm::DenseMap<Value, int32_t> ids;
    auto argOffsets =
        func->getAttrOfType<DenseI64ArrayAttr>(abi::kArgOffsetsAttr);
    if (auto info =
            func->getAttrOfType<DictionaryAttr>(abi::kChunkFunctionAttr)) {
      program::ChunkFunction *chunk = fn->mutable_chunk();
      auto get = [&](StringRef key) {
        return int32_t(cast<IntegerAttr>(info.get(key)).getInt());
      };
      chunk->set_chunk(get("chunk"));
      chunk->set_role(program::ChunkFunction::Role(get("role")));
      if (auto slot = func->getAttrOfType<IntegerAttr>(abi::kSlotBytesAttr))
        chunk->set_slot_bytes(slot.getInt());
      if (!argOffsets || argOffsets.size() != int64_t(func.getNumArguments()))
        return func.emitOpError("has no argument offsets; run "
                                "tpc-plan-memory before tpc-export");
    }
    for (BlockArgument arg : func.getArguments()) {
      FailureOr<program::DType> dtype = dtypeOf(arg.getType());
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (failed(dtype) || !type || !type.hasStaticShape())
        return func.emitOpError("argument ")
               << arg.getArgNumber() << " of type " << arg.getType()
               << " cannot be exported; fix its shape with tpc-specialize";
      int32_t id = addTensor(
          prog,
          llvm::formatv("{0}.arg{1}", func.getSymName(), arg.getArgNumber())
              .str(),
          *dtype, type.getShape(),
          argOffsets ? program::Tensor::ACTIVATION : program::Tensor::INPUT);
      if (argOffsets)
        prog.mutable_tensors(id)->set_offset(argOffsets[arg.getArgNumber()]);
      ids[arg] = id;
      fn->add_inputs(id);
      if (auto what = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                        abi::kInputAttr)) {
        int32_t index = int32_t(arg.getArgNumber());
        StringRef name = what.getValue();
        if (name == abi::kTokenTypesInput)
          fn->set_token_types_input(index);
        else if (name == abi::kKeyLengthsInput)
          fn->set_key_lengths_input(index);
        else if (name == abi::kSentenceOrderInput)
          fn->set_sentence_order_input(index);
        else if (name == abi::kSentenceOrderWeightInput)
          fn->set_sentence_order_weight_input(index);
        else
          return func.emitOpError("argument ")
                 << arg.getArgNumber() << " is the batch's " << what
                 << ", which the runtime does not feed; name '"
                 << abi::kTokenTypesInput << "', '" << abi::kKeyLengthsInput
                 << "', '" << abi::kSentenceOrderInput << "' or '"
                 << abi::kSentenceOrderWeightInput << "'";
      }
    }
    for (Operation &op : func.getBody().front()) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        for (Value v : ret.getOperands())
          fn->add_outputs(ids.lookup(v));
        if (std::optional<int> logits = returnedLossLogits(func, ret))
          fn->set_logits_output(*logits);
        if (std::optional<int> logits =
                returnedLossLogits(func, ret, /*classifier=*/true))
          fn->set_sentence_order_logits_output(*logits);
        continue;
      }
      if (auto get = dyn_cast<GetParamOp>(op)) {
        ids[get.getResult()] = paramTensors.lookup(get.getNameAttr().getAttr());
        continue;
      }
      if (!isa<TpcDialect>(op.getDialect()))
        return op.emitOpError("has no runtime equivalent; only tpc ops can "
                              "be exported");
      // get_grad's result is the runtime's gradient buffer, not an arena
      // value.
      bool gradient = isa<GetGradOp>(op);
      auto offsets = op.getAttrOfType<DenseI64ArrayAttr>(abi::kOffsetsAttr);
      if (op.getNumResults() > 0 && !gradient &&
          (!offsets ||
           offsets.size() != static_cast<int64_t>(op.getNumResults())))
        return op.emitOpError("has no arena offsets; run tpc-plan-memory "
                              "before tpc-export");
      program::Instruction *inst = fn->add_body();
      inst->set_op(op.getName().stripDialect().str());
      for (Value v : op.getOperands())
        inst->add_inputs(ids.lookup(v));
      for (auto [i, result] : llvm::enumerate(op.getResults())) {
        FailureOr<program::DType> dtype = dtypeOf(result.getType());
        if (failed(dtype))
          return op.emitOpError("result type ")
                 << result.getType() << " has no program equivalent";
        int32_t id = addTensor(
            prog,
            llvm::formatv("{0}.{1}", inst->op(), prog.tensors_size()).str(),
            *dtype, cast<RankedTensorType>(result.getType()).getShape(),
            gradient ? program::Tensor::GRADIENT : program::Tensor::ACTIVATION);
        if (!gradient)
          prog.mutable_tensors(id)->set_offset(offsets[i]);
        ids[result] = id;
        inst->add_outputs(id);
      }
      NamedAttrList attrs(op.getAttrDictionary());
      op.getName().populateDefaultAttrs(attrs);
      for (NamedAttribute named : attrs) {
        if (named.getName().strref().starts_with(abi::kCompilerAttrPrefix))
          continue; // compiler bookkeeping, not semantics
        FailureOr<program::Attribute> value =
            toProto(named.getName().strref(), named.getValue());
        if (failed(value))
          return op.emitOpError("attribute '")
                 << named.getName() << "' has no program equivalent";
        (*inst->mutable_attrs())[named.getName().str()] = *value;
      }
    }
    return success();
  }

  /// The cut and the schedule of a pipelined module (tpc-pipeline).
  static LogicalResult exportPipeline(ModuleOp module, program::Program &prog) {
    auto cut = module->getAttrOfType<DictionaryAttr>(abi::kPipelineAttr);
    if (!cut)
      return success();
    auto integer = [&](StringRef key) -> int64_t {
      auto attr = dyn_cast_or_null<IntegerAttr>(cut.get(key));
      return attr ? attr.getInt() : 0;
    };
    auto schedule = dyn_cast_or_null<StringAttr>(cut.get("schedule"));
    if (!schedule)
      return module.emitError("the module is cut into pipeline chunks but "
                              "not scheduled; run tpc-pipeline before "
                              "tpc-export");
    pipeline::ScheduleKind kind;
    if (!pipeline::parse_schedule(schedule.getValue(), kind))
      return module.emitError("unknown pipeline schedule '")
             << schedule.getValue() << "'";
    program::Pipeline &p = *prog.mutable_pipeline();
    prog.set_pp(integer("stages"));
    p.set_stages(integer("stages"));
    p.set_virtual_stages(integer("virtual_stages"));
    p.set_micro_batches(integer("micro_batches"));
    p.set_schedule(schedule.getValue().str());
    for (int64_t n : cast<DenseI64ArrayAttr>(cut.get("layers")).asArrayRef())
      p.add_layers(n);
    // The schedule the pass recorded, rebuilt from its parameters: the
    // same deterministic construction.
    pipeline::Schedule plan = pipeline::build_schedule(
        kind, int(p.stages()), int(p.virtual_stages()), int(p.micro_batches()));
    for (int n : plan.slots)
      p.add_slots(n);
    for (const auto &list : plan.actions) {
      program::Pipeline::Stage *stage = p.add_stage_actions();
      for (const pipeline::Action &a : list) {
        program::Pipeline::Action *action = stage->add_actions();
        action->set_kind(program::Pipeline::Action::Kind(int(a.kind)));
        action->set_chunk(a.chunk);
        action->set_micro(a.micro);
        action->set_slot(a.slot);
      }
    }
    return success();
  }

  /// The facts about the model that the runtime reads from Program.model.
  static LogicalResult exportModel(ModuleOp module, program::Model &model) {
    // The loss ops of every function agree on the vocabulary and the
    // ignore index: forward and train_step compute the same loss.
    Operation *first = nullptr;
    for (auto func : module.getOps<func::FuncOp>()) {
      WalkResult walk = func.walk([&](Operation *op) {
        struct Loss {
          int64_t vocab, ignore;
          bool parallel;
        };
        std::optional<Loss> loss =
            llvm::TypeSwitch<Operation *, std::optional<Loss>>(op)
                .Case([](CrossEntropyOp ce) -> std::optional<Loss> {
                  if (ce.getClassifier())
                    return std::nullopt;
                  auto logits = cast<ShapedType>(ce.getLogits().getType());
                  return Loss{logits.getShape().back(),
                              int64_t(ce.getIgnoreIndex()), false};
                })
                .Case([](VocabParallelCrossEntropyOp ce) {
                  return Loss{int64_t(ce.getVocabSize()),
                              int64_t(ce.getIgnoreIndex()), true};
                })
                .Default([](Operation *) { return std::nullopt; });
        if (!loss)
          return WalkResult::advance();
        if (first && (model.vocab() != loss->vocab ||
                      model.ignore_index() != loss->ignore ||
                      model.vocab_parallel() != loss->parallel)) {
          op->emitOpError("disagrees with ")
              << first->getName() << " in function '"
              << first->getParentOfType<func::FuncOp>().getSymName()
              << "' on the vocabulary or the ignore index; a program has "
                 "one loss";
          return WalkResult::interrupt();
        }
        first = op;
        model.set_vocab(loss->vocab);
        model.set_ignore_index(loss->ignore);
        model.set_vocab_parallel(loss->parallel);
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return failure();
    }

    if (auto decode = module.lookupSymbol<func::FuncOp>(abi::kDecodeStep)) {
      int64_t capacity = 0;
      decode.walk([&](Operation *op) {
        int64_t c =
            llvm::TypeSwitch<Operation *, int64_t>(op)
                .Case([](DecodeAttentionOp a) {
                  return int64_t(a.getCapacity());
                })
                .Case(
                    [](DecodeGroupedAttentionOp a) { return a.getCapacity(); })
                .Case([](DecodeCrossAttentionOp a) { return a.getCapacity(); })
                .Case([](PositionEmbeddingOp p) {
                  return cast<ShapedType>(p.getTable().getType()).getDimSize(0);
                })
                .Default([](Operation *) { return int64_t(0); });
        if (c > 0 && (capacity == 0 || c < capacity))
          capacity = c;
      });
      model.set_decode_capacity(capacity);
    }

    auto apply = module.lookupSymbol<func::FuncOp>(abi::kApplyStep);
    if (!apply)
      apply = module.lookupSymbol<func::FuncOp>(abi::stage_apply_step(0));
    if (apply) {
      bool adamw = !apply.getOps<AdamWUpdateOp>().empty();
      bool sgd = !apply.getOps<SgdUpdateOp>().empty();
      if (adamw && sgd)
        return apply.emitOpError("mixes adamw_update and sgd_update; a "
                                 "program has one optimizer");
      model.set_optimizer(adamw ? program::Model::ADAMW
                          : sgd ? program::Model::SGD
                                : program::Model::NO_OPTIMIZER);
    }
    return success();
  }

  static int32_t addTensor(program::Program &prog, StringRef name,
                           program::DType dtype, ArrayRef<int64_t> shape,
                           program::Tensor::Storage storage) {
    program::Tensor *t = prog.add_tensors();
    int32_t id = prog.tensors_size() - 1;
    t->set_id(id);
    t->set_name(name.str());
    t->set_dtype(dtype);
    for (int64_t d : shape)
      t->add_shape(d);
    t->set_storage(storage);
    t->set_offset(storage == program::Tensor::ACTIVATION ? 0 : -1);
    return id;
  }

  static std::string summarize(const program::Program &prog) {
    int64_t global = 0, local = 0;
    for (const program::Parameter &p : prog.parameters()) {
      // The global count leaves the vocabulary padding out.
      int64_t n = 1;
      for (int i = 0; i < p.global_shape_size(); ++i)
        n *= p.valid_extent() > 0 && i == p.layout().dim() ? p.valid_extent()
                                                           : p.global_shape(i);
      global += n;
      local += num_elements(prog.tensors(p.tensor()).shape());
    }
    return llvm::formatv("tp={0} dp={1} micro-batch={2} seq={3} "
                         "parameters={4} per-rank={5}",
                         prog.tp(), prog.dp(), prog.micro_batch(), prog.seq(),
                         global, local);
  }

  llvm::DenseMap<Attribute, int32_t> paramTensors;
};
} // namespace
