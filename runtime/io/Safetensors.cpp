//===- Safetensors.cpp - Safetensors reader and writer --------------------===//

#include "runtime/io/Safetensors.h"
#include "runtime/io/FileUtil.h"
#include "runtime/io/JsonError.h"
#include "runtime/util/Float16.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace tpc {

namespace {

struct DTypeEntry {
  DType dtype;
  const char *name;
  size_t size;
};

constexpr DTypeEntry kDTypes[] = {
    {DType::F64, "F64", 8},   {DType::F32, "F32", 4}, {DType::F16, "F16", 2},
    {DType::BF16, "BF16", 2}, {DType::I64, "I64", 8}, {DType::I32, "I32", 4},
    {DType::I16, "I16", 2},   {DType::I8, "I8", 1},   {DType::U8, "U8", 1},
    {DType::BOOL, "BOOL", 1}};

/// The format caps the header at 100 MB; a larger length means a file that
/// is not safetensors.
constexpr uint64_t kMaxHeaderBytes = 100u << 20;

std::runtime_error st_error(const std::string &path, const std::string &what) {
  return std::runtime_error(path + ": " + what);
}

std::string tensor_error(const std::string &name) {
  return "tensor '" + name + "'";
}

} // namespace

size_t dtype_size(DType dtype) {
  for (const DTypeEntry &e : kDTypes)
    if (e.dtype == dtype)
      return e.size;
  return 0;
}

const char *dtype_name(DType dtype) {
  for (const DTypeEntry &e : kDTypes)
    if (e.dtype == dtype)
      return e.name;
  return "?";
}

DType parse_dtype(const std::string &name) {
  for (const DTypeEntry &e : kDTypes)
    if (name == e.name)
      return e.dtype;
  throw std::runtime_error("unknown safetensors dtype '" + name + "'");
}

uint64_t TensorInfo::num_elements() const {
  uint64_t n = 1;
  for (int64_t d : shape)
    n *= uint64_t(d);
  return n;
}

//===----------------------------------------------------------------------===//
// Reader
//===----------------------------------------------------------------------===//

SafetensorsReader::SafetensorsReader(const std::string &path) : path_(path) {
  fd_ = FileDescriptor(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd_.is_open())
    throw st_error(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st;
  if (::fstat(fd_.get(), &st) != 0)
    throw st_error(path, std::string("cannot stat: ") + std::strerror(errno));
  uint64_t size = uint64_t(st.st_size);
  if (size < 8)
    throw st_error(path, "is " + std::to_string(size) +
                             " bytes, too short for a safetensors header; "
                             "the file is truncated or not safetensors");
  unsigned char len_bytes[8];
  pread_all(fd_.get(), len_bytes, 8, 0, path);
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i)
    header_len = (header_len << 8) | len_bytes[i];
  if (header_len > kMaxHeaderBytes || header_len > size - 8)
    throw st_error(path, "header length " + std::to_string(header_len) +
                             " exceeds the " + std::to_string(size - 8) +
                             " bytes after it; the file is truncated or "
                             "not safetensors");
  std::string header(header_len, '\0');
  pread_all(fd_.get(), header.data(), header_len, 8, path);
  data_start_ = 8 + header_len;
  uint64_t data_size = size - data_start_;

  nlohmann::json j;
  try {
    j = nlohmann::json::parse(header);
  } catch (const nlohmann::json::exception &e) {
    // A syntax error, and also a number beyond double's range, which the
    // parser reports as out_of_range.
    throw st_error(path, "header is not valid JSON (" + json_error_text(e) +
                             "); the file is corrupt");
  }
  if (!j.is_object())
    throw st_error(path, "header is not a JSON object; the file is corrupt");

  std::vector<const TensorInfo *> by_offset;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string &name = it.key();
    const nlohmann::json &v = it.value();
    if (name == "__metadata__") {
      if (!v.is_object())
        throw st_error(path, "__metadata__ is not a JSON object");
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string())
          throw st_error(path, "__metadata__ entry '" + m.key() +
                                   "' is not a string; safetensors "
                                   "metadata maps strings to strings");
        metadata_[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    std::string what = tensor_error(name);
    if (!v.is_object() || !v.contains("dtype") || !v.contains("shape") ||
        !v.contains("data_offsets") || !v["dtype"].is_string() ||
        !v["shape"].is_array() || !v["data_offsets"].is_array() ||
        v["data_offsets"].size() != 2)
      throw st_error(path, what + " needs \"dtype\" (string), \"shape\" "
                                  "(array) and \"data_offsets\" (two "
                                  "integers); the header is corrupt");
    TensorInfo info;
    info.name = name;
    try {
      info.dtype = parse_dtype(v["dtype"].get<std::string>());
    } catch (const std::runtime_error &e) {
      throw st_error(path, what + ": " + e.what());
    }
    for (const auto &d : v["shape"]) {
      if (!d.is_number_unsigned())
        throw st_error(path, what + " has a shape entry that is not a "
                                    "non-negative integer");
      info.shape.push_back(d.get<int64_t>());
    }
    for (const auto &o : v["data_offsets"])
      if (!o.is_number_unsigned())
        throw st_error(path, what + " has data_offsets that are not "
                                    "non-negative integers");
    info.begin = v["data_offsets"][0].get<uint64_t>();
    info.end = v["data_offsets"][1].get<uint64_t>();
    if (info.begin > info.end || info.end > data_size)
      throw st_error(path, what + " has data_offsets [" +
                               std::to_string(info.begin) + ", " +
                               std::to_string(info.end) + "] outside the " +
                               std::to_string(data_size) +
                               " data bytes; the file is truncated or "
                               "corrupt");
    uint64_t need = dtype_size(info.dtype);
    for (int64_t d : info.shape)
      if (__builtin_mul_overflow(need, uint64_t(d), &need))
        throw st_error(path, what + " has shape " + shape_string(info.shape) +
                                 ", larger than any file; the header is "
                                 "corrupt");
    if (info.end - info.begin != need)
      throw st_error(path,
                     what + " holds " + std::to_string(info.end - info.begin) +
                         " bytes but " + dtype_name(info.dtype) + " " +
                         shape_string(info.shape) + " needs " +
                         std::to_string(need) + "; the header is corrupt");
    by_offset.push_back(&tensors_.emplace(name, std::move(info)).first->second);
  }
  std::sort(by_offset.begin(), by_offset.end(),
            [](const TensorInfo *a, const TensorInfo *b) {
              return a->begin < b->begin;
            });
  // The format requires the tensors to cover the data section exactly,
  // without gaps: a header length that is off, or bytes appended after
  // the last tensor, then show as a gap or a tail instead of shifting
  // every tensor silently.
  uint64_t covered = 0;
  for (const TensorInfo *t : by_offset) {
    if (t->begin < covered)
      throw st_error(path, tensor_error(t->name) +
                               " overlaps the tensor "
                               "before it in the data section; the header "
                               "is corrupt");
    if (t->begin > covered)
      throw st_error(path, "data bytes [" + std::to_string(covered) + ", " +
                               std::to_string(t->begin) + ") before " +
                               tensor_error(t->name) +
                               " belong to no tensor; the header length or "
                               "the data_offsets are wrong: the file is "
                               "corrupt");
    covered = t->end;
  }
  if (covered != data_size)
    throw st_error(path, "the tensors end at data byte " +
                             std::to_string(covered) +
                             " but the data "
                             "section holds " +
                             std::to_string(data_size) +
                             " bytes; the header length is wrong or bytes "
                             "were appended: the file is corrupt");
}

std::vector<std::string> SafetensorsReader::names() const {
  std::vector<std::string> out;
  for (const auto &kv : tensors_)
    out.push_back(kv.first);
  return out;
}

bool SafetensorsReader::contains(const std::string &name) const {
  return tensors_.count(name) != 0;
}

const TensorInfo &SafetensorsReader::info(const std::string &name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end())
    throw st_error(path_, "has no " + tensor_error(name) + " (it holds " +
                              std::to_string(tensors_.size()) +
                              " tensors); the checkpoint belongs to another "
                              "model or was written under other names");
  return it->second;
}

const TensorInfo &
SafetensorsReader::expect(const std::string &name,
                          const std::vector<int64_t> &shape) const {
  const TensorInfo &t = info(name);
  if (t.shape != shape)
    throw st_error(path_, tensor_error(name) + " has shape " +
                              shape_string(t.shape) + " but " +
                              shape_string(shape) +
                              " was expected; the checkpoint belongs to "
                              "another model configuration");
  return t;
}

void SafetensorsReader::read(const std::string &name, DType dtype,
                             const std::vector<int64_t> &shape,
                             void *out) const {
  const TensorInfo &t = expect(name, shape);
  if (t.dtype != dtype)
    throw st_error(path_, tensor_error(name) + " is " + dtype_name(t.dtype) +
                              " but " + dtype_name(dtype) +
                              " was expected; convert the checkpoint");
  pread_all(fd_.get(), out, t.end - t.begin, data_start_ + t.begin, path_);
}

void SafetensorsReader::read_f32(const std::string &name,
                                 const std::vector<int64_t> &shape, float *out,
                                 const SliceSpec &slice) const {
  const TensorInfo &t = expect(name, shape);
  if (t.dtype != DType::F32 && t.dtype != DType::F16 && t.dtype != DType::BF16)
    throw st_error(path_, tensor_error(name) + " is " + dtype_name(t.dtype) +
                              "; a floating-point tensor (F32, F16 or BF16) "
                              "was expected");
  GlobalIndexMap map(shape, slice); // validates the slice
  // The local tensor is a sequence of runs of contiguous global elements:
  // for each index before the split dimension and each block, `length`
  // entries of the split dimension times everything after it.
  uint64_t run = t.num_elements(), runs = 1, stride = 0, first = 0;
  uint64_t blocks = 1, block_stride = 0;
  if (!map.identity()) {
    uint64_t outer = t.num_elements() / (map.global_dim * map.inner);
    run = map.length * map.inner;
    blocks = map.global_dim / map.block_size;
    block_stride = map.block_size * map.inner;
    runs = outer;
    stride = map.global_dim * map.inner;
    first = map.offset * map.inner;
  }
  size_t esize = dtype_size(t.dtype);
  std::vector<uint16_t> scratch(t.dtype == DType::F32 ? 0 : run);
  float *dst = out;
  for (uint64_t o = 0; o < runs; ++o)
    for (uint64_t b = 0; b < blocks; ++b, dst += run) {
      uint64_t elem = o * stride + b * block_stride + first;
      uint64_t at = data_start_ + t.begin + elem * esize;
      if (t.dtype == DType::F32) {
        pread_all(fd_.get(), dst, run * 4, at, path_);
      } else {
        pread_all(fd_.get(), scratch.data(), run * 2, at, path_);
        if (t.dtype == DType::BF16)
          for (uint64_t i = 0; i < run; ++i)
            dst[i] = bf16_to_f32(scratch[i]);
        else
          for (uint64_t i = 0; i < run; ++i)
            dst[i] = f16_to_f32(scratch[i]);
      }
      // A NaN or an infinity would only show later as a nan loss or
      // garbage text, far from its cause.
      for (uint64_t i = 0; i < run; ++i)
        if (!std::isfinite(dst[i]))
          throw st_error(path_, tensor_error(name) + " holds " +
                                    std::to_string(dst[i]) + " at flat index " +
                                    std::to_string(elem + i) +
                                    "; a checkpoint must hold finite values: "
                                    "load an earlier checkpoint");
    }
}

uint64_t metadata_count(const std::map<std::string, std::string> &metadata,
                        const std::string &key, const std::string &path,
                        uint64_t min, uint64_t max) {
  auto it = metadata.find(key);
  if (it == metadata.end())
    throw st_error(path, "a training checkpoint without " + key +
                             " in its metadata; the file is corrupt");
  const std::string &v = it->second;
  uint64_t n = 0;
  bool ok = !v.empty() && v.size() <= 20;
  for (char c : v)
    ok = ok && c >= '0' && c <= '9' && !__builtin_mul_overflow(n, 10, &n) &&
         !__builtin_add_overflow(n, uint64_t(c - '0'), &n);
  if (!ok || n < min || n > max)
    throw st_error(path, "metadata " + key + " = '" + v + "' is not a count " +
                             "between " + std::to_string(min) + " and " +
                             std::to_string(max) +
                             "; the file is corrupt: load an earlier "
                             "checkpoint");
  return n;
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

void SafetensorsWriter::set_metadata(const std::string &key,
                                     const std::string &value) {
  metadata_[key] = value;
}

void SafetensorsWriter::add(const std::string &name, DType dtype,
                            std::vector<int64_t> shape, const void *data) {
  if (name == "__metadata__" || name.empty())
    throw std::invalid_argument("safetensors: '" + name +
                                "' is not a valid tensor name");
  for (int64_t d : shape)
    if (d < 0)
      throw std::invalid_argument("safetensors: " + tensor_error(name) +
                                  " has a negative dimension in " +
                                  shape_string(shape));
  if (entries_.count(name))
    throw std::invalid_argument("safetensors: " + tensor_error(name) +
                                " was added twice");
  TensorInfo info;
  info.name = name;
  info.dtype = dtype;
  info.shape = std::move(shape);
  entries_[name] = Entry{std::move(info), data};
}

void SafetensorsWriter::write(const std::string &path) const {
  nlohmann::json header = nlohmann::json::object();
  if (!metadata_.empty())
    header["__metadata__"] = metadata_;
  uint64_t offset = 0;
  std::vector<std::pair<const Entry *, uint64_t>> layout;
  for (const auto &kv : entries_) {
    const TensorInfo &t = kv.second.info;
    uint64_t bytes = t.num_elements() * dtype_size(t.dtype);
    header[t.name] = {{"dtype", dtype_name(t.dtype)},
                      {"shape", t.shape},
                      {"data_offsets", {offset, offset + bytes}}};
    layout.emplace_back(&kv.second, bytes);
    offset += bytes;
  }
  std::string text = header.dump();
  // Pad with spaces so that the data starts 8-byte aligned, as the reference
  // implementation does.
  text.append((8 - text.size() % 8) % 8, ' ');
  unsigned char len_bytes[8];
  uint64_t len = text.size();
  for (int i = 0; i < 8; ++i)
    len_bytes[i] = (unsigned char)(len >> (8 * i));

  AtomicFileWriter out(path);
  out.write(len_bytes, 8);
  out.write(text.data(), text.size());
  for (const auto &[entry, bytes] : layout)
    out.write(entry->data, bytes);
  out.commit();
}

} // namespace tpc
