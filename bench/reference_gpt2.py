#!/usr/bin/python3
"""A plain GPT-2 in PyTorch: the benchmark's peer and tpc's numerical reference.

The semantics are tpc's (DESIGN section 6) and Hugging Face GPT-2's: learned
position embeddings, pre-norm blocks, LayerNorm eps 1e-5, gelu (tanh),
attention scale 1/sqrt(head_dim), the output layer tied to wte unless the
checkpoint holds lm_head.weight, Conv1D weights stored [in, out]. Weights are
read and written as safetensors under Hugging Face GPT-2 names (an optional
`transformer.` prefix); the data are llm.c token files batched as tpc-run
does (B windows of T+1 consecutive tokens, window b of a batch at b*T,
consecutive batches from the start of the file). Training mirrors tpc-run
train's defaults: AdamW (beta1 0.9, beta2 0.95, eps 1e-8, decoupled weight
decay 0.1 on the tensors of rank >= 2), global-norm clipping at 1.0, linear
warmup then a cosine or constant schedule.

Runs with Debian's python3-torch (/usr/bin/python3); torch and numpy only.

  reference_gpt2.py init  --vocab V --layers L --hidden H --seq P -o OUT.safetensors
                          [--seed S] [--prefix transformer.] [--lm-head] [--untied]
                          [--no-buffers] [--dtype f32|f16|bf16] [--wrong-shape NAME]
  reference_gpt2.py eval  --load CKPT --heads A --data TOKENS --batch B --seq T
                          [--max-batches N]                 (prints one JSON line)
  reference_gpt2.py train --load CKPT --heads A --data TOKENS --batch B --seq T --steps N
                          [--lr ...] [--log OUT.jsonl] [--threads N]
                          (one JSON line per step, as tpc-run train --log writes)
  reference_gpt2.py generate --load CKPT --heads A --prompt-ids 1,2,3 --tokens N
                          [--threads N]  (greedy, with a KV cache; one JSON line:
                          the ids and decode steps/s, timed as tpc-run generate)
"""
import argparse
import json
import math
import re
import resource
import struct
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

#===----------------------------------------------------------------------===#
# safetensors (the `safetensors` package is not in Debian 12)
#===----------------------------------------------------------------------===#

_NUMPY_OF = {
    'F64': np.float64, 'F32': np.float32, 'F16': np.float16, 'I64': np.int64,
    'I32': np.int32, 'I16': np.int16, 'I8': np.int8, 'U8': np.uint8,
    'BOOL': np.bool_,
}


def read_safetensors(path):
    """{name: float32 tensor} for floating-point tensors (F32, F16, BF16 are
    converted), the raw numpy array for the others, and the metadata."""
    with open(path, 'rb') as f:
        data = f.read()
    (n,) = struct.unpack('<Q', data[:8])
    header = json.loads(data[8:8 + n])
    body = memoryview(data)[8 + n:]
    metadata = header.pop('__metadata__', {})
    tensors = {}
    for name, info in header.items():
        begin, end = info['data_offsets']
        raw = body[begin:end]
        shape = info['shape']
        dtype = info['dtype']
        if dtype == 'BF16':
            bits = np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16
            tensors[name] = torch.from_numpy(bits.view(np.float32).reshape(shape).copy())
            continue
        array = np.frombuffer(raw, dtype=_NUMPY_OF[dtype]).reshape(shape)
        if dtype in ('F32', 'F16', 'F64'):
            tensors[name] = torch.from_numpy(array.astype(np.float32))
        else:
            tensors[name] = array.copy()
    return tensors, metadata


def write_safetensors(path, tensors, metadata=None, dtype='F32'):
    """Writes {name: tensor or numpy array}; float tensors are stored as
    `dtype` (F32, F16 or BF16), numpy arrays as they are."""
    header = {}
    if metadata:
        header['__metadata__'] = metadata
    blobs = []
    offset = 0
    for name in sorted(tensors):
        value = tensors[name]
        if isinstance(value, np.ndarray):
            kind = {v: k for k, v in _NUMPY_OF.items()}[value.dtype.type]
            raw = np.ascontiguousarray(value).tobytes()
            shape = list(value.shape)
        else:
            t = value.detach().to(torch.float32).contiguous()
            shape = list(t.shape)
            kind = dtype
            if dtype == 'F32':
                raw = t.numpy().tobytes()
            elif dtype == 'F16':
                raw = t.numpy().astype(np.float16).tobytes()
            elif dtype == 'BF16':
                raw = t.to(torch.bfloat16).view(torch.int16).numpy().tobytes()
            else:
                raise ValueError('unknown dtype ' + dtype)
        header[name] = {'dtype': kind, 'shape': shape,
                        'data_offsets': [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b' ' * (-len(text) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(text)))
        f.write(text)
        for raw in blobs:
            f.write(raw)


#===----------------------------------------------------------------------===#
# The model
#===----------------------------------------------------------------------===#

class GPT2:
    """Parameters under Hugging Face GPT-2 names without the prefix
    (`wte.weight`, `h.0.attn.c_attn.weight` [H,3H], ...; `lm_head.weight`
    [V,H] only when untied)."""

    def __init__(self, params, heads):
        self.params = params
        self.heads = heads
        self.layers = 1 + max(int(m.group(1)) for m in
                              (re.match(r'h\.(\d+)\.', k) for k in params) if m)
        self.vocab, self.hidden = params['wte.weight'].shape
        if self.hidden % heads:
            raise SystemExit('--heads %d does not divide the hidden size %d'
                             % (heads, self.hidden))

    @staticmethod
    def shapes(vocab, layers, hidden, positions, untied=False):
        s = {'wte.weight': [vocab, hidden], 'wpe.weight': [positions, hidden]}
        for i in range(layers):
            p = 'h.%d.' % i
            s[p + 'ln_1.weight'] = [hidden]
            s[p + 'ln_1.bias'] = [hidden]
            s[p + 'attn.c_attn.weight'] = [hidden, 3 * hidden]
            s[p + 'attn.c_attn.bias'] = [3 * hidden]
            s[p + 'attn.c_proj.weight'] = [hidden, hidden]
            s[p + 'attn.c_proj.bias'] = [hidden]
            s[p + 'ln_2.weight'] = [hidden]
            s[p + 'ln_2.bias'] = [hidden]
            s[p + 'mlp.c_fc.weight'] = [hidden, 4 * hidden]
            s[p + 'mlp.c_fc.bias'] = [4 * hidden]
            s[p + 'mlp.c_proj.weight'] = [4 * hidden, hidden]
            s[p + 'mlp.c_proj.bias'] = [hidden]
        s['ln_f.weight'] = [hidden]
        s['ln_f.bias'] = [hidden]
        if untied:
            s['lm_head.weight'] = [vocab, hidden]
        return s

    @classmethod
    def random(cls, vocab, layers, hidden, positions, seed, untied=False):
        """GPT-2's initialization: N(0, 0.02), residual projections scaled by
        1/sqrt(2 layers), LayerNorm ones/zeros, biases zero. Biases and
        LayerNorm parameters get small random values too, so that a test
        sees every parameter."""
        g = torch.Generator().manual_seed(seed)
        params = {}
        for name, shape in cls.shapes(vocab, layers, hidden, positions, untied).items():
            std = 0.02
            if name.endswith('c_proj.weight'):
                std /= math.sqrt(2 * layers)
            t = torch.randn(shape, generator=g) * std
            if name.endswith('ln_1.weight') or name.endswith('ln_2.weight') or name == 'ln_f.weight':
                t += 1.0
            params[name] = t
        return params

    def forward(self, idx, targets):
        """Mean cross-entropy over the B*T targets, and the logits."""
        p = self.params
        B, T = idx.shape
        H, A = self.hidden, self.heads
        x = p['wte.weight'][idx] + p['wpe.weight'][:T]
        mask = torch.ones(T, T, dtype=torch.bool).tril()
        for i in range(self.layers):
            q = 'h.%d.' % i
            a = F.layer_norm(x, (H,), p[q + 'ln_1.weight'], p[q + 'ln_1.bias'], 1e-5)
            qkv = a @ p[q + 'attn.c_attn.weight'] + p[q + 'attn.c_attn.bias']
            qs, ks, vs = (t.view(B, T, A, H // A).transpose(1, 2) for t in qkv.split(H, dim=2))
            att = (qs @ ks.transpose(-2, -1)) * (1.0 / math.sqrt(H // A))
            att = att.masked_fill(~mask, float('-inf')).softmax(dim=-1)
            y = (att @ vs).transpose(1, 2).reshape(B, T, H)
            x = x + (y @ p[q + 'attn.c_proj.weight'] + p[q + 'attn.c_proj.bias'])
            m = F.layer_norm(x, (H,), p[q + 'ln_2.weight'], p[q + 'ln_2.bias'], 1e-5)
            u = F.gelu(m @ p[q + 'mlp.c_fc.weight'] + p[q + 'mlp.c_fc.bias'], approximate='tanh')
            x = x + (u @ p[q + 'mlp.c_proj.weight'] + p[q + 'mlp.c_proj.bias'])
        x = F.layer_norm(x, (H,), p['ln_f.weight'], p['ln_f.bias'], 1e-5)
        out = p.get('lm_head.weight', p['wte.weight'])
        logits = x @ out.t()
        loss = F.cross_entropy(logits.view(B * T, -1), targets.reshape(B * T), ignore_index=-1)
        return loss, logits


    def decode(self, token, pos, cache):
        """Logits [V] of one token at position pos, appending its keys and
        values to cache (a list of per-layer [k, v] lists, each [A, pos, D]),
        as Hugging Face's past_key_values do."""
        p = self.params
        H, A = self.hidden, self.heads
        D = H // A
        x = p['wte.weight'][token] + p['wpe.weight'][pos]
        for i in range(self.layers):
            q = 'h.%d.' % i
            a = F.layer_norm(x, (H,), p[q + 'ln_1.weight'], p[q + 'ln_1.bias'], 1e-5)
            qkv = a @ p[q + 'attn.c_attn.weight'] + p[q + 'attn.c_attn.bias']
            qs, ks, vs = (t.view(A, 1, D) for t in qkv.split(H))
            if len(cache) <= i:
                cache.append([ks, vs])
            else:
                cache[i] = [torch.cat([cache[i][0], ks], 1), torch.cat([cache[i][1], vs], 1)]
            k_all, v_all = cache[i]
            att = ((qs @ k_all.transpose(-2, -1)) * (1.0 / math.sqrt(D))).softmax(dim=-1)
            y = (att @ v_all).reshape(H)
            x = x + (y @ p[q + 'attn.c_proj.weight'] + p[q + 'attn.c_proj.bias'])
            m = F.layer_norm(x, (H,), p[q + 'ln_2.weight'], p[q + 'ln_2.bias'], 1e-5)
            u = F.gelu(m @ p[q + 'mlp.c_fc.weight'] + p[q + 'mlp.c_fc.bias'], approximate='tanh')
            x = x + (u @ p[q + 'mlp.c_proj.weight'] + p[q + 'mlp.c_proj.bias'])
        x = F.layer_norm(x, (H,), p['ln_f.weight'], p['ln_f.bias'], 1e-5)
        return x @ p.get('lm_head.weight', p['wte.weight']).t()


# Non-parameter buffers of Hugging Face's GPT2Model / GPT2LMHeadModel.
_BUFFER = re.compile(r'h\.\d+\.attn\.(bias|masked_bias)$')


def load_checkpoint(path):
    """The parameters of a tpc or Hugging Face checkpoint as float32 tensors
    under unprefixed names; buffers and optimizer state are dropped, and a
    lm_head.weight equal to wte.weight (tied) is too."""
    tensors, _ = read_safetensors(path)
    params = {}
    for name, t in tensors.items():
        bare = name[len('transformer.'):] if name.startswith('transformer.') else name
        if _BUFFER.match(bare) or bare.startswith('optimizer.'):
            continue
        params[bare] = t
    head = params.get('lm_head.weight')
    if head is not None and torch.equal(head, params['wte.weight']):
        del params['lm_head.weight']
    return params


#===----------------------------------------------------------------------===#
# Data and training, as tpc-run reads and trains
#===----------------------------------------------------------------------===#

def read_tokens(path):
    """The tokens of an llm.c token file: version 1 holds uint16 tokens,
    version 2 (tpc's, for vocabularies past 65536 ids) uint32."""
    with open(path, 'rb') as f:
        header = np.frombuffer(f.read(1024), dtype=np.int32)
        width = {1: np.uint16, 2: np.uint32}.get(int(header[1]))
        if header[0] != 20240520 or width is None:
            raise SystemExit('%s: not an llm.c token file of version 1 or 2' % path)
        n = int(header[2])
        tokens = np.frombuffer(f.read(np.dtype(width).itemsize * n), dtype=width)
        if tokens.size != n:
            raise SystemExit('%s: holds %d of its %d tokens' % (path, tokens.size, n))
        return tokens.astype(np.int64)


class Batches:
    """Consecutive batches from the start of the file, wrapping like
    tpc's TokenBatcher."""

    def __init__(self, tokens, B, T):
        self.tokens, self.B, self.T, self.position = tokens, B, T, 0
        if len(tokens) < B * T + 1:
            raise SystemExit('the token file holds fewer than B*T+1 tokens')

    def per_epoch(self):
        return (len(self.tokens) - 1) // (self.B * self.T)

    def next(self):
        n = self.B * self.T
        if self.position + n + 1 > len(self.tokens):
            self.position = 0
        buf = torch.from_numpy(self.tokens[self.position:self.position + n + 1].copy())
        self.position += n
        x = buf[:-1].view(self.B, self.T)
        y = buf[1:].view(self.B, self.T)
        return x, y


def learning_rate(args, step):
    """tpc-run train's schedule (runtime/run/Train.cpp)."""
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    if args.schedule == 'constant':
        return args.lr
    decay = args.steps - args.warmup
    ratio = 0.0 if decay <= 1 else (step - args.warmup) / (decay - 1)
    ratio = min(1.0, max(0.0, ratio))
    return args.min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (args.lr - args.min_lr)


def train(model, batches, args, on_step):
    params = list(model.params.values())
    for t in params:
        t.requires_grad_(True)
    decayed = [t for t in params if t.dim() >= 2]
    plain = [t for t in params if t.dim() < 2]
    opt = torch.optim.AdamW(
        [{'params': decayed, 'weight_decay': args.weight_decay},
         {'params': plain, 'weight_decay': 0.0}],
        lr=args.lr, betas=(args.beta1, args.beta2), eps=args.eps)
    for step in range(args.steps):
        start = time.perf_counter()
        x, y = batches.next()
        opt.zero_grad(set_to_none=True)
        # args.autocast (a torch dtype, or absent): mixed precision as
        # torch.autocast does it on CPUs, the weights and AdamW in fp32.
        dtype = getattr(args, 'autocast', None)
        with torch.autocast(device_type='cpu', dtype=dtype or torch.bfloat16,
                            enabled=dtype is not None):
            loss, _ = model.forward(x, y)
        loss.float().backward()
        norm = torch.nn.utils.clip_grad_norm_(params, args.clip if args.clip > 0 else float('inf'))
        lr = learning_rate(args, step)
        for group in opt.param_groups:
            group['lr'] = lr
        opt.step()
        seconds = time.perf_counter() - start
        on_step({'step': step, 'loss': float(loss), 'lr': lr, 'grad_norm': float(norm),
                 'tokens': y.numel(), 'tokens_per_s': y.numel() / max(seconds, 1e-9),
                 'seconds': seconds})


#===----------------------------------------------------------------------===#
# Command line
#===----------------------------------------------------------------------===#

def cmd_init(args):
    params = GPT2.random(args.vocab, args.layers, args.hidden, args.seq, args.seed, args.untied)
    if args.wrong_shape:
        if args.wrong_shape not in params:
            raise SystemExit('--wrong-shape: no parameter ' + args.wrong_shape)
        shape = list(params[args.wrong_shape].shape)
        shape[-1] += 1
        params[args.wrong_shape] = torch.zeros(shape)
    out = {args.prefix + k: v for k, v in params.items() if k != 'lm_head.weight'}
    if args.lm_head or args.untied:
        # GPT2LMHeadModel's state dict: lm_head outside the transformer.
        out['lm_head.weight'] = params.get('lm_head.weight', params['wte.weight'])
    if not args.no_buffers:
        mask = np.tril(np.ones((args.seq, args.seq), dtype=np.bool_)).reshape(1, 1, args.seq, args.seq)
        for i in range(args.layers):
            out['%sh.%d.attn.bias' % (args.prefix, i)] = mask
            out['%sh.%d.attn.masked_bias' % (args.prefix, i)] = np.array(-1e4, dtype=np.float32)
    write_safetensors(args.o, out, {'format': 'pt'}, args.dtype.upper())
    print('wrote %d tensors to %s' % (len(out), args.o))


def evaluate(model, args):
    """Prints the token-weighted mean loss over --max-batches batches (all
    of the file by default) as one JSON line."""
    batches = Batches(read_tokens(args.data), args.batch, args.seq)
    count = batches.per_epoch()
    if args.max_batches > 0:
        count = min(count, args.max_batches)
    total, tokens = 0.0, 0
    with torch.no_grad():
        for _ in range(count):
            x, y = batches.next()
            loss, _ = model.forward(x, y)
            total += float(loss) * y.numel()
            tokens += y.numel()
    print(json.dumps({'loss': total / tokens, 'tokens': tokens, 'batches': count}))


def train_logged(model, args):
    """Trains --steps steps, printing a progress line per step and writing
    tpc-run train --log's JSON lines to --log."""
    batches = Batches(read_tokens(args.data), args.batch, args.seq)
    log = open(args.log, 'w') if args.log else None

    def on_step(r):
        line = json.dumps({k: v for k, v in r.items() if k != 'seconds'})
        if log:
            log.write(line + '\n')
            log.flush()
        print('step %d/%d | loss %.6f | %.0f tok/s' % (r['step'] + 1, args.steps, r['loss'],
                                                       r['tokens_per_s']), flush=True)

    train(model, batches, args, on_step)


def cmd_eval(args):
    evaluate(GPT2(load_checkpoint(args.load), args.heads), args)


def cmd_train(args):
    train_logged(GPT2(load_checkpoint(args.load), args.heads), args)


def generate(model, args):
    """Greedy decoding with the model's KV cache (model.decode(token, pos,
    cache) -> logits); prints the ids and the decode steps/s as one JSON
    line."""
    ids = [int(t) for t in args.prompt_ids.split(',')]
    cache = []
    steps = 0
    with torch.no_grad():
        # One decode step per position, the prompt's and then one per new
        # token but the last, all timed: tpc-run generate's steps/s.
        start = time.perf_counter()
        for pos, t in enumerate(ids[:-1]):
            model.decode(t, pos, cache)
            steps += 1
        for k in range(args.tokens):
            logits = model.decode(ids[-1], len(ids) - 1, cache)
            steps += 1
            ids.append(int(torch.argmax(logits)))
        seconds = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux
    print(json.dumps({'ids': ids, 'steps': steps, 'seconds': seconds,
                      'steps_per_s': steps / seconds, 'peak_rss_mib': rss}))


def cmd_generate(args):
    generate(GPT2(load_checkpoint(args.load), args.heads), args)


def add_train_args(p):
    """The flags of `train`, with tpc-run train's defaults."""
    p.add_argument('--steps', type=int, required=True)
    p.add_argument('--lr', type=float, default=3e-4)
    p.add_argument('--min-lr', type=float, default=0.0)
    p.add_argument('--warmup', type=int, default=0)
    p.add_argument('--schedule', default='cosine', choices=['cosine', 'constant'])
    p.add_argument('--weight-decay', type=float, default=0.1)
    p.add_argument('--beta1', type=float, default=0.9)
    p.add_argument('--beta2', type=float, default=0.95)
    p.add_argument('--eps', type=float, default=1e-8)
    p.add_argument('--clip', type=float, default=1.0)
    p.add_argument('--log', default='')


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='command', required=True)
    init = sub.add_parser('init', help='write a random GPT-2 checkpoint under Hugging Face names')
    init.add_argument('--vocab', type=int, required=True)
    init.add_argument('--layers', type=int, required=True)
    init.add_argument('--hidden', type=int, required=True)
    init.add_argument('--seq', type=int, required=True, help='positions (n_ctx)')
    init.add_argument('--seed', type=int, default=1)
    init.add_argument('--prefix', default='', help="e.g. 'transformer.'")
    init.add_argument('--lm-head', action='store_true',
                      help='also write lm_head.weight (= wte.weight), as GPT2LMHeadModel does')
    init.add_argument('--untied', action='store_true', help='an output layer of its own')
    init.add_argument('--no-buffers', action='store_true',
                      help='leave out the attention mask buffers h.N.attn.bias/masked_bias')
    init.add_argument('--dtype', default='f32', choices=['f32', 'f16', 'bf16'])
    init.add_argument('--wrong-shape', default='',
                      help='give this parameter one extra column (for error tests)')
    init.add_argument('-o', required=True)
    for name in ('eval', 'train'):
        p = sub.add_parser(name)
        p.add_argument('--load', required=True)
        p.add_argument('--heads', type=int, required=True)
        p.add_argument('--data', required=True)
        p.add_argument('--batch', type=int, required=True)
        p.add_argument('--seq', type=int, required=True)
        p.add_argument('--threads', type=int, default=0)
        if name == 'eval':
            p.add_argument('--max-batches', type=int, default=0)
        else:
            add_train_args(p)
    gen = sub.add_parser('generate', help='greedy decoding with a KV cache')
    gen.add_argument('--load', required=True)
    gen.add_argument('--heads', type=int, required=True)
    gen.add_argument('--prompt-ids', required=True, help='comma-separated token ids')
    gen.add_argument('--tokens', type=int, required=True)
    gen.add_argument('--threads', type=int, default=0)
    args = ap.parse_args(argv)
    if getattr(args, 'threads', 0) > 0:
        torch.set_num_threads(args.threads)
    {'init': cmd_init, 'eval': cmd_eval, 'train': cmd_train,
     'generate': cmd_generate}[args.command](args)


if __name__ == '__main__':
    main(sys.argv[1:])
