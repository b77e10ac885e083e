//===- Safetensors.h - Safetensors reader and writer ------------*- C++ -*-===//
//
// The Hugging Face safetensors format: an 8-byte little-endian header
// length, a JSON header mapping tensor names to {dtype, shape,
// data_offsets} (plus an optional "__metadata__" of strings), then the raw
// little-endian data. Checkpoints hold global (unsharded) tensors; a rank
// reads only its slice, straight from the file.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_IO_SAFETENSORS_H
#define TPC_RUNTIME_IO_SAFETENSORS_H

#include "runtime/io/FileUtil.h"
#include "runtime/util/GlobalIndex.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tpc {

enum class DType { F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL };

size_t dtype_size(DType dtype);
const char *dtype_name(DType dtype);
/// Throws std::runtime_error for a name the format does not define.
DType parse_dtype(const std::string &name);

struct TensorInfo {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0; // byte offsets into the data section

  uint64_t num_elements() const;
};

/// An open, validated safetensors file: the tensors cover the data section
/// exactly, as the format requires. All errors are std::runtime_error
/// naming the file, the tensor and the fix.
class SafetensorsReader {
public:
  explicit SafetensorsReader(const std::string &path);
  SafetensorsReader(SafetensorsReader &&other) noexcept = default;
  SafetensorsReader(const SafetensorsReader &) = delete;
  SafetensorsReader &operator=(const SafetensorsReader &) = delete;
  SafetensorsReader &operator=(SafetensorsReader &&) = delete;

  const std::string &path() const { return path_; }
  const std::map<std::string, std::string> &metadata() const {
    return metadata_;
  }
  /// Names in sorted order.
  std::vector<std::string> names() const;
  bool contains(const std::string &name) const;
  const TensorInfo &info(const std::string &name) const;

  /// The raw bytes of a tensor that must have exactly this dtype and shape.
  void read(const std::string &name, DType dtype,
            const std::vector<int64_t> &shape, void *out) const;

  /// A floating-point tensor (stored as F32, F16 or BF16) of global shape
  /// `shape`, converted to float. With a slice, only the local part
  /// (local_num_elements(shape, slice) floats, see GlobalIndexMap) is read.
  /// Throws, naming the tensor and the flat index, on a NaN or infinity.
  void read_f32(const std::string &name, const std::vector<int64_t> &shape,
                float *out, const SliceSpec &slice = SliceSpec::whole()) const;

private:
  const TensorInfo &expect(const std::string &name,
                           const std::vector<int64_t> &shape) const;

  std::string path_;
  FileDescriptor fd_;
  uint64_t data_start_ = 0;
  std::map<std::string, TensorInfo> tensors_;
  std::map<std::string, std::string> metadata_;
};

/// Collects tensors and writes them in one go. Data is not copied: each
/// pointer must stay valid until write() returns.
class SafetensorsWriter {
public:
  void set_metadata(const std::string &key, const std::string &value);
  void add(const std::string &name, DType dtype, std::vector<int64_t> shape,
           const void *data);
  void add_f32(const std::string &name, std::vector<int64_t> shape,
               const float *data) {
    add(name, DType::F32, std::move(shape), data);
  }
  /// Writes path.tmp, fsyncs it and renames it over path.
  void write(const std::string &path) const;

private:
  struct Entry {
    TensorInfo info;
    const void *data;
  };
  std::map<std::string, Entry> entries_;
  std::map<std::string, std::string> metadata_;
};

/// The metadata entry `key` of the file `path` as a decimal count in
/// [min, max]. Throws std::runtime_error naming the file, the key and the
/// value when it is missing, not a number, or out of range (a damaged
/// checkpoint, never a raw std::stoull error).
uint64_t metadata_count(const std::map<std::string, std::string> &metadata,
                        const std::string &key, const std::string &path,
                        uint64_t min = 0, uint64_t max = UINT64_MAX);

} // namespace tpc

#endif // TPC_RUNTIME_IO_SAFETENSORS_H
