//===- PlanMemory.cpp - Liveness-based arena planning -----------*- C++ -*-===//

#include "passes/Passes.h"
#include "runtime/program/Abi.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseSet.h"

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

struct PlanMemoryPass : public tpc::impl::PlanMemoryBase<PlanMemoryPass> {
  using PlanMemoryBase::PlanMemoryBase;

  void runOnOperation() override {
    if (alignment < 1 || (alignment & (alignment - 1)) != 0) {
      getOperation().emitError("alignment must be a power of two, got ")
          << alignment;
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(plan(func)))
        return signalPassFailure();
  }

  LogicalResult plan(func::FuncOp func) {
    if (!func.getBody().hasOneBlock())
      return func.emitError("memory planning needs single-block functions");
    // Results in place usually make the arena smaller, but first fit can
    // then place the other buffers worse: the smaller plan is kept.
    FailureOr<int64_t> inPlace = place(func, true, false);
    if (failed(inPlace))
      return failure();
    FailureOr<int64_t> apart = place(func, false, false);
    if (failed(apart))
      return failure();
    return success(succeeded(place(func, *inPlace <= *apart, true)));
  }

  /// Places every result of `func`; with `inPlace`, those of
  /// abi::reuses_operand_bytes ops on a dying operand. Returns the arena
  /// size, and with `record` writes the offsets and the size on the ops.
  FailureOr<int64_t> place(func::FuncOp func, bool inPlace, bool record) {
    Block &body = func.getBody().front();
    // Last user position of every value; returned values live to the end.
    llvm::DenseMap<Operation *, int64_t> position;
    int64_t index = 0;
    for (Operation &op : body)
      position[&op] = index++;
    const int64_t end = index;
    llvm::DenseMap<Value, int64_t> lastUse;
    for (Operation &op : body) {
      for (Value v : op.getOperands()) {
        int64_t at = isa<func::ReturnOp>(op) ? end : position[&op];
        lastUse[v] = std::max(lastUse.lookup(v), at);
      }
    }
    Arena arena(alignment);
    llvm::DenseMap<Value, int64_t> offsets;
    // Operands whose bytes a result took over (abi::reuses_operand_bytes).
    llvm::DenseSet<Value> handedOver;
    // Values whose buffers are released after the op at a position.
    std::vector<SmallVector<Value>> dying(end + 1);
    Builder builder(func.getContext());
    for (Operation &op : body) {
      int64_t at = position[&op];
      // Parameters and their gradient buffers are the runtime's.
      if (!isa<GetParamOp, GetGradOp>(op) && op.getNumResults() > 0) {
        SmallVector<int64_t> opOffsets;
        for (Value result : op.getResults()) {
          FailureOr<int64_t> bytes = bytesOf(result.getType());
          if (failed(bytes))
            return op.emitOpError("result type ")
                   << result.getType()
                   << " has no static shape; fix the batch and sequence "
                      "length first (tpc-specialize, or tpc-compile "
                      "--micro-batch --seq)";
          Value input =
              inPlace &&
                      abi::reuses_operand_bytes(op.getName().stripDialect()) &&
                      op.getNumOperands() == 1
                  ? op.getOperand(0)
                  : Value();
          bool takes =
              input && offsets.count(input) && lastUse.lookup(input) == at;
          int64_t offset = takes ? offsets[input] : arena.allocate(*bytes);
          if (takes)
            handedOver.insert(input);
          offsets[result] = offset;
          opOffsets.push_back(offset);
          // A result nobody reads dies right after its op.
          dying[lastUse.count(result) ? lastUse[result] : at].push_back(result);
        }
        if (record)
          op.setAttr(abi::kOffsetsAttr,
                     builder.getDenseI64ArrayAttr(opOffsets));
      }
      // Inputs whose last use is this op are released only after its outputs
      // are placed, so an op never writes over what it reads (but for a
      // result that took its operand's bytes).
      for (Value v : dying[at])
        if (!handedOver.count(v))
          arena.release(offsets[v], *bytesOf(v.getType()));
    }
    if (record)
      func->setAttr(abi::kArenaBytesAttr,
                    builder.getI64IntegerAttr(arena.size()));
    return arena.size();
  }
};
} // namespace
