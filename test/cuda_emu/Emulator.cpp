//===- Emulator.cpp - Blocks, barriers and the runtime's calls ------------===//
//
// The machinery behind Emulator.h. The threads of a block are fibers: each
// has a stack of its own, and one OS thread (the caller's) runs them, a
// fiber at a time, switching only where a CUDA thread waits (a barrier, a
// warp rendezvous) or returns. A fiber runs until it waits, then the next
// ready one in thread order (up from thread 0, or down from the last, as
// set_schedule says), except that the lanes a completed warp rendezvous
// releases run next: the schedule is the same on every run, and the first
// warp runs as far ahead of the others as the block barriers let it, so a
// missing barrier shows as a read of poisoned shared memory or of a value
// overwritten too early. (With an OS thread per CUDA thread, as in the
// experiment this grew from, one attention forward of 74 queries spent
// over five seconds in futex waits; a fiber switch takes nanoseconds.)
// Also here: the host thread's last error, and the stand-ins for what the
// kernels take from the CUDA backend's host code (Scratch, Blas).
//
//===----------------------------------------------------------------------===//

#include "test/cuda_emu/Emulator.h"

#include "runtime/backends/cuda/MemoryTally.h"
#include "runtime/backends/cuda/kernels/Common.cuh"
#include "test/cuda_emu/Blas.h"

#include <cstdlib>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

#if defined(__x86_64__) && !defined(__CET__)
#define TPC_EMU_SWITCH_ASM 1
#else
#include <ucontext.h>
#endif

// AddressSanitizer keeps shadow state per stack: it is told of every switch
// (sanitizer/common_interface_defs.h), or it takes a fiber's frames for
// overflows of the stack it thinks is current.
#if defined(__SANITIZE_ADDRESS__)
#define TPC_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TPC_EMU_ASAN 1
#endif
#endif
#if TPC_EMU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

//===----------------------------------------------------------------------===//
// Switching stacks
//===----------------------------------------------------------------------===//

#if TPC_EMU_SWITCH_ASM
// tpc_emu_switch(save, next): saves the callee-saved registers, MXCSR and
// the x87 control word on the current stack, stores the stack pointer in
// *save, and resumes the stack `next` saved the same way. (glibc's
// swapcontext does the same and a system call for the signal mask, 25
// times slower.)
extern "C" void tpc_emu_switch(void **save, void *next);
asm(R"(
  .text
  .p2align 4
  .globl tpc_emu_switch
  .hidden tpc_emu_switch
  .type tpc_emu_switch,@function
tpc_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size tpc_emu_switch, .-tpc_emu_switch
)");
#endif

namespace tpc_emu {
namespace {

/// The arguments printed one after another.
template <class... A> std::string str(const A &...a) {
  std::ostringstream os;
  (os << ... << a);
  return os.str();
}

//===----------------------------------------------------------------------===//
// Limits of the device (sm_90)
//===----------------------------------------------------------------------===//

constexpr unsigned kMaxThreads = 1024;
constexpr size_t kStaticSmemLimit = 48 * 1024;
constexpr size_t kDefaultDynamicSmem = 48 * 1024;
constexpr size_t kMaxSmem = 227 * 1024;
constexpr unsigned char kPoison = 0xff;

//===----------------------------------------------------------------------===//
// The host thread's errors
//===----------------------------------------------------------------------===//

thread_local cudaError_t t_last_error = cudaSuccess;
thread_local std::string t_last_message;
thread_local cudaError_t t_reported_error = cudaSuccess;
thread_local std::string t_reported_message;

void set_error(cudaError_t err, const std::string &message) {
  if (t_last_error != cudaSuccess)
    return; // the first error sticks until it is read
  t_last_error = err;
  t_last_message = message;
}

std::mutex g_host_errors_mutex;
std::string g_host_errors;

std::mutex g_attributes_mutex;
std::map<const void *, int> g_max_dynamic_smem;

//===----------------------------------------------------------------------===//
// Fibers
//===----------------------------------------------------------------------===//

/// A fiber's stack: mapped on first use and kept for later blocks, with an
/// inaccessible page below it, so that an overflow faults instead of
/// writing over another stack.
class Stack {
public:
  static constexpr size_t kBytes = size_t(256) << 10;

  Stack() {
    page_ = size_t(sysconf(_SC_PAGESIZE));
    base_ = mmap(nullptr, kBytes + page_, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base_ == MAP_FAILED)
      throw std::runtime_error("the CUDA emulator could not map a stack");
    mprotect(base_, page_, PROT_NONE);
  }
  ~Stack() { munmap(base_, kBytes + page_); }
  Stack(const Stack &) = delete;
  Stack &operator=(const Stack &) = delete;

  char *bottom() const { return static_cast<char *>(base_) + page_; }
  char *top() const { return bottom() + kBytes; }

private:
  void *base_;
  size_t page_;
};

/// Unwinds the fibers of a cancelled block.
struct Cancelled {};

class Block;

struct Fiber {
  enum State { Unstarted, Ready, Waiting, Done };
  State state = Unstarted;
  void *asan_fake_stack = nullptr;
#if TPC_EMU_SWITCH_ASM
  void *sp = nullptr;
#else
  ucontext_t context;
#endif
  // Where it waits, for a deadlock's message.
  const char *what = nullptr;
  uint32_t mask = 0;
};

/// One rendezvous of the lanes of a mask.
struct Group {
  uint32_t mask = 0;
  const char *what = nullptr;
  uint32_t arrived = 0;
  uint32_t unread = 0;
  bool complete = false;
  unsigned char slots[32][kSlotBytes];
};

struct Warp {
  uint32_t lanes = 0;  // that exist
  uint32_t exited = 0; // of those
  std::list<Group> groups;
};

/// Memory aligned to 256 bytes, filled with kPoison.
struct Poisoned {
  std::unique_ptr<unsigned char[]> owner;
  unsigned char *ptr = nullptr;

  explicit Poisoned(size_t bytes) {
    owner.reset(new unsigned char[bytes + 256]);
    auto a = reinterpret_cast<uintptr_t>(owner.get());
    ptr = owner.get() + (256 - a % 256) % 256;
    std::memset(ptr, kPoison, bytes);
  }
};

thread_local Block *t_block = nullptr;
thread_local unsigned t_tid = 0;
thread_local Schedule t_schedule = Schedule::Ascending;
thread_local std::vector<std::unique_ptr<Stack>> t_stacks;

class Block {
public:
  Block(dim3 block_idx, dim3 grid, dim3 block, size_t dynamic_bytes,
        const std::function<void()> &body)
      : threads(block.x * block.y * block.z), live(threads),
        warps((threads + 31) / 32), dynamic(dynamic_bytes),
        dynamic_bytes(dynamic_bytes), block_idx_(block_idx), grid_(grid),
        block_(block), body_(body), fibers_(threads) {
    for (unsigned t = 0; t < threads; ++t)
      warps[t / 32].lanes |= 1u << (t % 32);
    while (t_stacks.size() < threads)
      t_stacks.push_back(std::make_unique<Stack>());
  }

  const unsigned threads;
  unsigned live; // threads that have not returned

  // __syncthreads
  std::vector<unsigned> barrier_arrived;
  int barrier_votes = 0;
  int last_votes = 0, last_arrived = 0; // of the barrier last completed

  std::vector<Warp> warps;

  bool cancelled = false;
  std::string error;

  std::map<const void *, Poisoned> statics;
  size_t static_bytes = 0;
  Poisoned dynamic;
  size_t dynamic_bytes;

  /// Runs every thread to its end (or, once cancelled, to its unwinding).
  void run() {
    for (unsigned i = 0; i < threads; ++i)
      ready_.push_back(t_schedule == Schedule::Ascending ? i : threads - 1 - i);
    while (live > 0) {
      if (ready_.empty()) {
        deadlock(); // readies every waiting fiber to unwind
        if (ready_.empty())
          throw std::logic_error("the CUDA emulator lost a block's threads");
        continue;
      }
      const unsigned t = ready_.front();
      ready_.pop_front();
      Fiber &f = fibers_[t];
      if (cancelled && f.state == Fiber::Unstarted) {
        finish(t); // nothing to unwind
        continue;
      }
      resume(t);
      if (f.state == Fiber::Done)
        finish(t);
    }
  }

  /// The calling fiber waits until a releaser makes it ready; throws
  /// Cancelled if the block is cancelled meanwhile. `completes`: its
  /// arrival completes the barrier, which releases it with the others.
  void wait(const char *what, uint32_t mask, bool completes = false) {
    Fiber &f = fibers_[t_tid];
    f.state = Fiber::Waiting;
    f.what = what;
    f.mask = mask;
    if (completes)
      complete_barrier();
    yield();
    if (cancelled)
      throw Cancelled{};
  }

  /// Makes a waiting thread ready: after those already ready, or, `first`,
  /// before them.
  void release(unsigned tid, bool first = false) {
    Fiber &f = fibers_[tid];
    if (f.state == Fiber::Waiting) {
      f.state = Fiber::Ready;
      if (first)
        ready_.push_front(tid);
      else
        ready_.push_back(tid);
    }
  }

  void complete_barrier() {
    last_votes = barrier_votes;
    last_arrived = int(barrier_arrived.size());
    barrier_votes = 0;
    for (unsigned t : barrier_arrived)
      release(t);
    barrier_arrived.clear();
  }

  /// Records the first error and readies every waiting fiber to unwind.
  void cancel(const std::string &why) {
    if (!cancelled) {
      cancelled = true;
      error = why;
    }
    for (unsigned t = 0; t < threads; ++t)
      release(t);
  }

  [[noreturn]] void fail(const std::string &why) {
    cancel(why);
    throw Cancelled{};
  }

private:
  void resume(unsigned t) {
    Fiber &f = fibers_[t];
    const dim3 d = block_;
    threadIdx = uint3{t % d.x, t / d.x % d.y, t / (d.x * d.y)};
    blockIdx = uint3{block_idx_.x, block_idx_.y, block_idx_.z};
    blockDim = d;
    gridDim = grid_;
    t_tid = t;
    t_block = this;
    if (f.state == Fiber::Unstarted)
      start(t);
    f.state = Fiber::Ready;
#if TPC_EMU_ASAN
    __sanitizer_start_switch_fiber(&scheduler_fake_stack_,
                                   t_stacks[t]->bottom(), Stack::kBytes);
#endif
#if TPC_EMU_SWITCH_ASM
    tpc_emu_switch(&scheduler_sp_, f.sp);
#else
    swapcontext(&scheduler_context_, &f.context);
#endif
#if TPC_EMU_ASAN
    __sanitizer_finish_switch_fiber(scheduler_fake_stack_, nullptr, nullptr);
#endif
  }

  /// Back to the scheduler, from the running fiber; for good once it is
  /// done.
  void yield() {
    Fiber &f = fibers_[t_tid];
#if TPC_EMU_ASAN
    __sanitizer_start_switch_fiber(f.state == Fiber::Done ? nullptr
                                                          : &f.asan_fake_stack,
                                   scheduler_stack_, scheduler_stack_bytes_);
#endif
#if TPC_EMU_SWITCH_ASM
    tpc_emu_switch(&f.sp, scheduler_sp_);
#else
    swapcontext(&f.context, &scheduler_context_);
#endif
    arrived();
  }

  /// The running fiber has just been switched to.
  void arrived() {
#if TPC_EMU_ASAN
    __sanitizer_finish_switch_fiber(fibers_[t_tid].asan_fake_stack,
                                    &scheduler_stack_, &scheduler_stack_bytes_);
#endif
  }

  void start(unsigned t) {
    Fiber &f = fibers_[t];
    Stack &s = *t_stacks[t];
#if TPC_EMU_ASAN
    // The last fiber on this stack never returned: its frames' redzones
    // are still marked.
    __asan_unpoison_memory_region(s.bottom(), Stack::kBytes);
#endif
#if TPC_EMU_SWITCH_ASM
    // The first switch to the fiber pops this frame and returns into
    // fiber_main, as a call would enter it (rsp = 8 mod 16); above it, a
    // null return address ends a debugger's backtrace.
    auto top = reinterpret_cast<uintptr_t>(s.top()) & ~uintptr_t(15);
    auto *sp = reinterpret_cast<uintptr_t *>(top);
    *--sp = 0;
    *--sp = reinterpret_cast<uintptr_t>(&Block::fiber_main);
    for (int i = 0; i < 6; ++i)
      *--sp = 0; // rbp, rbx, r12-r15
    uint32_t mxcsr;
    uint16_t fpucw;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(fpucw));
    *--sp = (uintptr_t(fpucw) << 32) | mxcsr;
    f.sp = sp;
#else
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = s.bottom();
    f.context.uc_stack.ss_size = Stack::kBytes;
    f.context.uc_link = nullptr;
    makecontext(&f.context, &Block::fiber_main, 0);
#endif
  }

  /// The bottom of every fiber: runs the kernel, then switches away for
  /// good.
  static void fiber_main() {
    Block &b = *t_block;
    const unsigned t = t_tid;
    b.arrived();
    try {
      b.body_();
    } catch (const Cancelled &) {
    } catch (const std::exception &e) {
      b.cancel(std::string("a thread threw: ") + e.what());
    } catch (...) {
      b.cancel("a thread threw");
    }
    b.fibers_[t].state = Fiber::Done;
    b.yield();
    __builtin_unreachable();
  }

  /// Thread t has returned from the kernel.
  void finish(unsigned t) {
    fibers_[t].state = Fiber::Done;
    --live;
    Warp &w = warps[t / 32];
    const uint32_t me = 1u << (t % 32);
    w.exited |= me;
    if (cancelled)
      return;
    for (Group &g : w.groups)
      if (!g.complete && (g.mask & me)) {
        std::ostringstream os;
        os << "lane " << t % 32 << " of warp " << t / 32
           << " returned while lanes 0x" << std::hex << g.arrived
           << " wait for it in " << g.what << " (mask 0x" << g.mask << ")";
        cancel(os.str());
        return;
      }
    if (!barrier_arrived.empty() && barrier_arrived.size() == live)
      complete_barrier();
  }

  /// No fiber is ready and some wait: none of them will ever be released.
  void deadlock() {
    std::map<std::string, unsigned> where;
    for (unsigned t = 0; t < threads; ++t) {
      const Fiber &f = fibers_[t];
      if (f.state != Fiber::Waiting)
        continue;
      std::ostringstream os;
      os << f.what;
      if (f.mask)
        os << " (mask 0x" << std::hex << f.mask << ", warp " << std::dec
           << t / 32 << ")";
      ++where[os.str()];
    }
    std::ostringstream os;
    os << "deadlock: every live thread waits (" << threads - live << " of "
       << threads << " have returned):";
    for (auto &[what, n] : where)
      os << " " << n << " in " << what << ";";
    cancel(os.str());
  }

  dim3 block_idx_, grid_, block_;
  const std::function<void()> &body_;
  std::vector<Fiber> fibers_;
  std::deque<unsigned> ready_;
#if TPC_EMU_SWITCH_ASM
  void *scheduler_sp_ = nullptr;
#else
  ucontext_t scheduler_context_;
#endif
  void *scheduler_fake_stack_ = nullptr;
  const void *scheduler_stack_ = nullptr;
  size_t scheduler_stack_bytes_ = 0;
};

Block &current(const char *what) {
  if (!t_block)
    throw std::logic_error(std::string(what) +
                           " called outside a kernel launched through the "
                           "emulator");
  return *t_block;
}

std::string dims(dim3 d) { return str("(", d.x, ", ", d.y, ", ", d.z, ")"); }

/// Why the device would refuse this configuration; empty if it would not.
std::string check_launch(dim3 grid, dim3 block) {
  const uint64_t threads = uint64_t(block.x) * block.y * block.z;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0)
    return str("grid ", dims(grid), " is empty");
  if (grid.x > 0x7fffffffu || grid.y > 65535 || grid.z > 65535)
    return str("grid ", dims(grid), " exceeds (2^31-1, 65535, 65535)");
  if (threads == 0 || block.x > 1024 || block.y > 1024 || block.z > 64 ||
      threads > kMaxThreads)
    return str("block ", dims(block), " is empty or exceeds 1024 threads");
  return "";
}

} // namespace

//===----------------------------------------------------------------------===//
// Inside a kernel
//===----------------------------------------------------------------------===//

int block_barrier(int vote, int *arrived) {
  Block &b = current("__syncthreads");
  if (b.cancelled)
    throw Cancelled{};
  b.barrier_votes += vote;
  b.barrier_arrived.push_back(t_tid);
  // The thread that completes the barrier waits its turn too: all go on in
  // the order they arrived, the first warp to arrive first.
  b.wait("__syncthreads", 0, b.barrier_arrived.size() == b.live);
  *arrived = b.last_arrived;
  return b.last_votes;
}

void warp_exchange(uint32_t mask, const void *value, size_t size,
                   unsigned char (*slots)[kSlotBytes], const char *what) {
  Block &b = current(what);
  if (b.cancelled)
    throw Cancelled{};
  const unsigned lane = t_tid % 32, warp = t_tid / 32;
  const uint32_t me = 1u << lane;
  Warp &w = b.warps[warp];
  auto describe = [&] {
    std::ostringstream os;
    os << what << " with mask 0x" << std::hex << mask << std::dec << " in lane "
       << lane << " of warp " << warp << " (blockDim " << dims(blockDim) << ")";
    return os.str();
  };
  if (!(mask & me))
    b.fail(describe() + ": the lane is not in its own mask");
  if (mask & ~w.lanes) {
    std::ostringstream os;
    os << describe() << ": the mask names lanes that do not exist (0x"
       << std::hex << (mask & ~w.lanes) << ")";
    b.fail(os.str());
  }
  if (mask & w.exited) {
    std::ostringstream os;
    os << describe() << ": the mask names lanes that have returned (0x"
       << std::hex << (mask & w.exited) << ")";
    b.fail(os.str());
  }
  auto g = w.groups.begin();
  for (; g != w.groups.end(); ++g)
    if (!g->complete && (g->mask & mask))
      break;
  if (g != w.groups.end() && (g->mask != mask || g->what != what)) {
    std::ostringstream os;
    os << describe() << ": lanes 0x" << std::hex << g->arrived
       << " of the warp wait in " << g->what << " with mask 0x" << g->mask;
    b.fail(os.str());
  }
  if (g == w.groups.end()) {
    g = w.groups.emplace(w.groups.end());
    g->mask = mask;
    g->what = what;
  }
  std::memcpy(g->slots[lane], value, size);
  g->arrived |= me;
  if (g->arrived == mask) {
    g->complete = true;
    g->unread = mask;
    // The warp goes on before any other, its lanes in the schedule's
    // order: a warp runs as far ahead as the block barriers let it, even
    // through its shuffles.
    for (unsigned i = 0; i < 32; ++i) {
      const unsigned l = t_schedule == Schedule::Ascending ? 31 - i : i;
      if (mask >> l & 1u)
        b.release(warp * 32 + l, true);
    }
  } else {
    b.wait(what, mask);
  }
  std::memcpy(slots, g->slots, sizeof g->slots);
  g->unread &= ~me;
  if (!g->unread)
    w.groups.erase(g);
}

unsigned lane_id() { return t_tid % 32; }

void bad_shuffle_source(const char *what, int src) {
  device_error(str(what, ": lane ", t_tid % 32, " reads lane ", src,
                   ", which is not in the mask"));
}

void bad_shuffle_width(const char *what, int width) {
  device_error(
      str(what, ": width ", width, " is not a power of two in [1, 32]"));
}

void device_error(const std::string &message) {
  current("device_error").fail(message);
}

void *block_shared_bytes(const void *tag, size_t bytes, size_t align) {
  Block &b = current("__shared__");
  auto it = b.statics.find(tag);
  if (it == b.statics.end()) {
    if (align > 256)
      b.fail(str("a __shared__ variable asks for alignment ", align));
    b.static_bytes += bytes;
    if (b.static_bytes > kStaticSmemLimit)
      b.fail(str("static shared memory of ", b.static_bytes,
                 " bytes exceeds the 48 KiB a kernel may declare"));
    if (b.static_bytes + b.dynamic_bytes > kMaxSmem)
      b.fail(str("static and dynamic shared memory of ",
                 b.static_bytes + b.dynamic_bytes,
                 " bytes exceed the 227 KiB of a block"));
    it = b.statics.emplace(tag, Poisoned(bytes)).first;
  }
  return it->second.ptr;
}

void *dynamic_shared() { return current("extern __shared__").dynamic.ptr; }

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

void run_grid(const char *where, dim3 grid, dim3 block, size_t shmem,
              const std::function<void()> &thread) {
  if (t_block)
    throw std::logic_error(std::string(where) +
                           ": a kernel cannot launch another here");
  std::string why = check_launch(grid, block);
  if (!why.empty()) {
    set_error(cudaErrorInvalidConfiguration, str(where, ": ", why));
    return;
  }
  if (shmem > kDefaultDynamicSmem) {
    bool allowed = false;
    {
      // cudaFuncSetAttribute names a kernel, the launch a lambda around
      // it: any kernel's opt-in for this much counts.
      std::lock_guard<std::mutex> lock(g_attributes_mutex);
      for (auto &[f, bytes] : g_max_dynamic_smem)
        allowed = allowed || size_t(bytes) >= shmem;
    }
    if (!allowed || shmem > kMaxSmem) {
      set_error(cudaErrorInvalidValue,
                str(where, ": ", shmem,
                    " bytes of dynamic shared memory need "
                    "cudaFuncSetAttribute(MaxDynamicSharedMemorySize) and "
                    "at most 227 KiB"));
      return;
    }
  }
  for (unsigned z = 0; z < grid.z; ++z)
    for (unsigned y = 0; y < grid.y; ++y)
      for (unsigned x = 0; x < grid.x; ++x) {
        Block b(dim3(x, y, z), grid, block, shmem, thread);
        b.run();
        t_block = nullptr;
        if (b.cancelled) {
          set_error(cudaErrorLaunchFailure,
                    str(where, ", block ", dims(dim3(x, y, z)), " of grid ",
                        dims(grid), ", blockDim ", dims(block), ": ", b.error));
          return;
        }
      }
}

cudaError_t set_function_attribute(const void *func, cudaFuncAttribute attr,
                                   int value) {
  if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize)
    return cudaSuccess;
  if (value < 0 || size_t(value) > kMaxSmem) {
    set_error(cudaErrorInvalidValue,
              str("cudaFuncSetAttribute: ", value,
                  " bytes of dynamic shared memory exceed 227 KiB"));
    return cudaErrorInvalidValue;
  }
  std::lock_guard<std::mutex> lock(g_attributes_mutex);
  g_max_dynamic_smem[func] = value;
  return cudaSuccess;
}

void set_schedule(Schedule s) { t_schedule = s; }

void host_error(const std::string &message) {
  std::lock_guard<std::mutex> lock(g_host_errors_mutex);
  g_host_errors += message + "\n";
}

std::string take_host_errors() {
  std::lock_guard<std::mutex> lock(g_host_errors_mutex);
  return std::exchange(g_host_errors, std::string());
}

} // namespace tpc_emu

//===----------------------------------------------------------------------===//
// The runtime API
//===----------------------------------------------------------------------===//

namespace tpc_emu::cuda_api {

cudaError_t cudaGetLastError() {
  cudaError_t err = std::exchange(t_last_error, cudaSuccess);
  if (err != cudaSuccess) {
    t_reported_error = err;
    t_reported_message = std::exchange(t_last_message, std::string());
  }
  return err;
}

cudaError_t cudaPeekAtLastError() { return t_last_error; }

const char *cudaGetErrorName(cudaError_t err) {
  switch (err) {
  case cudaSuccess:
    return "cudaSuccess";
  case cudaErrorInvalidValue:
    return "cudaErrorInvalidValue";
  case cudaErrorMemoryAllocation:
    return "cudaErrorMemoryAllocation";
  case cudaErrorInvalidConfiguration:
    return "cudaErrorInvalidConfiguration";
  case cudaErrorLaunchOutOfResources:
    return "cudaErrorLaunchOutOfResources";
  case cudaErrorLaunchFailure:
    return "cudaErrorLaunchFailure";
  }
  return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t err) {
  if (err == t_reported_error && !t_reported_message.empty())
    return t_reported_message.c_str();
  return err == cudaSuccess ? "no error" : "emulated CUDA error";
}

cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t) {
  std::memset(p, value, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemset(void *p, int value, size_t bytes) {
  std::memset(p, value, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes,
                            cudaMemcpyKind, cudaStream_t) {
  std::memmove(dst, src, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes,
                       cudaMemcpyKind) {
  std::memmove(dst, src, bytes);
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }

} // namespace tpc_emu::cuda_api

//===----------------------------------------------------------------------===//
// What the kernels take from the backend's host code: Scratch (Kernels.h)
// and the Blas stand-in (Blas.h)
//===----------------------------------------------------------------------===//

namespace tpc::cuda {

using tpc_emu::host_error;
using tpc_emu::str;

namespace {

/// Bytes after each scratch request that must keep their pattern.
constexpr size_t kScratchGuard = 256;
constexpr unsigned char kGuardByte = 0xa5;

std::mutex g_scratch_mutex;
std::map<const Scratch *, size_t> g_scratch_requested, g_scratch_largest;

/// Reports a launcher that wrote past the scratch it asked for.
void check_guard(const Scratch *s, const unsigned char *p) {
  std::lock_guard<std::mutex> lock(g_scratch_mutex);
  auto it = g_scratch_requested.find(s);
  if (it == g_scratch_requested.end() || !p)
    return;
  for (size_t i = 0; i < kScratchGuard; ++i)
    if (p[it->second + i] != kGuardByte) {
      host_error(str("a launcher wrote past the ", it->second,
                     " bytes of scratch it asked for (byte ", it->second + i,
                     ")"));
      return;
    }
}

} // namespace

// The real buffer grows by cudaMallocAsync; here it is host memory, and
// every get() fills what it hands out with 0xff bytes (NaN), since the
// device's is whatever an earlier launcher left. Both count their buffer in
// the tally they were given.
Scratch::~Scratch() {
  check_guard(this, static_cast<unsigned char *>(ptr_));
  {
    std::lock_guard<std::mutex> lock(g_scratch_mutex);
    g_scratch_requested.erase(this);
    g_scratch_largest.erase(this);
  }
  if (tally_ && ptr_)
    tally_->freed(ptr_);
  std::free(ptr_);
}

void *Scratch::get(size_t bytes) {
  check_guard(this, static_cast<unsigned char *>(ptr_));
  if (bytes + kScratchGuard > bytes_) {
    if (tally_ && ptr_)
      tally_->freed(ptr_);
    std::free(ptr_);
    bytes_ = (bytes + kScratchGuard + 255) / 256 * 256;
    ptr_ = std::aligned_alloc(256, bytes_);
    if (!ptr_)
      throw std::bad_alloc();
    if (tally_)
      tally_->allocated(ptr_, bytes_);
  }
  auto *p = static_cast<unsigned char *>(ptr_);
  cudaMemsetAsync(p, 0xff, bytes, stream_);
  std::memset(p + bytes, kGuardByte, kScratchGuard);
  std::lock_guard<std::mutex> lock(g_scratch_mutex);
  g_scratch_requested[this] = bytes;
  size_t &largest = g_scratch_largest[this];
  largest = std::max(largest, bytes);
  return ptr_;
}

namespace {

/// C of TC (T or float) from A and B of T, each sum in fp32, rounded once.
template <class T, class TC>
void naive_gemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
                const T *A, int lda, const T *B, int ldb, float beta, TC *C,
                int ldc, const T *bias) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < K; ++k) {
        float a =
            to_float(trans_a ? A[size_t(k) * lda + i] : A[size_t(i) * lda + k]);
        float b =
            to_float(trans_b ? B[size_t(j) * ldb + k] : B[size_t(k) * ldb + j]);
        acc += a * b;
      }
      TC &c = C[size_t(i) * ldc + j];
      float r = alpha * acc;
      if (beta != 0.0f)
        r += beta * to_float(c);
      if (bias)
        r += to_float(bias[j]);
      c = from_float<TC>(r);
    }
}

/// Member i of a batch: A + i * stride_a, ... of T, C of TC.
template <class T, class TC>
void naive_batch(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
                 const void *A, int lda, int64_t stride_a, const void *B,
                 int ldb, int64_t stride_b, float beta, void *C, int ldc,
                 int64_t stride_c, int batch) {
  for (int i = 0; i < batch; ++i)
    naive_gemm(trans_a, trans_b, M, N, K, alpha,
               static_cast<const T *>(A) + size_t(i) * size_t(stride_a), lda,
               static_cast<const T *>(B) + size_t(i) * size_t(stride_b), ldb,
               beta, static_cast<TC *>(C) + size_t(i) * size_t(stride_c), ldc,
               static_cast<const T *>(nullptr));
}

} // namespace

bool Blas::gemm(ElementType type, bool trans_a, bool trans_b, int M, int N,
                int K, float alpha, const void *A, int lda, const void *B,
                int ldb, float beta, void *C, int ldc, const void *bias) {
  if (bias && !bias_epilogue) {
    ++declined;
    return false;
  }
  ++calls;
  switch (type) {
  case ElementType::F32:
    naive_gemm(trans_a, trans_b, M, N, K, alpha, static_cast<const float *>(A),
               lda, static_cast<const float *>(B), ldb, beta,
               static_cast<float *>(C), ldc, static_cast<const float *>(bias));
    return true;
  case ElementType::BF16:
    naive_gemm(trans_a, trans_b, M, N, K, alpha,
               static_cast<const __nv_bfloat16 *>(A), lda,
               static_cast<const __nv_bfloat16 *>(B), ldb, beta,
               static_cast<__nv_bfloat16 *>(C), ldc,
               static_cast<const __nv_bfloat16 *>(bias));
    return true;
  case ElementType::F16:
    naive_gemm(trans_a, trans_b, M, N, K, alpha, static_cast<const __half *>(A),
               lda, static_cast<const __half *>(B), ldb, beta,
               static_cast<__half *>(C), ldc,
               static_cast<const __half *>(bias));
    return true;
  case ElementType::I32:
    break;
  }
  throw std::invalid_argument("Blas::gemm: no GEMM of i32");
}

void Blas::gemm_batched(ElementType type, ElementType c_type, bool trans_a,
                        bool trans_b, int M, int N, int K, float alpha,
                        const void *A, int lda, int64_t stride_a, const void *B,
                        int ldb, int64_t stride_b, float beta, void *C, int ldc,
                        int64_t stride_c, int batch) {
  if (c_type != type && c_type != ElementType::F32)
    throw std::invalid_argument("Blas::gemm_batched: C of " +
                                std::string(element_type_name(c_type)));
  ++calls;
  const bool f32_out = c_type == ElementType::F32;
  auto run = [&](auto t) {
    using T = decltype(t);
    if (f32_out)
      naive_batch<T, float>(trans_a, trans_b, M, N, K, alpha, A, lda, stride_a,
                            B, ldb, stride_b, beta, C, ldc, stride_c, batch);
    else
      naive_batch<T, T>(trans_a, trans_b, M, N, K, alpha, A, lda, stride_a, B,
                        ldb, stride_b, beta, C, ldc, stride_c, batch);
  };
  switch (type) {
  case ElementType::F32:
    return run(float{});
  case ElementType::BF16:
    return run(__nv_bfloat16{});
  case ElementType::F16:
    return run(__half{});
  case ElementType::I32:
    break;
  }
  throw std::invalid_argument("Blas::gemm_batched: no GEMM of i32");
}

} // namespace tpc::cuda

size_t tpc_emu::largest_scratch_request(const tpc::cuda::Scratch &scratch) {
  std::lock_guard<std::mutex> lock(tpc::cuda::g_scratch_mutex);
  auto it = tpc::cuda::g_scratch_largest.find(&scratch);
  return it == tpc::cuda::g_scratch_largest.end() ? 0 : it->second;
}
