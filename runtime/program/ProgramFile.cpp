//===- ProgramFile.cpp - Reading and writing tpc program files --*- C++ -*-===//

#include "runtime/program/ProgramFile.h"
#include "runtime/io/FileUtil.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>

namespace tpc {

namespace {
constexpr char kMagic[8] = {'T', 'P', 'C', 'P', 'R', 'O', 'G', '\0'};

std::string fixHint() {
  return "; recompile the model with tpc-compile to get a valid program";
}
} // namespace

int64_t dtypeBytes(program::DType dtype) {
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

int64_t numElements(const google::protobuf::RepeatedField<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string writeProgramFile(const std::string &path,
                             const program::Program &prog,
                             const std::string &interpreter) {
  std::string payload;
  if (!prog.SerializeToString(&payload))
    return "cannot serialize the program (is it larger than 2 GiB?)";
  std::string header = "#!" + interpreter + "\n";
  header.append(kMagic, sizeof(kMagic));
  uint64_t length = payload.size();
  for (int i = 0; i < 8; ++i)
    header.push_back(static_cast<char>(length >> (8 * i)));
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

program::Program readProgramFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(
        path + ": cannot open the program file: " + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  size_t pos = 0;
  if (bytes.compare(0, 2, "#!") == 0) {
    pos = bytes.find('\n');
    if (pos == std::string::npos)
      throw std::runtime_error(path + ": the file ends inside its #! line" +
                               fixHint());
    ++pos;
  }
  if (bytes.size() < pos + 16 ||
      std::memcmp(bytes.data() + pos, kMagic, sizeof(kMagic)) != 0)
    throw std::runtime_error(path + ": not a tpc program (bad magic)" +
                             fixHint());
  uint64_t length = 0;
  for (int i = 0; i < 8; ++i)
    length |=
        static_cast<uint64_t>(static_cast<unsigned char>(bytes[pos + 8 + i]))
        << (8 * i);
  pos += 16;
  uint64_t available = bytes.size() - pos;
  if (length != available) {
    std::ostringstream msg;
    msg << path << ": the header announces " << length
        << " bytes of program but the file holds " << available
        << (length > available ? " (truncated)" : " (trailing bytes)")
        << fixHint();
    throw std::runtime_error(msg.str());
  }
  program::Program prog;
  if (!prog.ParseFromArray(bytes.data() + pos, static_cast<int>(length)))
    throw std::runtime_error(path + ": the program payload is corrupted" +
                             fixHint());
  if (prog.version() != kProgramVersion) {
    std::ostringstream msg;
    msg << path << ": program format version " << prog.version()
        << ", but this tpc-run reads version " << kProgramVersion << fixHint();
    throw std::runtime_error(msg.str());
  }
  std::string problem = validateProgram(prog);
  if (!problem.empty())
    throw std::runtime_error(path + ": invalid program: " + problem +
                             fixHint());
  return prog;
}

std::string validateProgram(const program::Program &prog) {
  std::ostringstream msg;
  if (prog.tp() < 1 || prog.dp() < 1) {
    msg << "tp = " << prog.tp() << " and dp = " << prog.dp()
        << " must both be >= 1";
    return msg.str();
  }
  const int numTensors = prog.tensors_size();
  for (int i = 0; i < numTensors; ++i) {
    const program::Tensor &t = prog.tensors(i);
    if (t.id() != i) {
      msg << "tensor " << i << " carries id " << t.id();
      return msg.str();
    }
    if (dtypeBytes(t.dtype()) == 0) {
      msg << "tensor " << i << " (" << t.name() << ") has no dtype";
      return msg.str();
    }
    for (int64_t d : t.shape())
      if (d < 0) {
        msg << "tensor " << i << " (" << t.name()
            << ") has a negative dimension";
        return msg.str();
      }
  }
  auto inRange = [&](int32_t id) { return id >= 0 && id < numTensors; };
  for (const program::Parameter &p : prog.parameters()) {
    if (!inRange(p.tensor()) ||
        prog.tensors(p.tensor()).storage() != program::Tensor::PARAMETER) {
      msg << "parameter " << p.name() << " does not name a parameter tensor";
      return msg.str();
    }
    if (p.global_shape_size() != prog.tensors(p.tensor()).shape_size()) {
      msg << "parameter " << p.name()
          << " has a global shape of another rank than its local shape";
      return msg.str();
    }
  }
  for (const program::Function &f : prog.functions()) {
    for (int32_t id : f.inputs())
      if (!inRange(id)) {
        msg << "function " << f.name() << " has an input out of range";
        return msg.str();
      }
    for (int32_t id : f.outputs())
      if (!inRange(id)) {
        msg << "function " << f.name() << " has an output out of range";
        return msg.str();
      }
    for (int k = 0; k < f.body_size(); ++k) {
      const program::Instruction &inst = f.body(k);
      for (int32_t id : inst.inputs())
        if (!inRange(id)) {
          msg << "instruction " << k << " (" << inst.op() << ") of " << f.name()
              << " reads tensor " << id << " out of range";
          return msg.str();
        }
      for (int32_t id : inst.outputs()) {
        if (!inRange(id)) {
          msg << "instruction " << k << " (" << inst.op() << ") of " << f.name()
              << " writes tensor " << id << " out of range";
          return msg.str();
        }
        const program::Tensor &t = prog.tensors(id);
        int64_t end =
            t.offset() + numElements(t.shape()) * dtypeBytes(t.dtype());
        if (t.storage() == program::Tensor::ACTIVATION &&
            (t.offset() < 0 || end > f.arena_bytes())) {
          msg << "tensor " << id << " (" << t.name()
              << ") lies outside the arena of " << f.name();
          return msg.str();
        }
      }
    }
  }
  return "";
}

} // namespace tpc
