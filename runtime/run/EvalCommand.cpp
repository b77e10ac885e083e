//===- EvalCommand.cpp - tpc-run eval: the loss over a token file ---------===//

#include "runtime/program/Abi.h"
#include "runtime/run/Command.h"
#include "runtime/run/Run.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace tpc {

void add_eval_flags(CLI::App &app, CommandOptions &opt) {
  app.add_option("--data", opt.data, "llm.c token file")->required();
  app.add_option("--load", opt.load, "Checkpoint to evaluate");
  app.add_option("--max-batches", opt.max_batches,
                 "Stop after this many global batches (default: the file)");
  app.add_flag("--json", opt.json, "Print one JSON line");
  auto *masks = app.add_option(
      "--masks", opt.masks.path,
      "Masked-LM evaluation (BERT): a file of one byte per token of --data, "
      "1 where the token is predicted; window w holds tokens [w*T, "
      "(w+1)*T) and a predicted input becomes --mask-id; prints the loss "
      "and the accuracy over the predicted positions");
  auto *mask_id = app.add_option("--mask-id", opt.masks.mask_id,
                                 "The input id of a predicted position "
                                 "([MASK]: 103 in bert-base-uncased)");
  masks->needs(mask_id);
  mask_id->needs(masks);
  add_mlm_flags(app, opt.masks);
  app.add_option("--save-batches", opt.masks.save_batches,
                 "Write the batches evaluated (data-parallel rank 0's) to "
                 "this file as int32 inputs, targets, token types [B,T] and "
                 "key lengths [B] per batch, for a reference to run the same "
                 "rows");
}

void add_mlm_flags(CLI::App &app, MaskOptions &masks) {
  CLI::Option *mlm = app.add_flag(
      "--mlm", masks.mlm,
      "BERT's masked-LM pre-training batches (a BERT program): rows [CLS] A "
      "[SEP] B [SEP] of consecutive sentences of --data as `tpc-data encode "
      "--tokenizer bert-uncased --sentences` marks them, token types 0 then "
      "1, then [PAD]; --mlm-probability of A's and B's tokens are predicted, "
      "80% of those become [MASK], 10% a random token and 10% stay, drawn "
      "from --seed");
  app.add_option("--mlm-probability", masks.mlm_probability,
                 "The share of the tokens --mlm predicts")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0))
      ->needs(mlm);
  app.add_flag("--sop", masks.sentence_order,
               "With --mlm, for a model with the sentence-order head "
               "(tpc-model bert --head pretraining): A and B swap in half the "
               "rows, whose label is then 1; train adds the head's mean loss "
               "to the masked-LM one, and both commands report its loss and "
               "accuracy (without --sop the head gets no loss)")
      ->needs(mlm);
  app.add_option("--vocab-dir", masks.vocab_dir,
                 "With --mlm: the directory of BERT's vocab.txt, which gives "
                 "the ids of [CLS], [SEP], [PAD] and [MASK] (default: "
                 "${TPC_CACHE:-~/.cache/tpc}/bert-uncased)")
      ->needs(mlm);
  mlm->excludes("--masks");
}

int eval_command(Session &s, const CommandOptions &opt) {
  ModelEntry entry;
  together(s.comm, [&] {
    entry = describe_entry(s.ex, abi::kForward);
    check_loss_entry(s.ex, entry);
  });
  load_weights(s, opt, false);
  MaskOptions masks = opt.masks;
  masks.seed = opt.seed;
  EvalResult r = evaluate(s.ex, entry, opt.data, opt.max_batches, masks);
  // Every rank holds the same all-reduced loss, and --json stays JSON.
  if (!std::isfinite(r.loss))
    throw weights_overflow("the eval loss (" + std::to_string(r.loss) + ") is",
                           opt.load);
  if (!s.root)
    return 0;
  std::string sop, sop_json;
  if (r.sop_loss) {
    char text[128];
    std::snprintf(text, sizeof(text),
                  ", sentence order loss %.4f accuracy %.4f", *r.sop_loss,
                  *r.sop_accuracy);
    sop = text;
    std::snprintf(text, sizeof(text),
                  ", \"sop_loss\": %.9g, \"sop_accuracy\": %.9g", *r.sop_loss,
                  *r.sop_accuracy);
    sop_json = text;
  }
  if (opt.json && r.accuracy)
    std::printf("{\"loss\": %.9g, \"accuracy\": %.9g, \"predicted\": %lld, "
                "\"batches\": %lld, \"tp\": %d, \"dp\": %d%s}\n",
                r.loss, *r.accuracy, (long long)r.tokens, (long long)r.batches,
                s.comm.tp_size(), s.comm.dp_size(), sop_json.c_str());
  else if (opt.json)
    std::printf("{\"loss\": %.9g, \"tokens\": %lld, \"batches\": %lld, "
                "\"tp\": %d, \"dp\": %d}\n",
                r.loss, (long long)r.tokens, (long long)r.batches,
                s.comm.tp_size(), s.comm.dp_size());
  else if (r.accuracy)
    std::printf("eval loss %.4f accuracy %.4f over %lld predicted tokens%s\n",
                r.loss, *r.accuracy, (long long)r.tokens, sop.c_str());
  else
    std::printf("eval loss %.4f over %lld tokens\n", r.loss,
                (long long)r.tokens);
  return 0;
}

} // namespace tpc
