//===- PipelineRun.cpp - A pipelined program's stage ----------------------===//

#include "runtime/run/PipelineRun.h"
#include "runtime/backend/Collectives.h"
#include "runtime/comm/Faults.h"
#include "runtime/program/Abi.h"
#include "runtime/program/OpSchema.h"
#include "runtime/program/ProgramFile.h"

#include <stdexcept>
#include <string>

namespace tpc {

namespace {
using Action = program::Pipeline::Action;
using Role = program::ChunkFunction;

/// Messages between two stages are told apart by their channel: the
/// receiving chunk, the value's place among the chunk's messages and the
/// direction. MPI guarantees tags up to 32767.
constexpr int kMaxMessages = 32;
int tag_of(int chunk, int value, bool grad) {
  return (chunk * kMaxMessages + value) * 2 + (grad ? 1 : 0);
}
} // namespace

PipelineRunner::PipelineRunner(Executor &ex) : ex_(ex) {
  const program::Program &prog = ex.program();
  const program::Pipeline &p = prog.pipeline();
  Comm &comm = ex.comm();
  stages_ = int(p.stages());
  micro_batches_ = int(p.micro_batches());
  int chunks = int(p.stages() * p.virtual_stages());
  if (stages_ < 2 || micro_batches_ < 1 || chunks < stages_ ||
      p.stage_actions_size() != stages_ || p.slots_size() != chunks)
    throw std::runtime_error(
        "the program's pipeline is malformed: " + std::to_string(stages_) +
        " stages, " + std::to_string(chunks) + " chunks, " +
        std::to_string(p.stage_actions_size()) +
        " action lists; recompile it with tpc-compile");
  if (tag_of(chunks, 0, false) > 32767)
    throw std::runtime_error("the pipeline has " + std::to_string(chunks) +
                             " chunks, more than its messages can tell apart; "
                             "use fewer --pp x --virtual-stages");
  chunks_.resize(size_t(chunks));
  for (const program::Function &fn : prog.functions()) {
    if (!fn.has_chunk())
      continue;
    int c = fn.chunk().chunk();
    if (c < 0 || c >= chunks)
      throw std::runtime_error("function '" + fn.name() + "' names chunk " +
                               std::to_string(c) + " of a pipeline of " +
                               std::to_string(chunks));
    Messages &m = messages_[&fn];
    for (const program::Instruction &inst : fn.body()) {
      bool recv = inst.op() == op::kRecv;
      if (!recv && inst.op() != op::kSend)
        continue;
      Message message;
      message.tensor = recv ? inst.outputs(0) : inst.inputs(0);
      message.peer = int(find_attr(inst, "chunk")->i());
      message.index = int(find_attr(inst, "index")->i());
      message.grad = inst.attrs().count("grad") > 0;
      // Activations come from the previous chunk and go to the next,
      // gradients the other way.
      int neighbour = message.grad == recv ? c + 1 : c - 1;
      if (message.peer != neighbour || message.index >= kMaxMessages)
        throw std::runtime_error(
            "function '" + fn.name() + "' " + (recv ? "receives" : "sends") +
            " message " + std::to_string(message.index) +
            (recv ? " from" : " to") + " chunk " +
            std::to_string(message.peer) +
            ", which is not one of its neighbour's first " +
            std::to_string(kMaxMessages) + "; recompile the program");
      (recv ? m.recvs : m.sends).push_back(message);
    }
    const program::Function **slot = nullptr;
    switch (fn.chunk().role()) {
    case Role::FORWARD:
      slot = &chunks_[size_t(c)].f;
      break;
    case Role::BACKWARD_INPUT:
      slot = &chunks_[size_t(c)].b;
      break;
    case Role::BACKWARD_WEIGHT:
      slot = &chunks_[size_t(c)].w;
      break;
    default:
      slot = &chunks_[size_t(c)].e;
      break;
    }
    *slot = &fn;
  }
  for (int c = 0; c < chunks; ++c) {
    const Chunk &k = chunks_[size_t(c)];
    if (!k.f || !k.b || !k.w || !k.e)
      throw std::runtime_error("pipeline chunk " + std::to_string(c) +
                               " lacks a function; recompile the program");
  }
  // A forward takes what its eval takes (the batch: tokens, targets and
  // an encoder's extras), then an fp16 program's loss scale.
  const program::Function &f0 = *chunks_[0].f;
  int data = chunks_[0].e->inputs_size();
  if (data < 2 || f0.inputs_size() < data || f0.inputs_size() > data + 1)
    throw std::runtime_error(
        "'" + f0.name() + "' takes " + std::to_string(f0.inputs_size()) +
        " inputs and '" + chunks_[0].e->name() + "' " + std::to_string(data) +
        "; a forward takes the batch (tokens, targets "
        "and extras), then the loss scale");
  const program::Tensor &tokens = prog.tensors(f0.inputs(0));
  if (tokens.shape_size() != 2)
    throw std::runtime_error("'" + f0.name() +
                             "' takes tokens that are not "
                             "[B,T]");
  B_ = int(tokens.shape(0));
  T_ = int(tokens.shape(1));
  scales_loss_ = f0.inputs_size() == data + 1;
  if (scales_loss_)
    loss_scale_input_ = data;
  apply_ = &ex.function(abi::stage_apply_step(comm.pp_rank()));
  actions_ = &p.stage_actions(comm.pp_rank());
  for (const Action &a : actions_->actions())
    if (a.chunk() < 0 || a.chunk() >= chunks ||
        stage_of(a.chunk()) != comm.pp_rank() || a.micro() < 0 ||
        a.micro() >= micro_batches_ || a.slot() < 0 ||
        a.slot() >= p.slots(a.chunk()))
      throw std::runtime_error(
          "pipeline stage " + std::to_string(comm.pp_rank()) +
          " has an action on chunk " + std::to_string(a.chunk()) +
          ", micro-batch " + std::to_string(a.micro()) + ", slot " +
          std::to_string(a.slot()) + " that it cannot run");
  for (int c = comm.pp_rank(); c < chunks; c += stages_)
    for (const program::Function *fn :
         {chunks_[size_t(c)].f, chunks_[size_t(c)].b, chunks_[size_t(c)].w,
          chunks_[size_t(c)].e})
      ex.check(*fn);
  ex.check(*apply_);
}

void PipelineRunner::write(const program::Function &fn, int input, int slot,
                           const void *host, size_t bytes) {
  int id = fn.inputs(input);
  if (bytes != ex_.tensor_bytes(id))
    throw std::runtime_error("input " + std::to_string(input) + " of '" +
                             fn.name() + "' holds " +
                             std::to_string(ex_.tensor_bytes(id)) +
                             " bytes, not " + std::to_string(bytes));
  ex_.backend().copy_host_to_device(ex_.slot_ptr(id, slot), host, bytes);
}

void PipelineRunner::write_batch(const program::Function &fn, int slot,
                                 const Batch &batch) {
  write(fn, 0, slot, batch.inputs.data(), batch.inputs.size() * sizeof(int));
  write(fn, 1, slot, batch.targets.data(), batch.targets.size() * sizeof(int));
  for_each_batch_extra(fn, batch,
                       [&](int input, const void *data, size_t bytes) {
                         write(fn, input, slot, data, bytes);
                       });
}

bool PipelineRunner::holds_last() const {
  return stage_of(int(chunks_.size()) - 1) == ex_.comm().pp_rank();
}

void PipelineRunner::send_all(const program::Function &fn, int slot) {
  for (const Message &m : messages(fn).sends)
    ex_.collectives().send(ex_.slot_ptr(m.tensor, slot),
                           ex_.tensor_bytes(m.tensor), stage_of(m.peer),
                           Group::PP, tag_of(m.peer, m.index, m.grad));
}

void PipelineRunner::post_all(const program::Function &fn, int chunk, int slot,
                              std::vector<RecvHandle> &into) {
  for (const Message &m : messages(fn).recvs)
    into.push_back(ex_.collectives().start_recv(
        ex_.slot_ptr(m.tensor, slot), ex_.tensor_bytes(m.tensor),
        stage_of(m.peer), Group::PP, tag_of(chunk, m.index, m.grad)));
}

void PipelineRunner::read(const program::Function &fn, int output, int slot,
                          void *host, size_t bytes) {
  int id = fn.outputs(output);
  if (bytes != ex_.tensor_bytes(id))
    throw std::runtime_error("output " + std::to_string(output) + " of '" +
                             fn.name() + "' holds " +
                             std::to_string(ex_.tensor_bytes(id)) +
                             " bytes, not " + std::to_string(bytes));
  ex_.backend().synchronize();
  ex_.backend().copy_device_to_host(host, ex_.slot_ptr(id, slot), bytes);
}

void PipelineRunner::add_loss(const program::Function &fn, int slot,
                              double totals[2]) {
  // The last chunk's forward and eval return the loss sum and count first.
  float sum = 0.0f;
  int32_t count = 0;
  read(fn, 0, slot, &sum, sizeof(sum));
  read(fn, 1, slot, &count, sizeof(count));
  totals[0] += sum;
  totals[1] += count;
}

void PipelineRunner::add_sentence_order(const program::Function &fn, int slot,
                                        const Batch &batch, double totals[2]) {
  std::vector<float> logits(2 * batch.sentence_order.size());
  read(fn, fn.sentence_order_logits_output(), slot, logits.data(),
       logits.size() * sizeof(float));
  tpc::add_sentence_order(logits, batch, totals);
}

void PipelineRunner::train_step(const std::vector<Batch> &batches,
                                uint64_t first_micro, uint64_t seed,
                                float loss_scale, double totals[2],
                                double sentence_order[2]) {
  if (int(batches.size()) != micro_batches_)
    throw std::runtime_error(
        "the pipeline's schedule runs " + std::to_string(micro_batches_) +
        " micro-batches a step, not " + std::to_string(batches.size()));
  const int last = int(chunks_.size()) - 1;
  // Receives posted and not yet waited for, by (kind, chunk, micro).
  std::map<std::tuple<bool, int, int>, std::vector<RecvHandle>> pending;
  auto wait = [&](bool grad, int c, int m) {
    auto it = pending.find({grad, c, m});
    if (it == pending.end())
      return;
    for (RecvHandle h : it->second)
      ex_.collectives().wait_recv(h);
    pending.erase(it);
  };
  for (const Action &a : actions_->actions()) {
    const int c = a.chunk(), m = a.micro(), slot = a.slot();
    const Chunk &k = chunks_[size_t(c)];
    RunOptions options;
    options.training = true;
    options.seed = seed;
    options.step = first_micro + uint64_t(m);
    options.first_micro_batch = m == 0;
    switch (a.kind()) {
    case Action::RECV_ACTIVATION:
      post_all(*k.f, c, slot, pending[{false, c, m}]);
      break;
    case Action::FORWARD:
      write_batch(*k.f, slot, batches[size_t(m)]);
      if (scales_loss_)
        write(*k.f, loss_scale_input_, slot, &loss_scale, sizeof(loss_scale));
      wait(false, c, m);
      ex_.run(*k.f, options, slot);
      if (c == last)
        add_loss(*k.f, slot, totals);
      if (c == last && sentence_order &&
          k.f->has_sentence_order_logits_output())
        add_sentence_order(*k.f, slot, batches[size_t(m)], sentence_order);
      // For the tests of a rank that dies while its peers wait on it.
      if (m == 0)
        fault_point("mid-schedule", ex_.comm().world_rank(),
                    int64_t(first_micro) / micro_batches_ + 1);
      break;
    case Action::SEND_ACTIVATION:
      send_all(*k.f, slot);
      break;
    case Action::RECV_GRAD:
      post_all(*k.b, c, slot, pending[{true, c, m}]);
      break;
    case Action::BACKWARD_INPUT:
      wait(true, c, m);
      ex_.run(*k.b, options, slot);
      break;
    case Action::SEND_GRAD:
      send_all(*k.b, slot);
      break;
    case Action::BACKWARD_WEIGHT:
      ex_.run(*k.w, options, slot);
      break;
    default:
      throw std::runtime_error("unknown pipeline action " +
                               std::to_string(int(a.kind())));
    }
  }
  if (!pending.empty())
    throw std::runtime_error("the pipeline schedule left receives that no "
                             "function waited for");
}

void PipelineRunner::eval(const Batch &batch, double totals[2]) {
  const int me = ex_.comm().pp_rank();
  for (int c = 0; c < int(chunks_.size()); ++c) {
    if (stage_of(c) != me)
      continue;
    const program::Function &e = *chunks_[size_t(c)].e;
    write_batch(e, 0, batch);
    std::vector<RecvHandle> received;
    post_all(e, c, 0, received);
    for (RecvHandle h : received)
      ex_.collectives().wait_recv(h);
    ex_.run(e);
    send_all(e, 0);
    if (c == int(chunks_.size()) - 1)
      add_loss(e, 0, totals);
  }
}

} // namespace tpc
