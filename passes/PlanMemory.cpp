//===- PlanMemory.cpp - Liveness-based arena planning -----------*- C++ -*-===//

#include "passes/Passes.h"
#include "runtime/program/Abi.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseSet.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>

namespace tpc {
#define GEN_PASS_DEF_PLANMEMORY
#include "passes/Passes.h.inc"
} // namespace tpc

using namespace mlir;
using namespace tpc;

namespace {
/// First-fit allocator over one address range; freed neighbours merge.
class Arena {
public:
  explicit Arena(int64_t alignment) : alignment(alignment) {}

  int64_t allocate(int64_t bytes) {
    bytes = roundUp(std::max<int64_t>(bytes, 1));
    for (auto it = free.begin(); it != free.end(); ++it) {
      if (it->second < bytes)
        continue;
      int64_t offset = it->first, left = it->second - bytes;
      free.erase(it);
      if (left > 0)
        free[offset + bytes] = left;
      return offset;
    }
    // Grow the arena, absorbing a free range that ends at the top.
    int64_t offset = top;
    if (!free.empty()) {
      auto last = std::prev(free.end());
      if (last->first + last->second == top) {
        offset = last->first;
        free.erase(last);
      }
    }
    top = offset + bytes;
    return offset;
  }

  void release(int64_t offset, int64_t bytes) {
    bytes = roundUp(std::max<int64_t>(bytes, 1));
    auto next = free.lower_bound(offset);
    if (next != free.end() && offset + bytes == next->first) {
      bytes += next->second;
      next = free.erase(next);
    }
    if (next != free.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == offset) {
        prev->second += bytes;
        return;
      }
    }
    free[offset] = bytes;
  }

  int64_t size() const { return top; }

private:
  int64_t roundUp(int64_t n) const {
    return (n + alignment - 1) / alignment * alignment;
  }

  int64_t alignment;
  int64_t top = 0;
  std::map<int64_t, int64_t> free; // offset -> bytes
};

/// Bytes of a statically shaped tensor, or failure.
FailureOr<int64_t> bytesOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return failure();
  int64_t bits = tensor.getElementTypeBitWidth();
  return tensor.getNumElements() * ((bits + 7) / 8);
}

/// The functions planned as one: a pipeline chunk's forward, backward_input
/// and backward_weight share one arena, a kept argument (tpc.from) lying on
/// the bytes of the result it is; any other function is planned alone.
struct Group {
  SmallVector<func::FuncOp> funcs;
  /// Arguments live in the arena (chunk functions) rather than in buffers
  /// of their own.
  bool argsInArena = false;
};

struct PlanMemoryPass : public tpc::impl::PlanMemoryBase<PlanMemoryPass> {
  using PlanMemoryBase::PlanMemoryBase;

  void runOnOperation() override {
    if (alignment < 1 || (alignment & (alignment - 1)) != 0) {
      getOperation().emitError("alignment must be a power of two, got ")
          << alignment;
      return signalPassFailure();
    }
    std::map<int64_t, Group> chunks;
    SmallVector<Group> groups;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      auto info = func->getAttrOfType<DictionaryAttr>(abi::kChunkFunctionAttr);
      int64_t role = info ? cast<IntegerAttr>(info.get("role")).getInt() : -1;
      if (!info || role == 3) {
        groups.push_back({{func}, static_cast<bool>(info)});
        continue;
      }
      Group &g = chunks[cast<IntegerAttr>(info.get("chunk")).getInt()];
      g.argsInArena = true;
      if (g.funcs.size() < 3)
        g.funcs.resize(3);
      g.funcs[role] = func;
    }
    for (auto &[chunk, g] : chunks) {
      if (llvm::any_of(g.funcs, [](func::FuncOp f) { return !f; })) {
        getOperation().emitError("pipeline chunk ")
            << chunk << " lacks one of its forward, backward_input and "
            << "backward_weight functions";
        return signalPassFailure();
      }
      groups.push_back(g);
    }
    for (Group &g : groups)
      if (failed(plan(g)))
        return signalPassFailure();
  }

  LogicalResult plan(Group g) {
    for (func::FuncOp func : g.funcs)
      if (!func.getBody().hasOneBlock())
        return func.emitError("memory planning needs single-block functions");
    // Results in place usually make the arena smaller, but first fit can
    // then place the other buffers worse: the smaller plan is kept.
    FailureOr<int64_t> inPlace = place(g, true, false);
    if (failed(inPlace))
      return failure();
    FailureOr<int64_t> apart = place(g, false, false);
    if (failed(apart))
      return failure();
    return success(succeeded(place(g, *inPlace <= *apart, true)));
  }

  /// Places every result of the group's functions (and their arguments,
  /// with argsInArena) in one timeline, function after function; with
  /// `inPlace`, the results of abi::reuses_operand_bytes ops on a dying
  /// operand. Returns the arena size, and with `record` writes the offsets
  /// and the size on the ops and functions.
  FailureOr<int64_t> place(Group g, bool inPlace, bool record) {
    // A kept argument is the value its producer returned.
    llvm::DenseMap<Value, Value> alias;
    for (func::FuncOp func : g.funcs)
      for (BlockArgument arg : func.getArguments())
        if (auto from = func.getArgAttrOfType<DenseI64ArrayAttr>(
                arg.getArgNumber(), abi::kFromAttr)) {
          func::FuncOp producer = g.funcs[from[0]];
          Operation *ret = producer.getBody().front().getTerminator();
          if (from.size() != 2 || from[1] >= ret->getNumOperands())
            return func.emitError("argument #")
                   << arg.getArgNumber() << " is kept from a result that "
                   << producer.getSymName() << " does not return";
          alias[arg] = ret->getOperand(from[1]);
        }
    auto canonical = [&](Value v) {
      while (Value next = alias.lookup(v))
        v = next;
      return v;
    };
    // Positions: each function's arguments at its start, then its ops.
    llvm::DenseMap<Operation *, int64_t> position;
    SmallVector<int64_t> starts;
    int64_t index = 0;
    for (func::FuncOp func : g.funcs) {
      starts.push_back(index++);
      for (Operation &op : func.getBody().front())
        position[&op] = index++;
    }
    const int64_t end = index;
    // Last reader of every value; what a function returns and no later
    // function takes as kept (the messages it sends, the loss) lives to the
    // end, so that a send in flight keeps its bytes.
    llvm::DenseMap<Value, int64_t> lastUse;
    for (func::FuncOp func : g.funcs)
      for (Operation &op : func.getBody().front())
        for (Value v : op.getOperands()) {
          v = canonical(v);
          // A pipeline message leaves after its function has run.
          int64_t at = isa<func::ReturnOp, SendOp>(op) ? end : position[&op];
          lastUse[v] = std::max(lastUse.lookup(v), at);
        }
    // The runtime writes a chunk function's arguments (the step's data) and
    // posts its receives before it runs, whether or not its ops read them:
    // an argument keeps its bytes through its function.
    if (g.argsInArena)
      for (func::FuncOp func : g.funcs) {
        int64_t last = position[func.getBody().front().getTerminator()];
        for (BlockArgument arg : func.getArguments())
          lastUse[canonical(arg)] =
              std::max(lastUse.lookup(canonical(arg)), last);
      }
    if (g.funcs.size() > 1) {
      // Kept results die with their last kept reader instead.
      llvm::DenseMap<Value, int64_t> keptUse;
      for (func::FuncOp func : g.funcs)
        for (Operation &op : func.getBody().front())
          for (Value v : op.getOperands())
            if (alias.count(v) && !isa<func::ReturnOp>(op))
              keptUse[canonical(v)] =
                  std::max(keptUse.lookup(canonical(v)), position[&op]);
      llvm::DenseSet<Value> toEnd;
      SmallVector<Value> kept;
      for (func::FuncOp func : g.funcs) {
        for (SendOp send : func.getOps<SendOp>())
          toEnd.insert(canonical(send.getInput()));
        Operation *ret = func.getBody().front().getTerminator();
        // The results nothing takes as kept (the last chunk's loss sum and
        // count) the runtime reads after the function.
        for (Value v : ret->getOperands()) {
          if (!keptUse.count(canonical(v)))
            toEnd.insert(canonical(v));
          else
            kept.push_back(canonical(v));
        }
      }
      for (Value v : kept)
        if (!toEnd.count(v))
          lastUse[v] = keptUse.lookup(v);
    }
    // A pipeline chunk's values that outlive their function (its
    // arguments, the messages, what a later function keeps, the loss) lie
    // in the micro-batch's slot, one per micro-batch in flight; the rest
    // are one function's temporaries, in a scratch region after the slot
    // that every micro-batch and chunk of the stage shares, since a rank
    // runs one function at a time. Other functions have only the first.
    const bool split = g.funcs.size() > 1;
    llvm::DenseSet<Value> slotValues;
    if (split)
      for (auto [f, func] : llvm::enumerate(g.funcs)) {
        Block &body = func.getBody().front();
        int64_t last = position[body.getTerminator()];
        for (BlockArgument arg : body.getArguments())
          slotValues.insert(canonical(arg));
        for (Operation &op : body) {
          if (isa<RecvOp>(op))
            slotValues.insert(op.getResult(0));
          for (Value r : op.getResults())
            if (lastUse.lookup(r) > last)
              slotValues.insert(r);
        }
      }
    auto inSlot = [&](Value v) { return !split || slotValues.count(v); };
    Arena slot(alignment), scratch(alignment);
    auto arenaOf = [&](Value v) -> Arena & {
      return inSlot(v) ? slot : scratch;
    };
    llvm::DenseMap<Value, int64_t> offsets;
    // Operands whose bytes a result took over (abi::reuses_operand_bytes).
    llvm::DenseSet<Value> handedOver;
    // Values whose buffers are released after the op at a position.
    std::vector<SmallVector<Value>> dying(end + 1);
    Builder builder(g.funcs.front().getContext());
    // Offsets are written once the slot's size is known: a scratch value's
    // lies after the slot.
    SmallVector<std::pair<Operation *, SmallVector<Value>>> placedOps;
    SmallVector<std::pair<func::FuncOp, SmallVector<Value>>> placedArgs;
    auto placeValue = [&](Value v, int64_t at) -> FailureOr<int64_t> {
      FailureOr<int64_t> bytes = bytesOf(v.getType());
      if (failed(bytes))
        return failure();
      int64_t offset = arenaOf(v).allocate(*bytes);
      offsets[v] = offset;
      dying[lastUse.count(v) ? lastUse[v] : at].push_back(v);
      return offset;
    };
    auto release = [&](Value v) {
      arenaOf(v).release(offsets[v], *bytesOf(v.getType()));
    };
    for (auto [f, func] : llvm::enumerate(g.funcs)) {
      Block &body = func.getBody().front();
      if (g.argsInArena) {
        SmallVector<Value> args;
        for (BlockArgument arg : body.getArguments()) {
          Value v = canonical(arg);
          if (!offsets.count(v) && failed(placeValue(v, starts[f])))
            return func.emitError("argument #")
                   << arg.getArgNumber() << " of type " << arg.getType()
                   << " has no static shape";
          args.push_back(v);
        }
        placedArgs.push_back({func, args});
        // Arguments nobody reads die at once.
        for (Value v : dying[starts[f]])
          release(v);
        dying[starts[f]].clear();
      }
      for (Operation &op : body) {
        int64_t at = position[&op];
        // Parameters and their gradient buffers are the runtime's.
        if (!isa<GetParamOp, GetGradOp>(op) && op.getNumResults() > 0) {
          for (Value result : op.getResults()) {
            FailureOr<int64_t> bytes = bytesOf(result.getType());
            if (failed(bytes))
              return op.emitOpError("result type ")
                     << result.getType()
                     << " has no static shape; fix the batch and sequence "
                        "length first (tpc-specialize, or tpc-compile "
                        "--micro-batch --seq)";
            Value input = inPlace &&
                                  abi::reuses_operand_bytes(
                                      op.getName().stripDialect()) &&
                                  op.getNumOperands() == 1
                              ? canonical(op.getOperand(0))
                              : Value();
            bool takes = input && offsets.count(input) &&
                         lastUse.lookup(input) == at &&
                         inSlot(input) == inSlot(result);
            int64_t offset =
                takes ? offsets[input] : arenaOf(result).allocate(*bytes);
            if (takes)
              handedOver.insert(input);
            offsets[result] = offset;
            // A result nobody reads dies right after its op.
            dying[lastUse.count(result) ? lastUse[result] : at].push_back(
                result);
          }
          placedOps.push_back({&op, SmallVector<Value>(op.getResults().begin(),
                                                       op.getResults().end())});
        }
        // Inputs whose last use is this op are released only after its
        // outputs are placed, so an op never writes over what it reads (but
        // for a result that took its operand's bytes).
        for (Value v : dying[at])
          if (!handedOver.count(v))
            release(v);
      }
    }
    const int64_t slotBytes = slot.size();
    auto finalOffset = [&](Value v) {
      return inSlot(v) ? offsets[v] : slotBytes + offsets[v];
    };
    if (record) {
      for (auto &[op, results] : placedOps) {
        SmallVector<int64_t> o;
        for (Value r : results)
          o.push_back(finalOffset(r));
        op->setAttr(abi::kOffsetsAttr, builder.getDenseI64ArrayAttr(o));
      }
      for (auto &[func, args] : placedArgs) {
        SmallVector<int64_t> o;
        for (Value a : args)
          o.push_back(finalOffset(a));
        func->setAttr(abi::kArgOffsetsAttr, builder.getDenseI64ArrayAttr(o));
      }
      for (func::FuncOp func : g.funcs) {
        func->setAttr(abi::kArenaBytesAttr,
                      builder.getI64IntegerAttr(slotBytes + scratch.size()));
        if (split)
          func->setAttr(abi::kSlotBytesAttr,
                        builder.getI64IntegerAttr(slotBytes));
      }
    }
    // The memory a stage holds per micro-batch in flight weighs most.
    return split ? slotBytes * 4 + scratch.size() : slotBytes;
  }
};
} // namespace
