//===- CudaMemoryTest.cpp - The training log's memory figure --------------===//
//
// On a GPU the log's memory figure is the device's peak allocation, kept by
// the CUDA backend's tally (runtime/backends/cuda/MemoryTally.h); on the CPU
// it stays the process's peak resident set. Neither needs a GPU here: the
// tally is plain C++, and a device that reports a peak stands in for the
// GPU's in the log.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "runtime/backend/Backend.h"
#include "runtime/backends/cuda/MemoryTally.h"
#include "runtime/run/Metrics.h"

#include <fstream>
#include <iterator>
#include <string>

using namespace tpc;

namespace {

TEST(CudaMemoryTally, PeakOfWhatIsHeldAtOnce) {
  cuda::MemoryTally tally;
  int a = 0, b = 0, c = 0;
  tally.allocated(&a, 100);
  tally.allocated(&b, 50);
  EXPECT_EQ(tally.in_use(), 150u);
  tally.freed(&a);
  tally.allocated(&c, 120); // 170 at once
  tally.freed(&b);
  tally.freed(&c);
  EXPECT_EQ(tally.in_use(), 0u);
  EXPECT_EQ(tally.peak(), 170u);
}

TEST(CudaMemoryTally, IgnoresWhatItDoesNotHold) {
  cuda::MemoryTally tally;
  int a = 0;
  tally.allocated(nullptr, 64); // a failed or empty allocation
  tally.freed(&a);              // never counted
  EXPECT_EQ(tally.in_use(), 0u);
  tally.allocated(&a, 10);
  tally.allocated(&a, 30); // freed elsewhere and handed out again
  EXPECT_EQ(tally.in_use(), 30u);
  EXPECT_EQ(tally.peak(), 30u);
}

/// The CPU's device, reporting `peak` bytes of memory of its own as a GPU
/// does.
class DeviceWithPeak final : public Device {
public:
  DeviceWithPeak(Device &host, size_t peak) : host_(host), peak_(peak) {}
  std::string name() const override { return "device with a peak"; }
  void *alloc(size_t bytes) override { return host_.alloc(bytes); }
  void free(void *ptr) override { host_.free(ptr); }
  std::optional<size_t> peak_allocated_bytes() const override { return peak_; }
  void copy_host_to_device(void *dst, const void *src, size_t n) override {
    host_.copy_host_to_device(dst, src, n);
  }
  void copy_device_to_host(void *dst, const void *src, size_t n) override {
    host_.copy_device_to_host(dst, src, n);
  }
  void copy_device_to_device(void *dst, const void *src, size_t n) override {
    host_.copy_device_to_device(dst, src, n);
  }
  void zero(void *ptr, size_t n) override { host_.zero(ptr, n); }
  void synchronize() override { host_.synchronize(); }
  Event create_event() override { return host_.create_event(); }
  void destroy_event(Event e) override { host_.destroy_event(e); }
  void record(Event e, Stream s) override { host_.record(e, s); }
  void wait(Stream s, Event e) override { host_.wait(s, e); }

private:
  Device &host_;
  size_t peak_;
};

/// The log line of one step written with `device`.
std::string log_line(const Device *device) {
  const std::string path = (test::temp_dir() / "log.jsonl").string();
  {
    JsonLog log(path, device);
    StepResult r;
    r.loss = 2.5;
    r.tokens = 8;
    r.seconds = 0.5;
    log.write(r, 1, 1, std::nullopt);
  }
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(CudaMemoryFigure, CpuLogsItsResidentSet) {
  std::unique_ptr<Backend> cpu = make_backend("cpu");
  EXPECT_FALSE(cpu->device().peak_allocated_bytes().has_value());
  const std::string line = log_line(&cpu->device());
  EXPECT_NE(line.find("\"peak_rss_mib\": "), std::string::npos) << line;
  EXPECT_EQ(line.find("peak_device_mib"), std::string::npos) << line;
}

TEST(CudaMemoryFigure, DeviceLogsItsPeakAllocation) {
  std::unique_ptr<Backend> cpu = make_backend("cpu");
  DeviceWithPeak gpu(cpu->device(), (size_t(1536) << 20) + 4096);
  const std::string line = log_line(&gpu);
  EXPECT_NE(line.find("\"peak_device_mib\": 1536"), std::string::npos) << line;
  EXPECT_NE(line.find("\"peak_rss_mib\": "), std::string::npos) << line;
}

} // namespace
