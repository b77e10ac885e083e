//===- Search.h - The planner's layout search -------------------*- C++ -*-===//
//
// tpc-plan auto and tpc-compile --auto: the fastest layout of a model on N
// devices of a cluster for a global batch. Only what changes the program is
// compiled (tp, pp, virtual stages, sequence parallelism, recompute); dp,
// the micro-batch size and count, the schedule and the distributed
// optimizer are predicted from that compile's StepProfile. The best
// layouts are then compiled exactly as they would run and predicted again,
// so that the figures printed are those of the program tpc-compile writes.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_COMPILER_SEARCH_H
#define TPC_COMPILER_SEARCH_H

#include "compiler/Cluster.h"
#include "compiler/Pipeline.h"
#include "compiler/StepTime.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace tpc {

struct SearchOptions {
  int64_t devices = 0;
  /// Sequences per optimizer step, all data-parallel ranks together.
  int64_t globalBatch = 0;
  /// Unset: the model's number of positions.
  std::optional<int64_t> seq;
  Precision precision = Precision::fp32;
  /// How many of the fastest layouts to return.
  int64_t top = 5;
  /// Largest tp; 0: the devices of one node.
  int64_t maxTp = 0;
  StepModelOptions model;
};

/// A layout and its predicted step.
struct Layout {
  CompileOptions options;
  StepTime time;
};

struct SearchResult {
  std::vector<Layout> best; ///< fastest first, each compiled exactly
  int64_t compiled = 0;     ///< programs compiled
  int64_t derived = 0;      ///< layouts predicted
  int64_t fit = 0;          ///< of which fit the device memory
  double seconds = 0;       ///< wall time of the search
};

/// Searches the layouts of `module` (left as it is). Errors name the
/// problem and the fix: devices that are not whole nodes, a global batch
/// that no data-parallel size divides, no layout that fits (the smallest
/// footprint found and what to change).
llvm::Expected<SearchResult> searchLayouts(mlir::ModuleOp module,
                                           const SearchOptions &search,
                                           const Cluster &cluster);

/// Compiles a copy of `module` with `options` (resolved in place) and
/// predicts its step: what tpc-plan time prints. With full recompute the
/// layout is compiled without it as well, for the recompute's share.
mlir::FailureOr<StepTime> predictLayout(mlir::ModuleOp module,
                                        CompileOptions &options,
                                        const Cluster &cluster,
                                        const StepModelOptions &model = {});

/// The best layouts, where their time goes and the tpc-compile command of
/// each, as text or as one JSON object.
void printSearchText(const SearchResult &result, const SearchOptions &search,
                     const Cluster &cluster, llvm::StringRef modelFile,
                     llvm::raw_ostream &os);
void printSearchJson(const SearchResult &result, const SearchOptions &search,
                     const Cluster &cluster, llvm::StringRef modelFile,
                     llvm::raw_ostream &os);

/// The tpc-compile command line of a layout; `program` is its -o.
std::string compileCommand(llvm::StringRef modelFile,
                           const CompileOptions &options,
                           llvm::StringRef program);

/// "tp 8, pp 4 (V 2, interleaved, 16 micro-batches), dp 2, micro-batch 1,
/// sequence-parallel, full recompute, distributed optimizer".
std::string describeLayout(const CompileOptions &options);

} // namespace tpc

#endif // TPC_COMPILER_SEARCH_H
