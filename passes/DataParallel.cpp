//===- DataParallel.cpp - Bucketed gradient all-reduce over dp --*- C++ -*-===//
//
// Sums every parameter's gradient over the data-parallel group at the start
// of `apply_step`, in buckets of at most bucket-bytes, taking parameters in
// reverse module order (the order backward finishes them) as PyTorch DDP
// does: all-reduced, or reduce-scattered into each rank's shard for the
// distributed optimizer.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/TrainingStep.h"

#include "mlir/IR/Builders.h"

namespace tpc {
#define GEN_PASS_DEF_DATAPARALLEL
#include "passes/Passes.h.inc"
} // namespace tpc

using namespace mlir;
using namespace tpc;

namespace {
struct DataParallelPass : public tpc::impl::DataParallelBase<DataParallelPass> {
  using DataParallelBase::DataParallelBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    StringRef pass = getArgument();
    if (bucketBytes < 1) {
      module.emitError(pass) << ": bucket-bytes must be >= 1, got "
                             << static_cast<int64_t>(bucketBytes);
      return signalPassFailure();
    }
    FailureOr<SmallVector<LocalParam>> params =
        collectLocalParams(module, pass);
    FailureOr<int64_t> dp = getModuleDp(module, pass);
    if (failed(params) || failed(dp))
      return signalPassFailure();
    if (*dp == 1)
      return;

    FailureOr<func::FuncOp> applyStep = getOrCreateApplyStep(module, pass);
    if (failed(applyStep))
      return signalPassFailure();
    if (!applyStep->getOps<BucketAllReduceOp>().empty() ||
        !applyStep->getOps<BucketReduceScatterOp>().empty()) {
      applyStep->emitError(pass)
          << ": '@" << kApplyStepName
          << "' already reduces gradients over dp; run " << pass << " once";
      return signalPassFailure();
    }
    // The partitioned update needs the optimizer built with the partition
    // known: the norm's reduction over dp and the gathers are its part.
    if (distributedOptimizer)
      for (Operation &op : applyStep->getBody().front())
        if (!isa<func::ReturnOp>(op)) {
          applyStep->emitError(pass)
              << ": '@" << kApplyStepName
              << "' already has an optimizer step ('" << op.getName()
              << "'); with distributed-optimizer, run " << pass
              << " before tpc-optimizer";
          return signalPassFailure();
        }

    // Buckets of consecutive parameters, newest gradients first; a bucket
    // closes before it would exceed the bound or mix gradient element types
    // (or, when its parameters are gathered, compute types), and a parameter
    // larger than the bound travels alone.
    SmallVector<SmallVector<Attribute>> buckets;
    int64_t bytes = 0;
    std::pair<Type, Type> element;
    for (LocalParam &p : llvm::reverse(*params)) {
      std::pair<Type, Type> e{
          p.localType.getElementType(),
          distributedOptimizer ? p.param.getComputeElementType() : Type()};
      if (buckets.empty() || e != element ||
          bytes + p.localBytes > bucketBytes) {
        buckets.emplace_back();
        bytes = 0;
        element = e;
      }
      buckets.back().push_back(
          FlatSymbolRefAttr::get(p.param.getSymNameAttr()));
      bytes += p.localBytes;
    }

    auto builder = OpBuilder::atBlockBegin(&applyStep->getBody().front());
    auto group = GroupAttr::get(&getContext(), Group::dp);
    for (ArrayRef<Attribute> bucket : buckets) {
      if (distributedOptimizer)
        BucketReduceScatterOp::create(builder, applyStep->getLoc(),
                                      builder.getArrayAttr(bucket), group);
      else
        BucketAllReduceOp::create(builder, applyStep->getLoc(),
                                  builder.getArrayAttr(bucket), group);
    }
  }
};
} // namespace
