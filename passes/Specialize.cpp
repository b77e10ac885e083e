//===- Specialize.cpp - Fix batch and sequence dimensions -------*- C++ -*-===//

#include "passes/Passes.h"
#include "passes/Utils.h"
#include "runtime/program/Abi.h"

#include "mlir/IR/BuiltinTypes.h"

namespace tpc {
#define GEN_PASS_DEF_SPECIALIZE
#include "passes/Passes.h.inc"
} // namespace tpc

using namespace mlir;
using namespace tpc;

namespace {
struct SpecializePass : public tpc::impl::SpecializeBase<SpecializePass> {
  using SpecializeBase::SpecializeBase;

  void runOnOperation() override {
    if (batch < 0 || seq < 0) {
      getOperation().emitError("batch and seq must be >= 0 (0 keeps the "
                               "model's own), got batch=")
          << int64_t(batch) << " seq=" << int64_t(seq);
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      // Ids [B, T] (tokens, targets, token types) and per-sequence values
      // [B] (key lengths) or [B, 1] (sentence-order labels).
      for (BlockArgument arg : func.getArguments()) {
        auto type = dyn_cast<RankedTensorType>(arg.getType());
        if (!type || type.getRank() < 1 || type.getRank() > 2 ||
            !type.getElementType().isInteger(32))
          continue;
        auto what = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                      abi::kInputAttr);
        bool perSequence =
            type.getRank() == 1 ||
            (what && what.getValue() == abi::kSentenceOrderInput);
        SmallVector<int64_t> shape(type.getShape());
        if (batch > 0)
          shape[0] = batch;
        if (seq > 0 && !perSequence)
          shape[1] = seq;
        arg.setType(RankedTensorType::get(shape, type.getElementType()));
      }
      if (failed(refreshResultTypes(func)))
        return signalPassFailure();
    }
  }
};
} // namespace
