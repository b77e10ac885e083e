#!/usr/bin/env python3
"""PyTorch's eager GPT-2 on a GPU: the peer of tpc's CUDA backend in gpu-check.

The model is GPT-2 with tpc's semantics (pre-norm blocks, LayerNorm eps 1e-5,
tanh GELU, attention scale 1/sqrt(head_dim), the output layer tied to wte),
written in plain PyTorch modules and run eagerly (no torch.compile), with
PyTorch's own fused attention (scaled_dot_product_attention) and fused AdamW,
under bf16 autocast: what a practitioner's nanoGPT-style script runs. The
embedding table is padded to --padded-vocab rows (50,304, a multiple of 128,
as tpc pads it) so that both sides run the same GEMM shapes; ids stay below
--vocab, and the padded columns of the logits never reach the loss or the
argmax. Model FLOPs count the unpadded parameters, as tpc's do.

  torch_reference.py train  --batch B --seq T --steps N [--warmup W]
      one JSON line: tokens/s (median over steps after the warm-up), MFU
      against --peak-flops, peak memory
  torch_reference.py decode --tokens N --prompt P
      greedy decoding at batch 1 with a KV cache; one JSON line: ms per
      token after the first, tokens/s
Weights are random (N(0, 0.02)): speed does not depend on them.
"""
import argparse
import json
import math
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def attention(q, k, v, causal):
    """Fused attention where PyTorch has it (2.0 on), else the plain one (for
    a check of this script on an older CPU PyTorch). Queries are the last
    positions of the keys."""
    if hasattr(F, 'scaled_dot_product_attention'):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    att = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    if causal:
        t, s = q.shape[-2], k.shape[-2]
        mask = torch.ones(t, s, dtype=torch.bool).tril(s - t)
        att = att.masked_fill(~mask, float('-inf'))
    return att.softmax(-1) @ v


class Block(nn.Module):
    def __init__(self, h, heads):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(h, eps=1e-5)
        self.c_attn = nn.Linear(h, 3 * h)
        self.attn_proj = nn.Linear(h, h)
        self.ln_2 = nn.LayerNorm(h, eps=1e-5)
        self.c_fc = nn.Linear(h, 4 * h)
        self.mlp_proj = nn.Linear(4 * h, h)

    def split(self, x):
        b, t, c = x.shape
        return x.view(b, t, self.heads, c // self.heads).transpose(1, 2)

    def forward(self, x, cache=None, pos=0):
        b, t, c = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(c, dim=2)
        q, k, v = self.split(q), self.split(k), self.split(v)
        if cache is None:
            y = attention(q, k, v, True)
        else:
            kc, vc = cache
            kc[:, :, pos:pos + t] = k
            vc[:, :, pos:pos + t] = v
            k, v = kc[:, :, :pos + t], vc[:, :, :pos + t]
            # Only the prompt (at pos 0) comes in more than one position.
            y = attention(q, k, v, t > 1)
        y = y.transpose(1, 2).contiguous().view(b, t, c)
        x = x + self.attn_proj(y)
        x = x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate='tanh'))
        return x


class GPT2(nn.Module):
    def __init__(self, vocab, layers, h, heads, positions):
        super().__init__()
        self.vocab = vocab  # padded: the table's rows
        self.wte = nn.Embedding(vocab, h)
        self.wpe = nn.Embedding(positions, h)
        self.h = nn.ModuleList(Block(h, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(h, eps=1e-5)
        for p in self.parameters():
            if p.dim() >= 2:
                nn.init.normal_(p, 0.0, 0.02)

    def forward(self, ids, caches=None, pos=0):
        """Logits over the padded vocabulary."""
        t = ids.shape[1]
        x = self.wte(ids) + self.wpe(torch.arange(pos, pos + t, device=ids.device))
        for i, block in enumerate(self.h):
            x = block(x, None if caches is None else caches[i], pos)
        return self.ln_f(x) @ self.wte.weight.t()


def unpadded_params(model, vocab):
    n = sum(p.numel() for p in model.parameters())
    return n - (model.vocab - vocab) * model.wte.weight.shape[1]


def model_flops_per_token(n_params, layers, h, t):
    # 6N plus attention's 6 * layers * T * H (forward and backward), as tpc
    # counts model FLOPs.
    return 6 * n_params + 6 * layers * t * h


def cmd_train(args, model, dev):
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, betas=(0.9, 0.95),
                            weight_decay=0.1, fused=True)
    g = torch.Generator(device='cpu').manual_seed(1)
    times = []
    torch.cuda.reset_peak_memory_stats()
    for step in range(args.steps):
        ids = torch.randint(0, args.vocab, (args.batch, args.seq + 1), generator=g)
        ids = ids.to(dev, non_blocking=True)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        with torch.autocast('cuda', dtype=torch.bfloat16):
            logits = model(ids[:, :-1])[..., :args.vocab]
            loss = F.cross_entropy(logits.float().reshape(-1, args.vocab),
                                   ids[:, 1:].reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    steady = times[args.warmup:] or times
    dt = statistics.median(steady)
    n = unpadded_params(model, args.vocab)
    tokens = args.batch * args.seq
    flops = model_flops_per_token(n, args.layers, args.hidden, args.seq) * tokens
    print(json.dumps({
        'tokens_per_s': tokens / dt, 'step_s': dt,
        'mfu': flops / dt / args.peak_flops, 'loss': float(loss),
        'peak_mem_gib': torch.cuda.max_memory_allocated() / 2**30,
        'params': n}))


@torch.no_grad()
def cmd_decode(args, model, dev):
    model.eval()
    heads, hs = args.heads, args.hidden // args.heads
    total = args.prompt + args.tokens
    caches = [(torch.zeros(1, heads, total, hs, device=dev),
               torch.zeros(1, heads, total, hs, device=dev)) for _ in model.h]
    ids = torch.randint(0, args.vocab, (1, args.prompt), device=dev)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    logits = model(ids, caches, 0)
    nxt = logits[:, -1, :args.vocab].argmax(-1, keepdim=True)
    torch.cuda.synchronize()
    first = time.perf_counter() - t0
    pos = args.prompt
    t1 = time.perf_counter()
    for _ in range(args.tokens - 1):
        logits = model(nxt, caches, pos)
        nxt = logits[:, -1, :args.vocab].argmax(-1, keepdim=True)
        nxt.item()  # the token reaches the host, as a generator's does
        pos += 1
    later = (time.perf_counter() - t1) / max(1, args.tokens - 1)
    print(json.dumps({'first_s': first, 'ms_per_token': later * 1e3,
                      'tokens_per_s': 1.0 / later}))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('command', choices=['train', 'decode'])
    ap.add_argument('--vocab', type=int, default=50257)
    ap.add_argument('--padded-vocab', type=int, default=50304)
    ap.add_argument('--layers', type=int, default=12)
    ap.add_argument('--hidden', type=int, default=768)
    ap.add_argument('--heads', type=int, default=12)
    ap.add_argument('--positions', type=int, default=1024)
    ap.add_argument('--batch', type=int, default=8)
    ap.add_argument('--seq', type=int, default=1024)
    ap.add_argument('--steps', type=int, default=10)
    ap.add_argument('--warmup', type=int, default=3)
    ap.add_argument('--tokens', type=int, default=128)
    ap.add_argument('--prompt', type=int, default=16)
    ap.add_argument('--peak-flops', type=float, default=989e12)
    args = ap.parse_args(argv)
    if not torch.cuda.is_available():
        sys.exit('torch_reference.py: PyTorch sees no GPU')
    dev = torch.device('cuda')
    torch.manual_seed(0)
    if args.padded_vocab < args.vocab:
        sys.exit('torch_reference.py: --padded-vocab is below --vocab')
    model = GPT2(args.padded_vocab, args.layers, args.hidden, args.heads,
                 args.positions).to(dev)
    (cmd_train if args.command == 'train' else cmd_decode)(args, model, dev)


if __name__ == '__main__':
    main(sys.argv[1:])
