//===- TpcCost.h - What an op costs on one rank -----------------*- C++ -*-===//
//
// The cost of one op as the cost report, the pipeline cut and the planner
// count it: matrix-product FLOPs from the op's CostOpInterface (the linears,
// their gradients and the attention ops implement it), and the bytes it
// reads and writes, which set the time of every other op.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_DIALECTS_TPC_TPCCOST_H
#define TPC_DIALECTS_TPC_TPCCOST_H

#include "dialects/tpc/TpcInterfaces.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Operation.h"

namespace tpc {

/// Attaches the CostOpInterface to the matrix-product ops.
void registerCostOpModels(mlir::DialectRegistry &registry);

struct OpCostFigures {
  double matmulFlops = 0; ///< 0 for an op without the interface
  double bytes = 0;       ///< its tensor operands and results, once each
};

/// What `op` costs on this rank, with the shapes it has.
OpCostFigures opCost(mlir::Operation *op);

} // namespace tpc

#endif // TPC_DIALECTS_TPC_TPCCOST_H
