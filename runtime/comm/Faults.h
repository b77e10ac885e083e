//===- Faults.h - Faults raised at named points, for tests -----*- C++ -*-===//
//
// Races between ranks (a peer stopped just before or just after it joins a
// collective) cannot be produced reliably from outside the job. A test names
// the point instead, in the environment of the job:
//
//   TPC_FAULTS="1:9:after-agreement:STOP,0:9:before-agreement:TERM"
//
// makes world rank 1 stop itself right after the step-boundary agreement of
// step 9 and world rank 0 send itself SIGTERM before it, every time. A step
// of 0 matches any step (the points outside the training loop).
//
//   TPC_FAULTS="1:5:gradients:OVERFLOW"
//
// makes one of world rank 1's gradients of step 5 infinite after the
// backward pass, as an fp16 gradient beyond 65504 would be. Only the
// signals named below and OVERFLOW are accepted; anything else in the
// variable is an error, so a misspelt fault cannot make a test pass by not
// happening.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_COMM_FAULTS_H
#define TPC_RUNTIME_COMM_FAULTS_H

#include <cstdint>

namespace tpc {

/// Raises the signal that TPC_FAULTS names for (world_rank, step, point),
/// if any; at most once per entry. Throws std::runtime_error when the
/// variable is malformed. Points in use: "before-agreement" and
/// "after-agreement" (the step boundary of train), "mid-schedule" (a
/// pipeline stage's first forward of a step), "before-exit-barrier"
/// and "before-finalize" (the end of every job).
void fault_point(const char *point, int world_rank, int64_t step);

/// Whether TPC_FAULTS makes this rank's gradients of `step` overflow; true
/// at most once per entry.
bool gradient_overflow_injected(int world_rank, int64_t step);

/// Whether TPC_FAULTS makes any rank's gradients of `step` overflow: the
/// same answer on every rank, however often asked.
bool gradient_overflow_planned(int64_t step);

} // namespace tpc

#endif // TPC_RUNTIME_COMM_FAULTS_H
