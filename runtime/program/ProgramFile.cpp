//===- ProgramFile.cpp - Reading and writing tpc program files --*- C++ -*-===//

#include "runtime/program/ProgramFile.h"
#include "runtime/io/FileUtil.h"
#include "runtime/program/Abi.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>

namespace tpc {

namespace {
// Format 2 added the checksum after the length. Format 1 files start with
// the old magic and are told to be recompiled rather than called corrupt.
constexpr char kMagic[8] = {'T', 'P', 'C', 'P', 'R', 'O', 'G', '2'};
constexpr char kMagicV1[8] = {'T', 'P', 'C', 'P', 'R', 'O', 'G', '\0'};
constexpr size_t kHeaderBytes = sizeof(kMagic) + 8 + 8;

void put_le64(std::string &out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>(v >> (8 * i)));
}

uint64_t get_le64(const char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

std::string fix_hint() {
  return "; recompile the model with tpc-compile to get a valid program";
}
} // namespace

int64_t dtype_bytes(program::DType dtype) {
  switch (dtype) {
  case program::F32:
  case program::I32:
    return 4;
  case program::BF16:
  case program::F16:
    return 2;
  default:
    return 0;
  }
}

const char *dtype_text(program::DType dtype) {
  switch (dtype) {
  case program::F32:
    return "f32";
  case program::BF16:
    return "bf16";
  case program::F16:
    return "f16";
  case program::I32:
    return "i32";
  default:
    return "unspecified";
  }
}

std::vector<std::string> split_name_list(const std::string &list) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos)
      end = list.size();
    names.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return names;
}

int64_t num_elements(const google::protobuf::RepeatedField<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0 || __builtin_mul_overflow(n, d, &n))
      return -1;
  return n;
}

uint64_t program_checksum(const char *data, size_t size) {
  // FNV-1a, 64 bits: enough to tell a damaged file from an intact one.
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 1099511628211ull;
  }
  return h;
}

std::string program_file_header(const std::string &payload) {
  std::string header(kMagic, sizeof(kMagic));
  put_le64(header, payload.size());
  put_le64(header, program_checksum(payload.data(), payload.size()));
  return header;
}

std::string write_program_file(const std::string &path,
                             const program::Program &prog,
                             const std::string &interpreter) {
  std::string payload;
  if (!prog.SerializeToString(&payload))
    return "cannot serialize the program (is it larger than 2 GiB?)";
  std::string header = "#!" + interpreter + "\n" + program_file_header(payload);
  // The checkpoints' writer: fsync before the rename, so a crash leaves the
  // old program or the new one, never a torn one.
  try {
    AtomicFileWriter out(path);
    out.write(header.data(), header.size());
    out.write(payload.data(), payload.size());
    out.commit();
  } catch (const std::exception &e) {
    return e.what();
  }
  ::chmod(path.c_str(), 0755);
  return "";
}

program::Program read_program_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(
        path + ": cannot open the program file: " + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  return parse_program_file(bytes, path);
}

program::Program parse_program_file(const std::string &bytes,
                                  const std::string &path) {
  size_t pos = 0;
  if (bytes.compare(0, 2, "#!") == 0) {
    pos = bytes.find('\n');
    if (pos == std::string::npos)
      throw std::runtime_error(path + ": the file ends inside its #! line" +
                               fix_hint());
    ++pos;
  }
  if (bytes.size() >= pos + sizeof(kMagicV1) &&
      std::memcmp(bytes.data() + pos, kMagicV1, sizeof(kMagicV1)) == 0)
    throw std::runtime_error(
        path + ": a program of format 1, written by an older tpc-compile; "
               "this tpc-run reads format " +
        std::to_string(kProgramVersion) +
        ": recompile the model with this tpc-compile");
  if (bytes.size() < pos + kHeaderBytes ||
      std::memcmp(bytes.data() + pos, kMagic, sizeof(kMagic)) != 0)
    throw std::runtime_error(path + ": not a tpc program (bad magic)" +
                             fix_hint());
  uint64_t length = get_le64(bytes.data() + pos + 8);
  uint64_t checksum = get_le64(bytes.data() + pos + 16);
  pos += kHeaderBytes;
  uint64_t available = bytes.size() - pos;
  if (length != available) {
    std::ostringstream msg;
    msg << path << ": the header announces " << length
        << " bytes of program but the file holds " << available
        << (length > available ? " (truncated)" : " (trailing bytes)")
        << fix_hint();
    throw std::runtime_error(msg.str());
  }
  // Before anything reads a field: a damaged byte anywhere would otherwise
  // surface as a misleading complaint about that field.
  if (program_checksum(bytes.data() + pos, length) != checksum)
    throw std::runtime_error(path +
                             ": the program's checksum does not match its "
                             "contents; the file is corrupt" +
                             fix_hint());
  if (length > static_cast<uint64_t>(std::numeric_limits<int>::max()))
    throw std::runtime_error(path + ": the program is larger than 2 GiB" +
                             fix_hint());
  program::Program prog;
  if (!prog.ParseFromArray(bytes.data() + pos, static_cast<int>(length)))
    throw std::runtime_error(path + ": the program payload is corrupted" +
                             fix_hint());
  if (prog.version() != kProgramVersion) {
    std::ostringstream msg;
    msg << path << ": program format version " << prog.version()
        << ", but this tpc-run reads version " << kProgramVersion << fix_hint();
    throw std::runtime_error(msg.str());
  }
  std::string problem = validate_program(prog);
  if (!problem.empty())
    throw std::runtime_error(path + ": invalid program: " + problem +
                             fix_hint());
  return prog;
}

namespace {
/// Bytes of a tensor, or -1 when its dtype is unknown or its size does not
/// fit in 62 bits (a damaged dimension, not a real tensor).
int64_t tensor_bytes(const program::Tensor &t) {
  int64_t n = num_elements(t.shape()), bytes = 0;
  if (n < 0 || dtype_bytes(t.dtype()) == 0 ||
      __builtin_mul_overflow(n, dtype_bytes(t.dtype()), &bytes) ||
      bytes > (int64_t(1) << 62))
    return -1;
  return bytes;
}

/// The arena checks of one function: every activation it writes is written
/// once, lies inside the arena at an offset aligned for its dtype, is read
/// only after it is written, and shares no byte with another activation
/// live at the same time (live from the instruction that writes it to the
/// last one that reads it, or to the end when the function returns it,
/// exactly as tpc-plan-memory planned it).
std::string check_arena(const program::Program &prog, const program::Function &f,
                       std::vector<char> &written) {
  std::ostringstream msg;
  const int64_t end = f.body_size();
  std::map<int32_t, int64_t> last_use; // activation id -> position
  std::vector<char> is_input(prog.tensors_size(), 0);
  for (int32_t id : f.inputs())
    is_input[id] = 1;
  for (int64_t k = 0; k < end; ++k)
    for (int32_t id : f.body(k).inputs())
      last_use[id] = k;
  for (int32_t id : f.outputs())
    last_use[id] = end;
  // Live activations by offset: offset -> (end byte, id, last use).
  struct Live {
    int64_t end;
    int32_t id;
    int64_t last_use;
  };
  std::map<int64_t, Live> live;
  std::vector<char> defined(prog.tensors_size(), 0);
  for (int64_t k = 0; k < end; ++k) {
    const program::Instruction &inst = f.body(k);
    for (int32_t id : inst.inputs()) {
      const program::Tensor &t = prog.tensors(id);
      if ((t.storage() == program::Tensor::ACTIVATION && !defined[id]) ||
          (t.storage() == program::Tensor::GRADIENT && !defined[id]) ||
          (t.storage() == program::Tensor::INPUT && !is_input[id])) {
        msg << "instruction " << k << " (" << inst.op() << ") of " << f.name()
            << " reads tensor " << id << " (" << t.name()
            << ") before anything in " << f.name() << " defines it";
        return msg.str();
      }
    }
    // Inputs read for the last time by an earlier instruction are dead.
    for (auto it = live.begin(); it != live.end();)
      it = it->second.last_use < k ? live.erase(it) : std::next(it);
    for (int32_t id : inst.outputs()) {
      const program::Tensor &t = prog.tensors(id);
      // A gradient tensor names a runtime-owned buffer outside the arena:
      // get_grad's result (which older programs placed in the arena).
      bool gradient = t.storage() == program::Tensor::GRADIENT;
      if (gradient && inst.op() != "get_grad") {
        msg << "instruction " << k << " (" << inst.op() << ") of " << f.name()
            << " writes tensor " << id << " (" << t.name()
            << "), a gradient buffer, which only get_grad names";
        return msg.str();
      }
      if (!gradient && t.storage() != program::Tensor::ACTIVATION) {
        msg << "instruction " << k << " (" << inst.op() << ") of " << f.name()
            << " writes tensor " << id << " (" << t.name()
            << "), which is not an activation";
        return msg.str();
      }
      if (written[id]) {
        msg << "tensor " << id << " (" << t.name()
            << ") is written by more than one instruction";
        return msg.str();
      }
      written[id] = defined[id] = 1;
      if (gradient)
        continue;
      int64_t bytes = tensor_bytes(t), stop = 0;
      if (t.offset() < 0 || __builtin_add_overflow(t.offset(), bytes, &stop) ||
          stop > f.arena_bytes()) {
        msg << "tensor " << id << " (" << t.name() << ", " << bytes
            << " bytes at offset " << t.offset()
            << ") lies outside the arena of " << f.name() << " ("
            << f.arena_bytes() << " bytes)";
        return msg.str();
      }
      if (t.offset() % dtype_bytes(t.dtype()) != 0) {
        msg << "tensor " << id << " (" << t.name() << ") at offset "
            << t.offset() << " is not aligned to its "
            << dtype_bytes(t.dtype()) << "-byte elements";
        return msg.str();
      }
      if (bytes == 0)
        continue;
      // The result of an in-place op may lie on its operand, read for the
      // last time here.
      if (abi::reuses_operand_bytes(inst.op()) && inst.inputs_size() == 1) {
        auto operand = live.find(t.offset());
        if (operand != live.end() && operand->second.id == inst.inputs(0) &&
            operand->second.end == stop && operand->second.last_use == k)
          live.erase(operand);
      }
      auto next = live.lower_bound(t.offset());
      const Live *clash = nullptr;
      if (next != live.end() && next->first < stop)
        clash = &next->second;
      if (next != live.begin() && std::prev(next)->second.end > t.offset())
        clash = &std::prev(next)->second;
      if (clash) {
        msg << "tensor " << id << " (" << t.name()
            << ") overlaps tensor " << clash->id << " ("
            << prog.tensors(clash->id).name() << ") in the arena of "
            << f.name() << " while both are live";
        return msg.str();
      }
      auto use = last_use.find(id);
      live[t.offset()] = Live{stop, id, use == last_use.end() ? k : use->second};
    }
  }
  for (int32_t id : f.outputs()) {
    const program::Tensor &t = prog.tensors(id);
    if ((t.storage() == program::Tensor::ACTIVATION && !defined[id]) ||
        (t.storage() == program::Tensor::GRADIENT && !defined[id]) ||
        (t.storage() == program::Tensor::INPUT && !is_input[id])) {
      msg << "function " << f.name() << " returns tensor " << id << " ("
          << t.name() << "), which nothing in it defines";
      return msg.str();
    }
  }
  return "";
}
} // namespace

std::string validate_program(const program::Program &prog) {
  std::ostringstream msg;
  if (prog.tp() < 1 || prog.dp() < 1) {
    msg << "tp = " << prog.tp() << " and dp = " << prog.dp()
        << " must both be >= 1";
    return msg.str();
  }
  if (prog.micro_batch() < 0 || prog.seq() < 0) {
    msg << "micro_batch = " << prog.micro_batch() << " and seq = "
        << prog.seq() << " must not be negative";
    return msg.str();
  }
  const int num_tensors = prog.tensors_size();
  int64_t largest_arena = 0;
  for (const program::Function &f : prog.functions())
    largest_arena = std::max(largest_arena, f.arena_bytes());
  for (int i = 0; i < num_tensors; ++i) {
    const program::Tensor &t = prog.tensors(i);
    if (t.id() != i) {
      msg << "tensor " << i << " carries id " << t.id();
      return msg.str();
    }
    if (dtype_bytes(t.dtype()) == 0) {
      msg << "tensor " << i << " (" << t.name() << ") has no dtype";
      return msg.str();
    }
    if (!program::Tensor::Storage_IsValid(t.storage())) {
      msg << "tensor " << i << " (" << t.name() << ") has storage kind "
          << int(t.storage());
      return msg.str();
    }
    for (int64_t d : t.shape())
      if (d < 0) {
        msg << "tensor " << i << " (" << t.name()
            << ") has a negative dimension";
        return msg.str();
      }
    if (tensor_bytes(t) < 0) {
      msg << "tensor " << i << " (" << t.name()
          << ") has a size that does not fit in memory";
      return msg.str();
    }
    // Every activation gets an address in the shared arena, written or not,
    // so even one that no function writes must lie inside it.
    int64_t stop = 0;
    if (t.storage() == program::Tensor::ACTIVATION &&
        (t.offset() < 0 ||
         __builtin_add_overflow(t.offset(), tensor_bytes(t), &stop) ||
         stop > largest_arena)) {
      msg << "tensor " << i << " (" << t.name() << ", " << tensor_bytes(t)
          << " bytes at offset " << t.offset()
          << ") lies outside the arena of every function (the largest has "
          << largest_arena << " bytes)";
      return msg.str();
    }
  }
  auto in_range = [&](int32_t id) { return id >= 0 && id < num_tensors; };
  std::vector<char> is_parameter(num_tensors, 0);
  for (const program::Parameter &p : prog.parameters()) {
    if (!in_range(p.tensor()) ||
        prog.tensors(p.tensor()).storage() != program::Tensor::PARAMETER) {
      msg << "parameter " << p.name() << " does not name a parameter tensor";
      return msg.str();
    }
    if (is_parameter[p.tensor()]) {
      msg << "parameter " << p.name() << " shares tensor " << p.tensor()
          << " with another parameter";
      return msg.str();
    }
    is_parameter[p.tensor()] = 1;
    const program::Tensor &local = prog.tensors(p.tensor());
    if (p.global_shape_size() != local.shape_size()) {
      msg << "parameter " << p.name()
          << " has a global shape of another rank than its local shape";
      return msg.str();
    }
    for (int d = 0; d < p.global_shape_size(); ++d)
      if (p.global_shape(d) < local.shape(d)) {
        msg << "parameter " << p.name()
            << " has a global shape smaller than its local shape";
        return msg.str();
      }
    if (num_elements(p.global_shape()) < 0 || p.valid_extent() < 0) {
      msg << "parameter " << p.name() << " has a global shape or valid "
          << "extent out of range";
      return msg.str();
    }
    // A master copy is fp32 behind a 16-bit working copy; a gradient is of
    // the working copy's type or fp32.
    bool half = local.dtype() == program::BF16 || local.dtype() == program::F16;
    if (p.master_dtype() != program::DTYPE_UNSPECIFIED &&
        (p.master_dtype() != program::F32 || !half)) {
      msg << "parameter " << p.name() << ": its tensor is "
          << dtype_text(local.dtype()) << " and its master copy "
          << dtype_text(p.master_dtype())
          << "; only a bf16 or f16 tensor has a master copy, of f32";
      return msg.str();
    }
    if (half && p.master_dtype() == program::DTYPE_UNSPECIFIED) {
      msg << "parameter " << p.name() << " is a "
          << dtype_text(local.dtype())
          << " tensor without a master copy; a 16-bit parameter keeps an f32 "
             "master (tpc-compile --precision writes one)";
      return msg.str();
    }
    if (p.grad_dtype() != program::DTYPE_UNSPECIFIED &&
        p.grad_dtype() != program::F32 && p.grad_dtype() != local.dtype()) {
      msg << "parameter " << p.name() << ": its tensor is "
          << dtype_text(local.dtype()) << " and its gradient "
          << dtype_text(p.grad_dtype())
          << "; a gradient is of the tensor's type or f32";
      return msg.str();
    }
    if (local.dtype() == program::I32) {
      msg << "parameter " << p.name() << " is an i32 tensor; parameters are "
          << "floating point";
      return msg.str();
    }
  }
  std::vector<char> written(num_tensors, 0);
  for (const program::Function &f : prog.functions()) {
    if (f.arena_bytes() < 0) {
      msg << "function " << f.name() << " has a negative arena size";
      return msg.str();
    }
    for (int32_t id : f.inputs())
      if (!in_range(id) || prog.tensors(id).storage() != program::Tensor::INPUT) {
        msg << "function " << f.name()
            << " has an input out of range or not an input tensor";
        return msg.str();
      }
    for (int32_t id : f.outputs())
      if (!in_range(id)) {
        msg << "function " << f.name() << " has an output out of range";
        return msg.str();
      }
    for (int k = 0; k < f.body_size(); ++k) {
      const program::Instruction &inst = f.body(k);
      for (int32_t id : inst.inputs())
        if (!in_range(id)) {
          msg << "instruction " << k << " (" << inst.op() << ") of " << f.name()
              << " reads tensor " << id << " out of range";
          return msg.str();
        }
      for (int32_t id : inst.outputs())
        if (!in_range(id)) {
          msg << "instruction " << k << " (" << inst.op() << ") of " << f.name()
              << " writes tensor " << id << " out of range";
          return msg.str();
        }
      // Targets are int32: a wider ignore_index would wrap onto a token.
      auto ignore = inst.attrs().find("ignore_index");
      if (ignore != inst.attrs().end() &&
          (ignore->second.i() < std::numeric_limits<int32_t>::min() ||
           ignore->second.i() > std::numeric_limits<int32_t>::max())) {
        msg << "instruction " << k << " (" << inst.op() << ") of " << f.name()
            << " has ignore_index " << ignore->second.i()
            << ", outside the int32 range of the targets";
        return msg.str();
      }
    }
    std::string problem = check_arena(prog, f, written);
    if (!problem.empty())
      return problem;
  }
  return "";
}

std::string describe_memory_need(const program::Program &prog) {
  auto gib = [](double bytes) {
    std::ostringstream out;
    out << std::fixed;
    out.precision(1);
    if (bytes >= double(int64_t(1) << 30))
      out << bytes / double(int64_t(1) << 30) << " GiB";
    else if (bytes >= double(1 << 20))
      out << bytes / double(1 << 20) << " MiB";
    else
      out << std::llround(bytes) << " bytes";
    return out.str();
  };
  double arenas = 0, params = 0;
  for (const program::Function &f : prog.functions())
    arenas += double(f.arena_bytes());
  for (const program::Parameter &p : prog.parameters()) {
    const program::Tensor &t = prog.tensors(p.tensor());
    params += double(tensor_bytes(t));
    if (p.master_dtype() != program::DTYPE_UNSPECIFIED)
      params += double(num_elements(t.shape())) * dtype_bytes(p.master_dtype());
  }
  std::ostringstream msg;
  msg << "out of memory: one rank of this program (tp " << prog.tp() << ", dp "
      << prog.dp() << ", micro-batch " << prog.micro_batch() << ", seq "
      << prog.seq() << ") allocates arenas of " << gib(arenas)
      << " and parameters of " << gib(params)
      << " (four times that with gradients and AdamW state); compile with a "
         "smaller --micro-batch or --seq, or a larger --tp "
         "(tpc-compile --report shows the memory per rank)";
  return msg.str();
}

} // namespace tpc
