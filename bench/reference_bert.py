#!/usr/bin/python3
"""A plain BERT in PyTorch: tpc's numerical reference for its BERT models.

The semantics are those of the BERT paper and Hugging Face's
BertForPreTraining / BertForMaskedLM: word, learned position and token-type
embeddings summed; bidirectional self-attention (scale 1/sqrt(head_dim), a
float32 softmax) in which padded keys (attention_mask 0) get no weight;
a GELU MLP (exact erf by default, tanh optional); LayerNorm eps 1e-12 by
default; the masked-LM head dense H->H, GELU, LayerNorm, then logits =
h @ word_embeddings^T + cls.predictions.bias (the decoder is always tied to
the word embeddings); an optional pooler (tanh(dense(h[:, 0]))) and 2-way
next-sentence / sentence-order head. Two layouts:

  post (original BERT, Hugging Face): x = LN_emb(embeddings), then per layer
       x = LN_a(x + Attn(x)), x = LN_m(x + MLP(x))
  pre  (Megatron-LM): x = embeddings (no embedding LayerNorm), then per layer
       x = x + Attn(LN_a(x)), x = x + MLP(LN_m(x)), and x = LN_f(x) at the end

Dropout (off unless train --dropout P) sits where Hugging Face and Megatron
put it: after the embeddings (and their LayerNorm), on the attention
probabilities, and on each sublayer's output before the residual add.

Safetensors names (Hugging Face BertForPreTraining; nn.Linear's [out, in]):

  bert.embeddings.word_embeddings.weight            [V, H]
  bert.embeddings.position_embeddings.weight        [P, H]
  bert.embeddings.token_type_embeddings.weight      [2, H]
  bert.embeddings.LayerNorm.weight/bias             [H]      post only: LN_emb
  bert.encoder.layer.N.attention.self.query/key/value.weight/bias  [H, H], [H]
  bert.encoder.layer.N.attention.output.dense.weight/bias          [H, H], [H]
  bert.encoder.layer.N.attention.output.LayerNorm.weight/bias      [H]  LN_a
  bert.encoder.layer.N.intermediate.dense.weight/bias              [I, H], [I]
  bert.encoder.layer.N.output.dense.weight/bias                    [H, I], [H]
  bert.encoder.layer.N.output.LayerNorm.weight/bias                [H]  LN_m
  bert.encoder.final_layernorm.weight/bias          [H]      pre only: LN_f
  bert.pooler.dense.weight/bias                     [H, H], [H]  (optional)
  cls.predictions.transform.dense.weight/bias       [H, H], [H]
  cls.predictions.transform.LayerNorm.weight/bias   [H]
  cls.predictions.bias                              [V]
  cls.seq_relationship.weight/bias                  [2, H], [2]  (optional)

In the pre layout LN_a (attention.output.LayerNorm) is applied to the
attention sublayer's input (Megatron's input_layernorm) and LN_m
(output.LayerNorm) to the MLP's input (Megatron's post_attention_layernorm);
the layout is read off the names: bert.encoder.final_layernorm present and
bert.embeddings.LayerNorm absent. Reading also accepts what Hugging Face
checkpoints hold besides: cls.predictions.decoder.weight (must equal the
word embeddings) and cls.predictions.decoder.bias (must equal
cls.predictions.bias) are dropped, as are the position_ids/token_type_ids
buffers and optimizer.* tensors; LayerNorm.gamma/beta are read as
weight/bias. Written checkpoints hold exactly the names above. There is no
padding_idx: every word embedding row is initialized and trained alike.

Data (the parity mode): an llm.c token file (reference_gpt2.read_tokens) and
a mask file of one byte per token (1: predicted, 0: not). Window w holds
tokens [w*T, (w+1)*T); batch b is windows [b*B, (b+1)*B) (training wraps to
the start when the next batch would run past the end); token types are 0
and nothing is padded. A predicted position's input is --mask-id and its
label the original token; the loss is the mean cross-entropy over the
batch's predicted positions (float32 per token, summed in float64), and eval
weights batches by their predicted positions. A batch with none has loss 0.
Training is reference_gpt2.py's AdamW loop on the masked-LM loss alone: the
pooler and sentence head get no gradient, so AdamW leaves them (and their
weight decay) untouched.

Runs with Debian's python3-torch (/usr/bin/python3); torch and numpy only.

  reference_bert.py init  (--preset bert-base|bert-large | --vocab V --layers L --hidden H)
                          [--intermediate I (4H)] [--positions P (512)] [--types 2]
                          [--layout post|pre] [--head pretraining|mlm] [--seed S]
                          [--decoder] [--dtype f32|f16|bf16] [--wrong-shape NAME]
                          -o OUT.safetensors
  reference_bert.py masks --data TOKENS -o MASKS [--rate 0.15] [--seed S]
                          (each position predicted independently with probability --rate)
  reference_bert.py eval  --load CKPT --heads A --data TOKENS --masks MASKS --mask-id ID
                          --batch B --seq T [--max-batches N] [MODEL]
                          (one JSON line: loss, accuracy, predicted, tokens, batches)
  reference_bert.py train --load CKPT --heads A --data TOKENS --masks MASKS --mask-id ID
                          --batch B --seq T --steps N [--lr ...] [--log OUT.jsonl]
                          [--save OUT.safetensors] [--dropout P] [--seed S] [MODEL]
                          (one JSON line per step on stdout, and in --log)
  reference_bert.py selftest  (checks against independent formulations; one JSON
                          line, exit status 1 when a check fails)

  MODEL: [--layout post|pre (default: the checkpoint's)] [--gelu exact|tanh]
         [--norm-eps 1e-12] [--threads N]
  train's optimizer flags are reference_gpt2.py's (tpc-run train's defaults).
"""
import argparse
import importlib.util
import json
import math
import os
import re
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_gpt2 as ref  # noqa: E402

EMB = 'bert.embeddings.'
LAYER = 'bert.encoder.layer.%d.'
FINAL_NORM = 'bert.encoder.final_layernorm.'
POOLER = 'bert.pooler.dense.'
HEAD = 'cls.predictions.'
NSP = 'cls.seq_relationship.'
IGNORE = -100  # the label of a position that is not predicted

PRESETS = {
    'bert-base': dict(vocab=30522, layers=12, hidden=768, heads=12, intermediate=3072,
                      positions=512, types=2),
    'bert-large': dict(vocab=30522, layers=24, hidden=1024, heads=16, intermediate=4096,
                       positions=512, types=2),
}

#===----------------------------------------------------------------------===#
# The model
#===----------------------------------------------------------------------===#


class Bert:
    """Parameters under the names of the table above; the configuration
    (sizes, layout, heads present) is read off their names and shapes."""

    def __init__(self, params, heads, gelu='exact', norm_eps=1e-12, layout='', dropout=0.0):
        self.params = params
        word = params.get(EMB + 'word_embeddings.weight')
        if word is None or HEAD + 'bias' not in params:
            raise SystemExit('not a BERT masked-LM checkpoint: it holds no %s or no %s'
                             % (EMB + 'word_embeddings.weight', HEAD + 'bias'))
        layer_ids = [int(m.group(1)) for m in
                     (re.match(r'bert\.encoder\.layer\.(\d+)\.', k) for k in params) if m]
        if not layer_ids:
            raise SystemExit('the checkpoint holds no bert.encoder.layer.N. parameters')
        self.layers = 1 + max(layer_ids)
        self.vocab, self.hidden = word.shape
        try:
            self.positions = params[EMB + 'position_embeddings.weight'].shape[0]
            self.types = params[EMB + 'token_type_embeddings.weight'].shape[0]
            self.intermediate = params[LAYER % 0 + 'intermediate.dense.weight'].shape[0]
        except KeyError as e:
            raise SystemExit('the checkpoint holds no %s' % e.args[0])
        found = 'pre' if FINAL_NORM + 'weight' in params else 'post'
        if layout and layout != found:
            raise SystemExit('--layout %s, but the checkpoint is %s-norm (%s)' % (
                layout, found, 'it holds ' + FINAL_NORM + 'weight' if found == 'pre'
                else 'no ' + FINAL_NORM + 'weight'))
        self.layout = found
        self.pooler = POOLER + 'weight' in params
        self.nsp = NSP + 'weight' in params
        if heads <= 0 or self.hidden % heads:
            raise SystemExit('--heads %d does not divide the hidden size %d' % (heads, self.hidden))
        self.heads = heads
        if gelu not in ('exact', 'tanh'):
            raise SystemExit('--gelu must be exact or tanh, not ' + gelu)
        self.gelu_kind = gelu
        self.eps = norm_eps
        self.dropout = dropout
        self.training = False
        expected = self.shapes(self.vocab, self.layers, self.hidden, self.intermediate,
                               self.positions, self.types, self.layout, self.pooler, self.nsp)
        problems = ['missing ' + n for n in expected if n not in params]
        problems += ['unexpected ' + n for n in params if n not in expected]
        problems += ['%s is %s, expected %s' % (n, list(params[n].shape), s)
                     for n, s in expected.items() if n in params and list(params[n].shape) != s]
        if problems:
            raise SystemExit('not a %s-norm BERT checkpoint: %s%s' % (
                self.layout, '; '.join(problems[:4]), '; ...' if len(problems) > 4 else ''))

    @staticmethod
    def shapes(vocab, layers, hidden, intermediate, positions, types=2, layout='post',
               pooler=True, nsp=True, mlm=True):
        """{name: shape}; nsp needs the pooler. mlm=False leaves out the
        masked-LM head (BertModel's parameters, for counting)."""
        H, I = hidden, intermediate
        s = {EMB + 'word_embeddings.weight': [vocab, H],
             EMB + 'position_embeddings.weight': [positions, H],
             EMB + 'token_type_embeddings.weight': [types, H]}
        if layout == 'post':
            s[EMB + 'LayerNorm.weight'] = [H]
            s[EMB + 'LayerNorm.bias'] = [H]
        for i in range(layers):
            p = LAYER % i
            for proj in ('query', 'key', 'value'):
                s[p + 'attention.self.%s.weight' % proj] = [H, H]
                s[p + 'attention.self.%s.bias' % proj] = [H]
            s[p + 'attention.output.dense.weight'] = [H, H]
            s[p + 'attention.output.dense.bias'] = [H]
            s[p + 'attention.output.LayerNorm.weight'] = [H]
            s[p + 'attention.output.LayerNorm.bias'] = [H]
            s[p + 'intermediate.dense.weight'] = [I, H]
            s[p + 'intermediate.dense.bias'] = [I]
            s[p + 'output.dense.weight'] = [H, I]
            s[p + 'output.dense.bias'] = [H]
            s[p + 'output.LayerNorm.weight'] = [H]
            s[p + 'output.LayerNorm.bias'] = [H]
        if layout == 'pre':
            s[FINAL_NORM + 'weight'] = [H]
            s[FINAL_NORM + 'bias'] = [H]
        if pooler or nsp:
            s[POOLER + 'weight'] = [H, H]
            s[POOLER + 'bias'] = [H]
        if mlm:
            s[HEAD + 'transform.dense.weight'] = [H, H]
            s[HEAD + 'transform.dense.bias'] = [H]
            s[HEAD + 'transform.LayerNorm.weight'] = [H]
            s[HEAD + 'transform.LayerNorm.bias'] = [H]
            s[HEAD + 'bias'] = [vocab]
        if nsp:
            s[NSP + 'weight'] = [2, H]
            s[NSP + 'bias'] = [2]
        return s

    @classmethod
    def random(cls, vocab, layers, hidden, intermediate, positions, seed, types=2,
               layout='post', pooler=True, nsp=True, std=0.02, extra_std=0.0,
               dtype=torch.float32):
        """BERT's initialization: N(0, std) for every matrix and embedding,
        drawn in the order of shapes() from one seeded generator, biases
        zero, LayerNorm ones/zeros. extra_std > 0 (for the self-test) adds
        N(0, extra_std) to the biases and LayerNorm parameters so that each
        of them matters."""
        g = torch.Generator().manual_seed(seed)
        params = {}
        for name, shape in cls.shapes(vocab, layers, hidden, intermediate, positions, types,
                                      layout, pooler, nsp).items():
            if len(shape) >= 2:
                t = torch.randn(shape, generator=g) * std
            else:
                t = torch.ones(shape) if _is_norm_weight(name) else torch.zeros(shape)
                if extra_std:
                    t += torch.randn(shape, generator=g) * extra_std
            params[name] = t.to(dtype)
        return params

    def norm(self, x, prefix):
        return F.layer_norm(x, (self.hidden,), self.params[prefix + 'weight'],
                            self.params[prefix + 'bias'], self.eps)

    def gelu(self, x):
        return F.gelu(x, approximate='tanh' if self.gelu_kind == 'tanh' else 'none')

    def drop(self, x):
        return F.dropout(x, self.dropout, self.training) if self.dropout else x

    def linear(self, x, prefix):
        return F.linear(x, self.params[prefix + 'weight'], self.params[prefix + 'bias'])

    def embed(self, idx, types):
        """idx, types [B, T] -> [B, T, H]: the three embeddings summed,
        then (post) the embedding LayerNorm, then dropout."""
        T = idx.shape[1]
        if T > self.positions:
            raise SystemExit('--seq %d is past the %d position embeddings' % (T, self.positions))
        p = self.params
        x = (p[EMB + 'word_embeddings.weight'][idx] + p[EMB + 'position_embeddings.weight'][:T]
             + p[EMB + 'token_type_embeddings.weight'][types])
        if self.layout == 'post':
            x = self.norm(x, EMB + 'LayerNorm.')
        return self.drop(x)

    def attention(self, i, x, keys):
        """Layer i's attention sublayer on x [B, T, H] (the output dense
        included): keys [B, T] is True for the keys attended to (None: all)."""
        n = LAYER % i + 'attention.'
        B, T, H = x.shape
        A = self.heads
        D = H // A
        q, k, v = (self.linear(x, n + 'self.%s.' % proj).view(B, T, A, D).transpose(1, 2)
                   for proj in ('query', 'key', 'value'))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(D))
        if keys is not None:
            # The most negative value rather than -inf: a row with no key
            # left (a wholly padded sequence) stays finite, as in Hugging
            # Face, and a padded key's weight is exactly 0 otherwise.
            att = att.masked_fill(~keys[:, None, None, :], torch.finfo(att.dtype).min)
        att = att.softmax(dim=-1, dtype=torch.promote_types(att.dtype, torch.float32))
        y = (self.drop(att).to(v.dtype) @ v).transpose(1, 2).reshape(B, T, H)
        return self.linear(y, n + 'output.dense.')

    def mlp(self, i, x):
        n = LAYER % i
        return self.linear(self.gelu(self.linear(x, n + 'intermediate.dense.')),
                           n + 'output.dense.')

    def layer(self, i, x, keys):
        n = LAYER % i
        if self.layout == 'post':
            x = self.norm(x + self.drop(self.attention(i, x, keys)),
                          n + 'attention.output.LayerNorm.')
            return self.norm(x + self.drop(self.mlp(i, x)), n + 'output.LayerNorm.')
        x = x + self.drop(self.attention(i, self.norm(x, n + 'attention.output.LayerNorm.'), keys))
        return x + self.drop(self.mlp(i, self.norm(x, n + 'output.LayerNorm.')))

    def encode(self, idx, types=None, attention_mask=None):
        """The sequence output [B, T, H] of token ids idx [B, T]; types
        [B, T] (None: 0), attention_mask [B, T] (nonzero: a real token;
        None: all real)."""
        if types is None:
            types = torch.zeros_like(idx)
        keys = None if attention_mask is None else attention_mask.bool()
        x = self.embed(idx, types)
        for i in range(self.layers):
            x = self.layer(i, x, keys)
        if self.layout == 'pre':
            x = self.norm(x, FINAL_NORM)
        return x

    def mlm_logits(self, h):
        """The masked-LM head on h [..., H]: logits [..., V]."""
        t = self.norm(self.gelu(self.linear(h, HEAD + 'transform.dense.')),
                      HEAD + 'transform.LayerNorm.')
        return F.linear(t, self.params[EMB + 'word_embeddings.weight'], self.params[HEAD + 'bias'])

    def nsp_logits(self, h):
        """The pooler and the 2-way sentence head on h [B, T, H]: [B, 2]."""
        if not self.nsp:
            raise SystemExit('the checkpoint holds no %sweight' % NSP)
        pooled = torch.tanh(self.linear(h[:, 0], POOLER))
        return self.linear(pooled, NSP)

    def masked_lm(self, idx, labels, types=None, attention_mask=None):
        """(the sum of the cross-entropies of the predicted positions, a
        float64 scalar; their count; how many the argmax gets right).
        labels [B, T]: the target id, or IGNORE where not predicted. Only
        the predicted positions' logits are computed."""
        h = self.encode(idx, types, attention_mask)
        where = labels != IGNORE
        logits = self.mlm_logits(h[where])
        logits = logits.to(torch.promote_types(logits.dtype, torch.float32))
        target = labels[where]
        total = F.cross_entropy(logits, target, reduction='none').double().sum()
        correct = int((logits.detach().argmax(-1) == target).sum())
        return total, int(where.sum()), correct

    def forward(self, idx, labels, types=None, attention_mask=None):
        """The mean masked-LM loss over the predicted positions (0 when
        there are none), and their count: reference_gpt2.train's interface."""
        total, count, _ = self.masked_lm(idx, labels, types, attention_mask)
        return total / max(count, 1), count

    def pretraining_loss(self, idx, labels, sentence_labels, types=None, attention_mask=None):
        """BertForPreTraining's total loss: the mean masked-LM loss plus the
        mean cross-entropy of the sentence head against sentence_labels [B]."""
        h = self.encode(idx, types, attention_mask)
        where = labels != IGNORE
        wide = torch.promote_types(h.dtype, torch.float32)
        mlm = F.cross_entropy(self.mlm_logits(h[where]).to(wide), labels[where])
        return mlm + F.cross_entropy(self.nsp_logits(h).to(wide), sentence_labels)


def _is_norm_weight(name):
    return name.endswith('LayerNorm.weight') or name == FINAL_NORM + 'weight'


def parameter_count(preset, layout='post', pooler=True, nsp=True, mlm=True):
    c = PRESETS[preset]
    shapes = Bert.shapes(c['vocab'], c['layers'], c['hidden'], c['intermediate'],
                         c['positions'], c['types'], layout, pooler, nsp, mlm)
    return sum(math.prod(s) for s in shapes.values())


# Buffers of Hugging Face's BertEmbeddings, not parameters.
_BUFFER = re.compile(r'(bert\.)?embeddings\.(position_ids|token_type_ids)$')


def load_checkpoint(path):
    """The parameters of a tpc or Hugging Face checkpoint as float32 tensors
    under the names of the table above (see the file's comment for what is
    dropped or renamed)."""
    tensors, _ = ref.read_safetensors(path)
    params = {}
    for name, t in tensors.items():
        if _BUFFER.match(name) or name.startswith('optimizer.'):
            continue
        name = re.sub(r'LayerNorm\.gamma$', 'LayerNorm.weight', name)
        name = re.sub(r'LayerNorm\.beta$', 'LayerNorm.bias', name)
        if not isinstance(t, torch.Tensor):
            raise SystemExit('%s: tensor %s is not floating-point' % (path, name))
        params[name] = t
    tied = {HEAD + 'decoder.weight': EMB + 'word_embeddings.weight',
            HEAD + 'decoder.bias': HEAD + 'bias'}
    for name, twin in tied.items():
        if name not in params:
            continue
        t = params.pop(name)
        if twin not in params:
            raise SystemExit('%s: holds %s but no %s' % (path, name, twin))
        if not torch.equal(t, params[twin]):
            raise SystemExit('%s: %s differs from %s; BERT ties them' % (path, name, twin))
    return params


def model_of(args, dropout=0.0):
    return Bert(load_checkpoint(args.load), args.heads, args.gelu, args.norm_eps, args.layout,
                dropout)


#===----------------------------------------------------------------------===#
# Data: llm.c token files with a mask file
#===----------------------------------------------------------------------===#


def read_masks(path, count):
    masks = np.fromfile(path, dtype=np.uint8)
    if masks.size != count:
        raise SystemExit('%s: %d mask bytes for a token file of %d tokens'
                         % (path, masks.size, count))
    if masks.max(initial=0) > 1:
        raise SystemExit('%s: a mask byte is %d; they must be 0 or 1' % (path, masks.max()))
    return masks.astype(np.bool_)


class MaskedBatches:
    """Batches of B consecutive windows of T tokens from the start of the
    file, wrapping to the start when the next batch would run past its
    end: (inputs [B, T] with the mask id at predicted positions, labels
    [B, T] with the original token there and IGNORE elsewhere)."""

    def __init__(self, tokens, masks, mask_id, B, T):
        self.tokens, self.masks, self.mask_id = tokens, masks, mask_id
        self.B, self.T, self.position = B, T, 0
        if len(tokens) < B * T:
            raise SystemExit('the token file holds %d tokens, fewer than B*T = %d'
                             % (len(tokens), B * T))

    def per_epoch(self):
        return len(self.tokens) // (self.B * self.T)

    def next(self):
        n = self.B * self.T
        if self.position + n > len(self.tokens):
            self.position = 0
        span = slice(self.position, self.position + n)
        self.position += n
        tokens = torch.from_numpy(self.tokens[span].copy()).view(self.B, self.T)
        predicted = torch.from_numpy(self.masks[span].copy()).view(self.B, self.T)
        inputs = tokens.masked_fill(predicted, self.mask_id)
        labels = tokens.masked_fill(~predicted, IGNORE)
        return inputs, labels


def batches_of(args, vocab):
    if not 0 <= args.mask_id < vocab:
        raise SystemExit('--mask-id %d is not an id of the vocabulary of %d'
                         % (args.mask_id, vocab))
    tokens = ref.read_tokens(args.data)
    if tokens.size and int(tokens.max()) >= vocab:
        raise SystemExit('%s: token %d is past the vocabulary of %d'
                         % (args.data, int(tokens.max()), vocab))
    return MaskedBatches(tokens, read_masks(args.masks, tokens.size), args.mask_id,
                         args.batch, args.seq)


def evaluate(model, batches, max_batches=0):
    """The loss weighted by predicted positions and the accuracy over the
    first max_batches batches (0: every whole batch of the file)."""
    count = batches.per_epoch()
    if max_batches > 0:
        count = min(count, max_batches)
    total, predicted, correct = 0.0, 0, 0
    with torch.no_grad():
        for _ in range(count):
            x, labels = batches.next()
            s, n, c = model.masked_lm(x, labels)
            total += float(s)
            predicted += n
            correct += c
    return {'loss': total / max(predicted, 1), 'accuracy': correct / max(predicted, 1),
            'predicted': predicted, 'tokens': count * batches.B * batches.T, 'batches': count}


#===----------------------------------------------------------------------===#
# Command line
#===----------------------------------------------------------------------===#


def write_checkpoint(path, params, dtype='f32', decoder=False):
    out = dict(params)
    if decoder:
        out[HEAD + 'decoder.weight'] = params[EMB + 'word_embeddings.weight']
    ref.write_safetensors(path, out, {'format': 'pt'}, dtype.upper())
    return len(out)


def cmd_init(args):
    sizes = dict(PRESETS[args.preset]) if args.preset else {}
    for key in ('vocab', 'layers', 'hidden', 'intermediate', 'positions', 'types'):
        if getattr(args, key) is not None:
            sizes[key] = getattr(args, key)
    for key in ('vocab', 'layers', 'hidden'):
        if key not in sizes:
            raise SystemExit('init: give --preset or --%s' % key)
    sizes.setdefault('intermediate', 4 * sizes['hidden'])
    sizes.setdefault('positions', 512)
    sizes.setdefault('types', 2)
    nsp = args.head == 'pretraining'
    params = Bert.random(sizes['vocab'], sizes['layers'], sizes['hidden'], sizes['intermediate'],
                         sizes['positions'], args.seed, sizes['types'], args.layout, nsp, nsp)
    if args.wrong_shape:
        if args.wrong_shape not in params:
            raise SystemExit('--wrong-shape: no parameter ' + args.wrong_shape)
        shape = list(params[args.wrong_shape].shape)
        shape[-1] += 1
        params[args.wrong_shape] = torch.zeros(shape)
    n = write_checkpoint(args.o, params, args.dtype, args.decoder)
    print('wrote %d tensors (%d parameters) to %s'
          % (n, sum(t.numel() for t in params.values()), args.o))


def cmd_masks(args):
    tokens = ref.read_tokens(args.data)
    rng = np.random.default_rng(args.seed)
    masks = (rng.random(tokens.size) < args.rate).astype(np.uint8)
    masks.tofile(args.o)
    print('wrote %d mask bytes (%d predicted) to %s' % (masks.size, int(masks.sum()), args.o))


def cmd_eval(args):
    model = model_of(args)
    print(json.dumps(evaluate(model, batches_of(args, model.vocab), args.max_batches)))


class SavedBatches:
    """The batches tpc-run eval --save-batches wrote: per batch, int32
    inputs, targets and token types [B, T], then key lengths [B] (padding
    ends each row). next() gives (inputs, labels, types, attention_mask)
    with Hugging Face's 0/1 attention mask; a negative target is ignored."""

    def __init__(self, path, B, T, sentence_order=False):
        data = np.fromfile(path, dtype='<i4')
        size = 3 * B * T + B + (B if sentence_order else 0)
        if data.size == 0 or data.size % size:
            raise SystemExit('%s: %d int32 values are not whole batches of %d (B=%d, T=%d)'
                             % (path, data.size, size, B, T))
        self.batches = data.reshape(-1, size)
        self.B, self.T, self.position = B, T, 0
        self.sentence_order = sentence_order
        self.labels = None  # the sentence-order labels [B] of the last batch

    def per_epoch(self):
        return len(self.batches)

    def next(self):
        B, T = self.B, self.T
        row = torch.from_numpy(self.batches[self.position].astype(np.int64))
        self.position = (self.position + 1) % len(self.batches)
        inputs, labels, types = (row[k * B * T:(k + 1) * B * T].view(B, T) for k in range(3))
        lengths = row[3 * B * T:3 * B * T + B]
        if self.sentence_order:
            self.labels = row[3 * B * T + B:]
        mask = (torch.arange(T)[None, :] < lengths[:, None]).long()
        return inputs, labels.masked_fill(labels < 0, IGNORE), types, mask


def cmd_eval_batches(args):
    model = model_of(args)
    batches = SavedBatches(args.batches, args.batch, args.seq, args.sop)
    total, predicted, correct = 0.0, 0, 0
    sop_total, sop_correct, rows = 0.0, 0, 0
    with torch.no_grad():
        for _ in range(batches.per_epoch()):
            x, labels, types, mask = batches.next()
            s, n, c = model.masked_lm(x, labels, types, mask)
            total += float(s)
            predicted += n
            correct += c
            if args.sop:
                h = model.encode(x, types, mask)
                logits = model.nsp_logits(h).double()
                sop_total += float(F.cross_entropy(logits, batches.labels, reduction='sum'))
                sop_correct += int((logits.argmax(-1) == batches.labels).sum())
                rows += len(batches.labels)
    result = {'loss': total / max(predicted, 1), 'accuracy': correct / max(predicted, 1),
              'predicted': predicted, 'batches': batches.per_epoch()}
    if args.sop:
        result.update(sop_loss=sop_total / rows, sop_accuracy=sop_correct / rows)
    print(json.dumps(result))


def _step_logger(path):
    """An on_step that prints each step as tpc-run's JSON line and appends it
    to `path` (none when empty)."""
    log = open(path, 'w') if path else None

    def on_step(r):
        line = json.dumps({k: v for k, v in r.items() if k != 'seconds'})
        print(line, flush=True)
        if log:
            log.write(line + '\n')
            log.flush()

    return on_step


class _Rows:
    """Saved batches' rows for reference_gpt2.train: next() gives the inputs
    and the rest of the batch, whose numel() is its positions."""

    def __init__(self, saved):
        self.saved = saved

    def next(self):
        x, labels, types, mask = self.saved.next()
        return x, _Rest(labels, types, mask, self.saved.labels)


class _Rest:
    def __init__(self, labels, types, mask, order):
        self.labels, self.types, self.mask, self.order = labels, types, mask, order

    def numel(self):
        return self.labels.numel()


class _PreTraining:
    """BertForPreTraining's total loss (with sentence-order labels) or the
    masked-LM mean, in reference_gpt2.train's model interface."""

    def __init__(self, model):
        self.model, self.params = model, model.params

    def forward(self, x, rest):
        if rest.order is None:
            loss, count = self.model.forward(x, rest.labels, rest.types, rest.mask)
            return loss, count
        return (self.model.pretraining_loss(x, rest.labels, rest.order, rest.types, rest.mask),
                rest.numel())


def cmd_train_batches(args):
    model = model_of(args)
    model.training = True
    saved = SavedBatches(args.batches, args.batch, args.seq, args.sop)
    ref.train(_PreTraining(model), _Rows(saved), args, _step_logger(args.log))
    if args.save:
        write_checkpoint(args.save, model.params)


def cmd_train(args):
    torch.manual_seed(args.seed)
    model = model_of(args, args.dropout)
    model.training = True
    batches = batches_of(args, model.vocab)
    ref.train(model, batches, args, _step_logger(args.log))
    if args.save:
        write_checkpoint(args.save, model.params)


#===----------------------------------------------------------------------===#
# Self-test: each piece against a formulation of its own
#===----------------------------------------------------------------------===#


def _max_diff(a, b):
    return float((a.double() - b.double()).abs().max())


def _rel_diff(got, expected):
    return _max_diff(got, expected) / max(1.0, float(expected.abs().max()))


def _test_model(layout, gelu='exact', seed=1, dtype=torch.float32, vocab=37, layers=2,
                hidden=32, heads=4, intermediate=40, positions=16, std=0.3, eps=1e-12):
    """A small model with weights large enough for every nonlinearity to
    matter, and biases and LayerNorm parameters away from 0 and 1."""
    params = Bert.random(vocab, layers, hidden, intermediate, positions, seed, 2, layout,
                         std=std, extra_std=0.2, dtype=dtype)
    return Bert(params, heads, gelu, eps)


def _inputs(model, seed, B=3, T=9):
    """Token ids, token types (a second segment in each row) and an
    attention mask with rows padded at their ends ([T, T-3, 2, ...])."""
    g = torch.Generator().manual_seed(seed)
    idx = torch.randint(0, model.vocab, (B, T), generator=g)
    types = (torch.arange(T)[None, :] >= torch.randint(1, T, (B, 1), generator=g)).long()
    lengths = torch.tensor([T, T - 3, 2][:B] + [T] * max(0, B - 3))
    mask = (torch.arange(T)[None, :] < lengths[:, None]).long()
    return idx, types, mask


def _ln(x, w, b, eps):
    mean = x.sum(-1, keepdim=True) / x.shape[-1]
    var = ((x - mean) ** 2).sum(-1, keepdim=True) / x.shape[-1]
    return (x - mean) / torch.sqrt(var + eps) * w + b


def _gelu(x, kind):
    if kind == 'tanh':
        return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))


def _loop_attention(p, n, x, heads, mask):
    """The attention sublayer (parameters p[n + 'self.query.weight'], ...)
    on x [B, T, H] in float64 as loops over rows, heads and queries: each
    query's softmax runs over the real keys only (mask[b, s] != 0)."""
    B, T, H = x.shape
    D = H // heads
    x = x.double()
    q, k, v = ((x @ p[n + 'self.%s.weight' % w].double().t() + p[n + 'self.%s.bias' % w].double())
               for w in ('query', 'key', 'value'))
    y = torch.zeros(B, T, H, dtype=torch.float64)
    for b in range(B):
        real = [s for s in range(T) if mask is None or mask[b, s]]
        for h in range(heads):
            cols = slice(h * D, (h + 1) * D)
            for t in range(T):
                scores = [float(q[b, t, cols] @ k[b, s, cols]) / math.sqrt(D) for s in real]
                top = max(scores)
                weights = [math.exp(z - top) for z in scores]
                total = sum(weights)
                for s, w in zip(real, weights):
                    y[b, t, cols] += w / total * v[b, s, cols]
    return y @ p[n + 'output.dense.weight'].double().t() + p[n + 'output.dense.bias'].double()


def _manual_layer(p, i, x, heads, mask, layout, gelu, eps):
    """Layer i written out op by op in float64."""
    n = LAYER % i
    d = {k: v.double() for k, v in p.items() if k.startswith(n)}

    def norm(y, which):
        return _ln(y, d[n + which + 'LayerNorm.weight'], d[n + which + 'LayerNorm.bias'], eps)

    def mlp(y):
        u = _gelu(y @ d[n + 'intermediate.dense.weight'].t() + d[n + 'intermediate.dense.bias'],
                  gelu)
        return u @ d[n + 'output.dense.weight'].t() + d[n + 'output.dense.bias']

    x = x.double()
    if layout == 'post':
        x = norm(x + _loop_attention(d, n + 'attention.', x, heads, mask), 'attention.output.')
        return norm(x + mlp(x), 'output.')
    x = x + _loop_attention(d, n + 'attention.', norm(x, 'attention.output.'), heads, mask)
    return x + mlp(norm(x, 'output.'))


def _manual_model(p, layers, idx, types, mask, heads, layout, gelu, eps):
    """The masked-LM logits [B, T, V] and the sentence logits [B, 2] in
    float64, from the parameters alone."""
    d = {k: v.double() for k, v in p.items()}
    word = d[EMB + 'word_embeddings.weight']
    T = idx.shape[1]
    x = word[idx] + d[EMB + 'position_embeddings.weight'][:T] + \
        d[EMB + 'token_type_embeddings.weight'][types]
    if layout == 'post':
        x = _ln(x, d[EMB + 'LayerNorm.weight'], d[EMB + 'LayerNorm.bias'], eps)
    for i in range(layers):
        x = _manual_layer(p, i, x, heads, mask, layout, gelu, eps)
    if layout == 'pre':
        x = _ln(x, d[FINAL_NORM + 'weight'], d[FINAL_NORM + 'bias'], eps)
    t = _gelu(x @ d[HEAD + 'transform.dense.weight'].t() + d[HEAD + 'transform.dense.bias'], gelu)
    t = _ln(t, d[HEAD + 'transform.LayerNorm.weight'], d[HEAD + 'transform.LayerNorm.bias'], eps)
    logits = t @ word.t() + d[HEAD + 'bias']
    pooled = torch.tanh(x[:, 0] @ d[POOLER + 'weight'].t() + d[POOLER + 'bias'])
    return logits, pooled @ d[NSP + 'weight'].t() + d[NSP + 'bias']


def _check_attention_loops():
    """A layer's attention sublayer, batched with the key mask, against
    _loop_attention, which leaves the padded keys out."""
    model = _test_model('post', seed=11)
    x = torch.randn(3, 9, model.hidden, generator=torch.Generator().manual_seed(12))
    _, _, mask = _inputs(model, 13)
    with torch.no_grad():
        got = model.attention(1, x, mask.bool())
    return _max_diff(got, _loop_attention(model.params, LAYER % 1 + 'attention.', x,
                                          model.heads, mask))


def _check_layer_ops(layout, gelu, eps):
    """One layer against _manual_layer at the real positions."""
    model = _test_model(layout, gelu, seed=14, eps=eps)
    x = torch.randn(3, 9, model.hidden, generator=torch.Generator().manual_seed(15))
    _, _, mask = _inputs(model, 16)
    with torch.no_grad():
        got = model.layer(0, x, mask.bool())
    expected = _manual_layer(model.params, 0, x, model.heads, mask, layout, gelu, eps)
    real = mask.bool()
    return _max_diff(got[real], expected[real])


def _check_layer_nn(layout):
    """One layer against torch.nn.TransformerEncoderLayer (gelu, eps 1e-12,
    norm_first for pre) with src_key_padding_mask, at the real positions."""
    model = _test_model(layout, seed=17)
    p, n, H = model.params, LAYER % 0, model.hidden
    layer = torch.nn.TransformerEncoderLayer(H, model.heads, model.intermediate, dropout=0.0,
                                             activation='gelu', layer_norm_eps=model.eps,
                                             batch_first=True, norm_first=layout == 'pre')
    a = n + 'attention.'
    pairs = [(layer.self_attn.out_proj, a + 'output.dense.'),
             (layer.linear1, n + 'intermediate.dense.'), (layer.linear2, n + 'output.dense.'),
             (layer.norm1, a + 'output.LayerNorm.'), (layer.norm2, n + 'output.LayerNorm.')]
    with torch.no_grad():
        layer.self_attn.in_proj_weight.copy_(torch.cat(
            [p[a + 'self.%s.weight' % w] for w in ('query', 'key', 'value')]))
        layer.self_attn.in_proj_bias.copy_(torch.cat(
            [p[a + 'self.%s.bias' % w] for w in ('query', 'key', 'value')]))
        for module, prefix in pairs:
            module.weight.copy_(p[prefix + 'weight'])
            module.bias.copy_(p[prefix + 'bias'])
    layer.eval()
    x = torch.randn(3, 9, H, generator=torch.Generator().manual_seed(18))
    _, _, mask = _inputs(model, 19)
    real = mask.bool()
    with torch.no_grad():
        expected = layer(x, src_key_padding_mask=~real)
        got = model.layer(0, x, real)
    return _max_diff(got[real], expected[real])


def _check_model_loops(layout, gelu, eps):
    """The whole model's masked-LM logits (at the real positions) and
    sentence logits against _manual_model, relative to the largest."""
    model = _test_model(layout, gelu, seed=21, eps=eps)
    idx, types, mask = _inputs(model, 22)
    with torch.no_grad():
        h = model.encode(idx, types, mask)
        logits, nsp = model.mlm_logits(h), model.nsp_logits(h)
    want_logits, want_nsp = _manual_model(model.params, model.layers, idx, types, mask,
                                          model.heads, layout, gelu, eps)
    real = mask.bool()
    return max(_rel_diff(logits[real], want_logits[real]), _rel_diff(nsp, want_nsp))


def _check_padding(layout):
    """Padded keys are irrelevant: other ids and types at the padded
    positions leave the real positions' logits as they are, and a padded
    row's real positions get the logits of the row cut to its length."""
    model = _test_model(layout, seed=31)
    idx, types, mask = _inputs(model, 32)
    real = mask.bool()
    other_idx = idx.masked_fill(~real, 5)
    other_types = types.masked_fill(~real, 1) ^ (~real).long()
    with torch.no_grad():
        a = model.mlm_logits(model.encode(idx, types, mask))
        b = model.mlm_logits(model.encode(other_idx, other_types, mask))
        diff = _max_diff(a[real], b[real])
        for row in range(idx.shape[0]):
            n = int(mask[row].sum())
            cut = model.mlm_logits(model.encode(idx[row:row + 1, :n], types[row:row + 1, :n]))
            diff = max(diff, _max_diff(a[row, :n], cut[0]))
    return diff


def _check_tied_decoder():
    """The word embeddings' gradient is the sum of the gradients of two
    untied copies, one read by the embedding and one by the decoder (a
    formulation of the tie of its own, in float64)."""
    model = _test_model('post', seed=41, dtype=torch.float64)
    idx, types, mask = _inputs(model, 42)
    labels = idx.masked_fill(torch.rand(idx.shape, generator=torch.Generator().manual_seed(43))
                             < 0.5, IGNORE).masked_fill(~mask.bool(), IGNORE)
    name = EMB + 'word_embeddings.weight'
    word = model.params[name].clone().requires_grad_(True)
    model.params[name] = word
    model.forward(idx, labels, types, mask)[0].backward()
    inp = word.detach().clone().requires_grad_(True)
    dec = word.detach().clone().requires_grad_(True)
    model.params[name] = inp
    where = labels != IGNORE
    t = model.norm(model.gelu(model.linear(model.encode(idx, types, mask)[where],
                                           HEAD + 'transform.dense.')),
                   HEAD + 'transform.LayerNorm.')
    F.cross_entropy(t @ dec.t() + model.params[HEAD + 'bias'], labels[where]).backward()
    return _max_diff(word.grad, inp.grad + dec.grad)


def _check_checkpoints(layout):
    """A written checkpoint reads back to the same parameters, also with
    Hugging Face's extras (the tied decoder, decoder.bias, buffers,
    LayerNorm.gamma/beta names); a decoder of its own and a wrong --layout
    are refused. 0 when all hold, else 1."""
    params = Bert.random(29, 2, 16, 24, 12, 51, layout=layout, extra_std=0.1)
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, 'a.safetensors')
        write_checkpoint(path, params)
        same = load_checkpoint(path)
        extras = {re.sub(r'LayerNorm\.weight$', 'LayerNorm.gamma',
                         re.sub(r'LayerNorm\.bias$', 'LayerNorm.beta', k)): v
                  for k, v in params.items()}
        extras[HEAD + 'decoder.weight'] = params[EMB + 'word_embeddings.weight']
        extras[HEAD + 'decoder.bias'] = params[HEAD + 'bias']
        extras['bert.embeddings.position_ids'] = np.arange(12, dtype=np.int64)[None, :]
        ref.write_safetensors(path, extras)
        hf = load_checkpoint(path)
        untied = dict(params)
        untied[HEAD + 'decoder.weight'] = params[EMB + 'word_embeddings.weight'] + 1
        ref.write_safetensors(path, untied)
        refused = []
        for attempt in (lambda: load_checkpoint(path),
                        lambda: Bert(params, 4, layout='pre' if layout == 'post' else 'post')):
            try:
                attempt()
            except SystemExit:
                refused.append(True)
    ok = all(set(x) == set(params) and all(torch.equal(x[k], params[k]) for k in params)
             for x in (same, hf))
    Bert(same, 4, layout=layout)
    return 0.0 if ok and len(refused) == 2 else 1.0


def _check_data():
    """Batches from a token file and a mask file: window w of the file is
    row w % B of batch w // B, predicted inputs become the mask id; eval's
    loss is the mean over all predicted positions of its batches (weighted
    by their counts, which differ), equal to one forward over every window
    at once with the loss written out as -log_softmax."""
    model = _test_model('pre', seed=61)
    B, T, count = 2, 8, 3
    g = torch.Generator().manual_seed(62)
    tokens = torch.randint(0, model.vocab - 1, (B * T * count + 5,), generator=g).numpy()
    rates = np.repeat([0.6, 0.1, 0.3], B * T).tolist() + [0.5] * 5
    masks = np.random.default_rng(63).random(tokens.size) < np.array(rates)
    mask_id = model.vocab - 1
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, 'tokens.bin')
        header = np.zeros(256, dtype=np.int32)
        header[:3] = [20240520, 1, tokens.size]
        with open(data, 'wb') as f:
            f.write(header.tobytes())
            f.write(tokens.astype(np.uint16).tobytes())
        masks.astype(np.uint8).tofile(os.path.join(work, 'masks.bin'))
        args = argparse.Namespace(data=data, masks=os.path.join(work, 'masks.bin'),
                                  mask_id=mask_id, batch=B, seq=T)
        batches = batches_of(args, model.vocab)
        windows = []
        for _ in range(count):
            windows.append(batches.next())
        result = evaluate(model, batches_of(args, model.vocab))
    n = B * T * count
    x = torch.cat([w[0] for w in windows])
    labels = torch.cat([w[1] for w in windows])
    want_x = torch.from_numpy(np.where(masks[:n], mask_id, tokens[:n])).view(B * count, T)
    want_labels = torch.from_numpy(np.where(masks[:n], tokens[:n], IGNORE)).view(B * count, T)
    if not (torch.equal(x, want_x) and torch.equal(labels, want_labels)
            and result['batches'] == count and result['predicted'] == int(masks[:n].sum())):
        return float('inf')
    with torch.no_grad():
        logits = model.mlm_logits(model.encode(want_x)).double()
    where = want_labels != IGNORE
    nll = -logits.log_softmax(-1)[where].gather(1, want_labels[where][:, None])
    accuracy = float((logits[where].argmax(-1) == want_labels[where]).double().mean())
    return max(abs(result['loss'] - float(nll.mean())), abs(result['accuracy'] - accuracy))


def _check_dropout():
    """Dropout changes a training forward and no evaluating one; a seeded
    training forward repeats. 0 when all hold, else 1."""
    model = _test_model('post', seed=71)
    idx, types, mask = _inputs(model, 72)
    labels = idx.masked_fill(~mask.bool(), IGNORE)
    with torch.no_grad():
        plain = float(model.forward(idx, labels, types, mask)[0])
        model.dropout = 0.1
        evaluating = float(model.forward(idx, labels, types, mask)[0])
        model.training = True
        runs = []
        for _ in range(2):
            torch.manual_seed(73)
            runs.append(float(model.forward(idx, labels, types, mask)[0]))
    return 0.0 if plain == evaluating and runs[0] == runs[1] != plain else 1.0


def _check_gradients(layout, gelu):
    """torch.autograd.gradcheck of the pretraining loss (masked LM and the
    sentence head) with respect to every parameter, float64, with padding
    and two token types, on a tiny model."""
    model = _test_model(layout, gelu, seed=81, dtype=torch.float64, vocab=7, hidden=8,
                        heads=2, intermediate=8, positions=6)
    names = sorted(model.params)
    g = torch.Generator().manual_seed(82)
    idx, types, mask = _inputs(model, 83, B=3, T=5)
    labels = idx.masked_fill(torch.rand(idx.shape, generator=g) < 0.4, IGNORE)
    labels = labels.masked_fill(~mask.bool(), IGNORE)
    sentences = torch.randint(0, 2, (3,), generator=g)

    def loss(*tensors):
        model.params = dict(zip(names, tensors))
        return model.pretraining_loss(idx, labels, sentences, types, mask)

    inputs = tuple(model.params[n].clone().requires_grad_(True) for n in names)
    return bool(torch.autograd.gradcheck(loss, inputs, eps=1e-6, atol=1e-7, rtol=1e-5,
                                         raise_exception=False))


def _check_transformers(gelu):
    """Hugging Face's BertForPreTraining with these weights: the same
    masked-LM logits at the real positions, sentence logits and total loss,
    relative to the largest."""
    import transformers
    model = _test_model('post', gelu, seed=91)
    idx, types, mask = _inputs(model, 92)
    labels = idx.masked_fill(~mask.bool(), IGNORE)
    labels[:, ::2] = IGNORE
    sentences = torch.tensor([0, 1, 1])
    config = transformers.BertConfig(
        vocab_size=model.vocab, hidden_size=model.hidden, num_hidden_layers=model.layers,
        num_attention_heads=model.heads, intermediate_size=model.intermediate,
        hidden_act='gelu_new' if gelu == 'tanh' else 'gelu', hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0, max_position_embeddings=model.positions,
        type_vocab_size=model.types, layer_norm_eps=model.eps)
    hf = transformers.BertForPreTraining(config).eval()
    state = dict(model.params)
    state[HEAD + 'decoder.weight'] = model.params[EMB + 'word_embeddings.weight']
    state[HEAD + 'decoder.bias'] = model.params[HEAD + 'bias']
    missing, unexpected = hf.load_state_dict(state, strict=False)
    if unexpected or any(not _BUFFER.match(k) for k in missing):
        raise SystemExit('BertForPreTraining: missing %s, unexpected %s' % (missing, unexpected))
    with torch.no_grad():
        out = hf(input_ids=idx, attention_mask=mask, token_type_ids=types, labels=labels,
                 next_sentence_label=sentences)
        h = model.encode(idx, types, mask)
        loss = model.pretraining_loss(idx, labels, sentences, types, mask)
    real = mask.bool()
    return max(_rel_diff(model.mlm_logits(h)[real], out.prediction_logits[real]),
               _rel_diff(model.nsp_logits(h), out.seq_relationship_logits),
               _rel_diff(loss, out.loss))


def cmd_selftest(args):
    torch.manual_seed(0)
    counts = {'bert-base_pooler': (parameter_count('bert-base', mlm=False, nsp=False), 109482240),
              'bert-base_pretraining': (parameter_count('bert-base'), 110106428),
              'bert-large_pooler': (parameter_count('bert-large', mlm=False, nsp=False),
                                    335141888),
              'bert-large_pretraining': (parameter_count('bert-large'), 336226108),
              'bert-base_pre_pretraining': (parameter_count('bert-base', 'pre'), 110106428)}
    checks = [
        ('attention_vs_loops_padded', _check_attention_loops, 1e-5),
        ('layer_post_vs_ops', lambda: _check_layer_ops('post', 'exact', 1e-12), 1e-5),
        ('layer_post_tanh_eps1e-2_vs_ops', lambda: _check_layer_ops('post', 'tanh', 1e-2), 1e-5),
        ('layer_pre_vs_ops', lambda: _check_layer_ops('pre', 'exact', 1e-12), 1e-5),
        ('layer_post_vs_nn_transformer', lambda: _check_layer_nn('post'), 1e-5),
        ('layer_pre_vs_nn_transformer', lambda: _check_layer_nn('pre'), 1e-5),
        ('model_post_vs_loops', lambda: _check_model_loops('post', 'exact', 1e-12), 1e-5),
        ('model_pre_tanh_vs_loops', lambda: _check_model_loops('pre', 'tanh', 1e-5), 1e-5),
        ('padding_post_irrelevant', lambda: _check_padding('post'), 1e-5),
        ('padding_pre_irrelevant', lambda: _check_padding('pre'), 1e-5),
        ('tied_decoder_gradient', _check_tied_decoder, 1e-10),
        ('checkpoint_post_roundtrip', lambda: _check_checkpoints('post'), 0.0),
        ('checkpoint_pre_roundtrip', lambda: _check_checkpoints('pre'), 0.0),
        ('masked_data_and_eval', _check_data, 1e-5),
        ('dropout', _check_dropout, 0.0),
        ('gradcheck_f64_post', lambda: _check_gradients('post', 'exact'), None),
        ('gradcheck_f64_pre_tanh', lambda: _check_gradients('pre', 'tanh'), None),
    ]
    if importlib.util.find_spec('transformers'):
        checks += [('transformers_bert_for_pretraining', lambda: _check_transformers('exact'),
                    1e-5),
                   ('transformers_bert_for_pretraining_tanh',
                    lambda: _check_transformers('tanh'), 1e-5)]
    else:
        print('note: transformers is not installed for %s; the check against Hugging Face\'s '
              'BertForPreTraining is skipped' % sys.executable)
    report, failed = {}, []
    for name, (got, want) in counts.items():
        report['parameters_' + name] = got
        if got != want:
            failed.append('parameters_' + name)
    for name, check, tolerance in checks:
        value = check()
        ok = value if tolerance is None else value <= tolerance
        report[name] = value
        if not ok:
            failed.append(name)
    report['failed'] = failed
    print(json.dumps(report))
    if failed:
        sys.exit(1)


#===----------------------------------------------------------------------===#
# Arguments
#===----------------------------------------------------------------------===#


def add_model_args(p):
    p.add_argument('--load', required=True)
    p.add_argument('--heads', type=int, required=True)
    p.add_argument('--layout', default='', choices=['', 'post', 'pre'],
                   help="default: the checkpoint's")
    p.add_argument('--gelu', default='exact', choices=['exact', 'tanh'])
    p.add_argument('--norm-eps', type=float, default=1e-12, help='LayerNorm eps')
    p.add_argument('--threads', type=int, default=0)


def add_data_args(p):
    p.add_argument('--data', required=True, help='an llm.c token file')
    p.add_argument('--masks', required=True, help='one byte per token: 1 where predicted')
    p.add_argument('--mask-id', type=int, required=True)
    p.add_argument('--batch', type=int, required=True)
    p.add_argument('--seq', type=int, required=True)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='command', required=True)
    init = sub.add_parser('init', help='write a random BERT checkpoint under Hugging Face names')
    init.add_argument('--preset', choices=sorted(PRESETS))
    for key in ('vocab', 'layers', 'hidden', 'intermediate', 'positions', 'types'):
        init.add_argument('--' + key, type=int)
    init.add_argument('--layout', default='post', choices=['post', 'pre'])
    init.add_argument('--head', default='pretraining', choices=['pretraining', 'mlm'],
                      help='pretraining: the pooler and cls.seq_relationship too '
                      '(BertForPreTraining); mlm: the masked-LM head alone (BertForMaskedLM)')
    init.add_argument('--seed', type=int, default=1)
    init.add_argument('--decoder', action='store_true',
                      help='also write cls.predictions.decoder.weight (= the word embeddings)')
    init.add_argument('--dtype', default='f32', choices=['f32', 'f16', 'bf16'])
    init.add_argument('--wrong-shape', default='',
                      help='give this parameter one extra column (for error tests)')
    init.add_argument('-o', required=True)
    masks = sub.add_parser('masks', help='write a random mask file for a token file')
    masks.add_argument('--data', required=True)
    masks.add_argument('--rate', type=float, default=0.15)
    masks.add_argument('--seed', type=int, default=1)
    masks.add_argument('-o', required=True)
    ev = sub.add_parser('eval', help='masked-LM loss and accuracy')
    add_model_args(ev)
    add_data_args(ev)
    ev.add_argument('--max-batches', type=int, default=0)
    eb = sub.add_parser('eval-batches', help='masked-LM loss and accuracy of saved batches '
                        '(tpc-run eval --save-batches): token types and padding included')
    add_model_args(eb)
    eb.add_argument('--batches', required=True,
                    help='int32 inputs, targets, token types [B,T] and key lengths [B] per batch')
    eb.add_argument('--batch', type=int, required=True)
    eb.add_argument('--seq', type=int, required=True)
    eb.add_argument('--sop', action='store_true',
                    help='the batches end with sentence-order labels [B]; also report the '
                    'sentence-order head\'s mean loss and accuracy')
    tr = sub.add_parser('train', help='AdamW steps on the masked-LM loss')
    add_model_args(tr)
    add_data_args(tr)
    ref.add_train_args(tr)
    tr.add_argument('--save', default='', help='write the trained weights here')
    tr.add_argument('--dropout', type=float, default=0.0,
                    help='hidden and attention-probability dropout')
    tr.add_argument('--seed', type=int, default=1, help="seeds the dropout's draws")
    tb = sub.add_parser('train-batches', help='AdamW steps on saved batches (tpc-run eval '
                        '--save-batches), one per step: the masked-LM loss, plus the '
                        'sentence-order loss with --sop (BertForPreTraining)')
    add_model_args(tb)
    tb.add_argument('--batches', required=True)
    tb.add_argument('--batch', type=int, required=True)
    tb.add_argument('--seq', type=int, required=True)
    tb.add_argument('--sop', action='store_true', help='the batches end with sentence-order labels')
    ref.add_train_args(tb)
    tb.add_argument('--save', default='', help='write the trained weights here')
    test = sub.add_parser('selftest', help='check the model against independent formulations')
    test.add_argument('--threads', type=int, default=1)
    args = ap.parse_args(argv)
    if getattr(args, 'threads', 0) > 0:
        torch.set_num_threads(args.threads)
    {'init': cmd_init, 'masks': cmd_masks, 'eval': cmd_eval, 'eval-batches': cmd_eval_batches,
     'train': cmd_train, 'train-batches': cmd_train_batches,
     'selftest': cmd_selftest}[args.command](args)


if __name__ == '__main__':
    main(sys.argv[1:])
