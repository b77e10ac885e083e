#!/usr/bin/python3
"""A plain Llama in PyTorch: tpc's numerical reference for its Llama blocks.

The semantics are Hugging Face LlamaForCausalLM's: token embeddings and no
position embeddings, pre-norm blocks with RMSNorm (statistics in float32,
eps 1e-5 by default), rotary position embeddings in the rotate-half
convention on the first int(head_dim * rope_fraction) dimensions of each
query and key head (the rest pass through), grouped-query attention (query
head h reads KV head h // (heads / kv_heads)) with scale 1/sqrt(head_dim)
and a float32 softmax, a SwiGLU MLP down(silu(gate(x)) * up(x)), no biases,
and the output layer tied to embed_tokens when the checkpoint holds no
lm_head.weight. Weights are nn.Linear's [out, in] and are read and written
as safetensors under Hugging Face names (`model.layers.N.self_attn.q_proj.
weight`, ...; names without the `model.` prefix, as LlamaModel saves them,
are read too). safetensors, the llm.c token files, the batcher, the
learning-rate schedule and the AdamW training loop are imported from
reference_gpt2.py; the loss and the JSON lines are the same as its.

Runs with Debian's python3-torch (/usr/bin/python3); torch and numpy only.

  reference_llama.py init  --vocab V --layers L --hidden H --heads A --kv-heads K
                           --intermediate F -o OUT.safetensors [--seq P] [--seed S]
                           [--tied] [--dtype f32|f16|bf16] [--wrong-shape NAME]
                           (--seq is accepted for symmetry with reference_gpt2.py
                           and unused: Llama has no position embeddings)
  reference_llama.py eval  --load CKPT --heads A [--kv-heads K] --data TOKENS
                           --batch B --seq T [--max-batches N] [ROPE/NORM]
                                                            (prints one JSON line)
  reference_llama.py train --load CKPT --heads A [--kv-heads K] --data TOKENS
                           --batch B --seq T --steps N [--lr ...] [--log OUT.jsonl]
                           [ROPE/NORM] (one JSON line per step, as tpc-run train
                           --log writes)
  reference_llama.py generate --load CKPT --heads A [--kv-heads K] --prompt-ids 1,2,3
                           --tokens N [ROPE/NORM] (greedy, with a KV cache of rotated
                           keys; one JSON line as reference_gpt2.py generate prints)
  reference_llama.py selftest   (checks against independent formulations; one
                           JSON line, exit status 1 when a check fails)

  ROPE/NORM: [--rope-theta 10000] [--rope-fraction 1.0] [--norm-eps 1e-5]
  --kv-heads defaults to what k_proj's shape implies; eval, train and generate
  also take --threads N (selftest too, default 1).
"""
import argparse
import json
import math
import os
import re
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_gpt2 as ref  # noqa: E402

#===----------------------------------------------------------------------===#
# The pieces
#===----------------------------------------------------------------------===#


def rms_norm(x, weight, eps):
    """Hugging Face's LlamaRMSNorm: statistics in float32 (or wider), the
    normalized value cast back to x's type before the weight."""
    dtype = x.dtype
    h = x.to(torch.promote_types(dtype, torch.float32))
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return weight * h.to(dtype)


def rope_inv_freq(head_dim, fraction, theta):
    """inv_freq[i] = theta^(-2i/R), i < R/2, R = int(head_dim * fraction),
    computed as Hugging Face does (float32)."""
    rotary = int(head_dim * fraction)
    if not 0.0 <= fraction <= 1.0 or rotary % 2:
        raise SystemExit('--rope-fraction %g gives %d rotary dimensions of %d: '
                         'they must be an even number' % (fraction, rotary, head_dim))
    if rotary == 0:
        return torch.zeros(0)
    return 1.0 / (theta ** (torch.arange(0, rotary, 2, dtype=torch.int64).float() / rotary))


def rope_tables(inv_freq, positions, dtype):
    """cos, sin [len(positions), R]: angle p * inv_freq, the R/2 angles
    duplicated ([cos, cos]), in float32 like Hugging Face, then cast."""
    freqs = positions.float()[:, None] * inv_freq[None, :]
    emb = torch.cat([freqs, freqs], dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def apply_rope(x, cos, sin):
    """x [..., T, D] rotated on its first R = cos.shape[-1] dimensions:
    x*cos + rotate_half(x)*sin, rotate_half(x) = cat(-x2, x1)."""
    rotary = cos.shape[-1]
    if rotary == 0:
        return x
    xr, rest = x[..., :rotary], x[..., rotary:]
    x1, x2 = xr[..., :rotary // 2], xr[..., rotary // 2:]
    rotated = xr * cos + torch.cat([-x2, x1], dim=-1) * sin
    return torch.cat([rotated, rest], dim=-1)


#===----------------------------------------------------------------------===#
# The model
#===----------------------------------------------------------------------===#

class Llama:
    """Parameters under Hugging Face LlamaForCausalLM names
    (`model.embed_tokens.weight` [V,H], `model.layers.N.self_attn.q_proj.
    weight` [A*D,H], ...; `lm_head.weight` [V,H] only when untied). The head
    dimension D is q_proj's rows / heads (H / heads for every Llama
    checkpoint this writes)."""

    def __init__(self, params, heads, kv_heads=0, rope_theta=10000.0,
                 rope_fraction=1.0, norm_eps=1e-5):
        self.params = params
        if 'model.embed_tokens.weight' not in params:
            raise SystemExit('the checkpoint holds no model.embed_tokens.weight')
        layer_ids = [int(m.group(1)) for m in
                     (re.match(r'model\.layers\.(\d+)\.', k) for k in params) if m]
        if not layer_ids:
            raise SystemExit('the checkpoint holds no model.layers.N. parameters')
        self.layers = 1 + max(layer_ids)
        self.vocab, self.hidden = params['model.embed_tokens.weight'].shape
        first = 'model.layers.0.'
        try:
            q_rows = params[first + 'self_attn.q_proj.weight'].shape[0]
            k_rows = params[first + 'self_attn.k_proj.weight'].shape[0]
            self.intermediate = params[first + 'mlp.gate_proj.weight'].shape[0]
        except KeyError as e:
            raise SystemExit('the checkpoint holds no %s' % e.args[0])
        if heads <= 0 or q_rows % heads:
            raise SystemExit('--heads %d does not divide q_proj\'s %d rows' % (heads, q_rows))
        self.heads = heads
        self.head_dim = q_rows // heads
        if k_rows % self.head_dim:
            raise SystemExit('k_proj\'s %d rows are no whole number of heads of %d'
                             % (k_rows, self.head_dim))
        if kv_heads and kv_heads * self.head_dim != k_rows:
            raise SystemExit('--kv-heads %d does not match k_proj\'s %d rows (head dim %d)'
                             % (kv_heads, k_rows, self.head_dim))
        self.kv_heads = k_rows // self.head_dim
        if self.kv_heads == 0 or heads % self.kv_heads:
            raise SystemExit('%d KV heads do not divide %d heads' % (self.kv_heads, heads))
        self.eps = norm_eps
        self.inv_freq = rope_inv_freq(self.head_dim, rope_fraction, rope_theta)
        expected = self.shapes(self.vocab, self.layers, self.hidden, heads, self.kv_heads,
                               self.intermediate, self.head_dim,
                               tied='lm_head.weight' not in params)
        problems = ['missing ' + n for n in expected if n not in params]
        problems += ['unexpected ' + n for n in params if n not in expected]
        problems += ['%s is %s, expected %s' % (n, list(params[n].shape), s)
                     for n, s in expected.items() if n in params and list(params[n].shape) != s]
        if problems:
            raise SystemExit('not a Llama checkpoint with %d heads: %s%s' % (
                heads, '; '.join(problems[:4]), '; ...' if len(problems) > 4 else ''))

    @staticmethod
    def shapes(vocab, layers, hidden, heads, kv_heads, intermediate, head_dim=0, tied=False):
        D = head_dim or hidden // heads
        s = {'model.embed_tokens.weight': [vocab, hidden]}
        for i in range(layers):
            p = 'model.layers.%d.' % i
            s[p + 'input_layernorm.weight'] = [hidden]
            s[p + 'self_attn.q_proj.weight'] = [heads * D, hidden]
            s[p + 'self_attn.k_proj.weight'] = [kv_heads * D, hidden]
            s[p + 'self_attn.v_proj.weight'] = [kv_heads * D, hidden]
            s[p + 'self_attn.o_proj.weight'] = [hidden, heads * D]
            s[p + 'post_attention_layernorm.weight'] = [hidden]
            s[p + 'mlp.gate_proj.weight'] = [intermediate, hidden]
            s[p + 'mlp.up_proj.weight'] = [intermediate, hidden]
            s[p + 'mlp.down_proj.weight'] = [hidden, intermediate]
        s['model.norm.weight'] = [hidden]
        if not tied:
            s['lm_head.weight'] = [vocab, hidden]
        return s

    @classmethod
    def random(cls, vocab, layers, hidden, heads, kv_heads, intermediate, seed,
               tied=False, std=0.02, norm_std=0.0, dtype=torch.float32):
        """Hugging Face's initialization: N(0, std) for every matrix, drawn
        in the order of shapes() from one seeded generator, RMSNorm weights
        1 (plus N(0, norm_std) when asked, for the self-test)."""
        g = torch.Generator().manual_seed(seed)
        params = {}
        for name, shape in cls.shapes(vocab, layers, hidden, heads, kv_heads,
                                      intermediate, tied=tied).items():
            if len(shape) >= 2:
                t = torch.randn(shape, generator=g) * std
            else:
                t = torch.ones(shape)
                if norm_std:
                    t += torch.randn(shape, generator=g) * norm_std
            params[name] = t.to(dtype)
        return params

    def attend(self, q, k, v, mask):
        """q [B, A, Tq, D], k and v [B, K, Tk, D] (keys rotated): the heads'
        outputs [B, A, Tq, D], query head h reading KV head h // (A/K) as
        Hugging Face's repeat_kv arranges it; mask [Tq, Tk] (True: attend)."""
        group = self.heads // self.kv_heads
        if group > 1:
            k = k.repeat_interleave(group, dim=1)
            v = v.repeat_interleave(group, dim=1)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.head_dim))
        if mask is not None:
            att = att.masked_fill(~mask, float('-inf'))
        att = att.softmax(dim=-1, dtype=torch.promote_types(att.dtype, torch.float32))
        return att.to(q.dtype) @ v

    def attention(self, i, a, cos, sin, mask, cache=None):
        """Layer i's attention sublayer on the normed input a [B, T, H]
        (o_proj included); with cache ([k, v] of this layer, each [B, K, t,
        D], or an empty list), this call's rotated keys and values are
        appended and attended to after the cached ones."""
        p = self.params
        n = 'model.layers.%d.self_attn.' % i
        B, T, _ = a.shape
        A, K, D = self.heads, self.kv_heads, self.head_dim
        q = F.linear(a, p[n + 'q_proj.weight']).view(B, T, A, D).transpose(1, 2)
        k = F.linear(a, p[n + 'k_proj.weight']).view(B, T, K, D).transpose(1, 2)
        v = F.linear(a, p[n + 'v_proj.weight']).view(B, T, K, D).transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        if cache is not None:
            if cache:
                k = torch.cat([cache[0], k], dim=2)
                v = torch.cat([cache[1], v], dim=2)
            cache[:] = [k, v]
        y = self.attend(q, k, v, mask).transpose(1, 2).reshape(B, T, A * D)
        return F.linear(y, p[n + 'o_proj.weight'])

    def mlp(self, i, m):
        p = self.params
        n = 'model.layers.%d.mlp.' % i
        return F.linear(F.silu(F.linear(m, p[n + 'gate_proj.weight'])) *
                        F.linear(m, p[n + 'up_proj.weight']), p[n + 'down_proj.weight'])

    def blocks(self, x, positions, mask, caches=None):
        """The decoder layers, the final norm and the output layer on the
        embeddings x [B, T, H] at positions [T]: the logits [B, T, V]."""
        p = self.params
        cos, sin = rope_tables(self.inv_freq, positions, x.dtype)
        for i in range(self.layers):
            n = 'model.layers.%d.' % i
            a = rms_norm(x, p[n + 'input_layernorm.weight'], self.eps)
            x = x + self.attention(i, a, cos, sin, mask, None if caches is None else caches[i])
            m = rms_norm(x, p[n + 'post_attention_layernorm.weight'], self.eps)
            x = x + self.mlp(i, m)
        x = rms_norm(x, p['model.norm.weight'], self.eps)
        return F.linear(x, p.get('lm_head.weight', p['model.embed_tokens.weight']))

    def forward(self, idx, targets):
        """Mean cross-entropy over the B*T targets (None: no loss), and the
        logits."""
        B, T = idx.shape
        x = self.params['model.embed_tokens.weight'][idx]
        mask = torch.ones(T, T, dtype=torch.bool).tril()
        logits = self.blocks(x, torch.arange(T), mask)
        if targets is None:
            return None, logits
        loss = F.cross_entropy(logits.reshape(B * T, -1), targets.reshape(B * T), ignore_index=-1)
        return loss, logits

    def decode(self, token, pos, cache):
        """Logits [V] of one token at position pos, appending its rotated
        keys and values to cache (a list of per-layer [k, v] lists, each
        [1, K, pos, D]), as Hugging Face's past_key_values do."""
        while len(cache) < self.layers:
            cache.append([])
        x = self.params['model.embed_tokens.weight'][token].view(1, 1, self.hidden)
        return self.blocks(x, torch.tensor([pos]), None, cache).view(self.vocab)


# Non-parameter buffers some Hugging Face Llama checkpoints hold.
_BUFFER = re.compile(r'(model\.)?layers\.\d+\.self_attn\.rotary_emb\.inv_freq$')


def load_checkpoint(path):
    """The parameters of a tpc or Hugging Face checkpoint as float32 tensors
    under LlamaForCausalLM names; buffers and optimizer state are dropped,
    and a lm_head.weight equal to embed_tokens.weight (tied) is too."""
    tensors, _ = ref.read_safetensors(path)
    params = {}
    for name, t in tensors.items():
        if _BUFFER.match(name) or name.startswith('optimizer.'):
            continue
        if not name.startswith('model.') and name != 'lm_head.weight':
            name = 'model.' + name  # LlamaModel's state dict
        params[name] = t
    head = params.get('lm_head.weight')
    embed = params.get('model.embed_tokens.weight')
    if head is not None and embed is not None and torch.equal(head, embed):
        del params['lm_head.weight']
    return params


def model_of(args):
    return Llama(load_checkpoint(args.load), args.heads, args.kv_heads, args.rope_theta,
                 args.rope_fraction, args.norm_eps)


#===----------------------------------------------------------------------===#
# Command line (the JSON lines are reference_gpt2.py's)
#===----------------------------------------------------------------------===#

def cmd_init(args):
    kv_heads = args.kv_heads or args.heads
    if args.hidden % args.heads or args.heads % kv_heads:
        raise SystemExit('--heads %d must divide --hidden %d and --kv-heads %d --heads'
                         % (args.heads, args.hidden, kv_heads))
    params = Llama.random(args.vocab, args.layers, args.hidden, args.heads, kv_heads,
                          args.intermediate, args.seed, args.tied)
    if args.wrong_shape:
        if args.wrong_shape not in params:
            raise SystemExit('--wrong-shape: no parameter ' + args.wrong_shape)
        shape = list(params[args.wrong_shape].shape)
        shape[-1] += 1
        params[args.wrong_shape] = torch.zeros(shape)
    ref.write_safetensors(args.o, params, {'format': 'pt'}, args.dtype.upper())
    print('wrote %d tensors to %s' % (len(params), args.o))


def cmd_eval(args):
    ref.evaluate(model_of(args), args)


def cmd_train(args):
    ref.train_logged(model_of(args), args)


def cmd_generate(args):
    ref.generate(model_of(args), args)


#===----------------------------------------------------------------------===#
# Self-test: each piece against a formulation of its own
#===----------------------------------------------------------------------===#

def _max_diff(a, b):
    return float((a.double() - b.double()).abs().max())


def _test_model(heads, kv_heads, fraction, tied, seed, dtype=torch.float32,
                vocab=37, layers=2, hidden=32, intermediate=40, std=0.3):
    """A small model, by default with weights large enough for every
    nonlinearity to matter and norm weights away from 1."""
    params = Llama.random(vocab, layers, hidden, heads, kv_heads, intermediate, seed,
                          tied, std=std, norm_std=0.2 if std > 0.02 else 0.0, dtype=dtype)
    return Llama(params, heads, kv_heads, rope_fraction=fraction)


def _check_rope_meta():
    """Meta's RoPE (complex rotation of interleaved pairs) on the original
    q_proj equals rotate-half RoPE on q_proj permuted as Hugging Face's
    conversion script permutes it, up to the same permutation."""
    A, D, H, T = 3, 8, 24, 9
    g = torch.Generator().manual_seed(11)
    w_meta = torch.randn(A * D, H, generator=g, dtype=torch.float64)
    x = torch.randn(T, H, generator=g, dtype=torch.float64)
    freqs = 1.0 / (10000.0 ** (torch.arange(0, D, 2, dtype=torch.float64) / D))
    angles = torch.outer(torch.arange(T, dtype=torch.float64), freqs)
    pairs = torch.view_as_complex((x @ w_meta.t()).view(T, A, D // 2, 2).contiguous())
    meta = torch.view_as_real(pairs * torch.polar(torch.ones_like(angles), angles)[:, None, :])
    expected = meta.transpose(2, 3).reshape(T, A, D).transpose(0, 1)   # [A, T, D]
    w_hf = w_meta.view(A, D // 2, 2, H).transpose(1, 2).reshape(A * D, H)
    q = (x @ w_hf.t()).view(T, A, D).transpose(0, 1)
    cos, sin = rope_tables(rope_inv_freq(D, 1.0, 10000.0), torch.arange(T), torch.float64)
    return _max_diff(apply_rope(q, cos, sin), expected)


def _check_rope_complex(fraction, theta):
    """Rotate-half RoPE on the first R dims equals multiplying the complex
    numbers x[j] + i x[j + R/2] (j < R/2) by exp(i p theta^(-2j/R)), the
    other dims unchanged."""
    D, T = 16, 13
    R = int(D * fraction)
    g = torch.Generator().manual_seed(12)
    x = torch.randn(2, T, D, generator=g, dtype=torch.float64)
    freqs = theta ** (-torch.arange(0, R // 2, dtype=torch.float64) * 2 / R)
    angles = torch.outer(torch.arange(T, dtype=torch.float64) * 7, freqs)  # positions 0, 7, ...
    z = torch.complex(x[..., :R // 2], x[..., R // 2:R]) * torch.polar(
        torch.ones_like(angles), angles)
    expected = torch.cat([z.real, z.imag, x[..., R:]], dim=-1)
    cos, sin = rope_tables(rope_inv_freq(D, fraction, theta), torch.arange(T) * 7, torch.float64)
    return _max_diff(apply_rope(x, cos, sin), expected)


def _check_mha():
    """With K == A and no rotary dims, a layer's attention sublayer equals
    torch.nn.MultiheadAttention (no biases, causal mask)."""
    model = _test_model(4, 4, 0.0, False, 21)
    p = model.params
    n = 'model.layers.1.self_attn.'
    B, T, H = 2, 7, model.hidden
    mha = torch.nn.MultiheadAttention(H, model.heads, bias=False, batch_first=True)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([p[n + 'q_proj.weight'], p[n + 'k_proj.weight'],
                                            p[n + 'v_proj.weight']]))
        mha.out_proj.weight.copy_(p[n + 'o_proj.weight'])
    a = torch.randn(B, T, H, generator=torch.Generator().manual_seed(22))
    future = torch.ones(T, T, dtype=torch.bool).triu(1)
    with torch.no_grad():
        expected, _ = mha(a, a, a, attn_mask=future, need_weights=False)
        cos, sin = rope_tables(model.inv_freq, torch.arange(T), a.dtype)
        got = model.attention(1, a, cos, sin, ~future)
    return _max_diff(got, expected)


def _loop_attention(p, n, a, heads, kv_heads, D, R, theta):
    """An attention sublayer (its parameters p[n + 'q_proj.weight'], ...)
    on a [B, T, H] as explicit loops over heads, queries and keys in
    float64, the rotation done with complex numbers on the query and key of
    each pair: score(t, s) = Re(sum zq_t conj(zk_s)) + the unrotated dims."""
    B, T, _ = a.shape
    freqs = theta ** (-torch.arange(0, R // 2, dtype=torch.float64) * 2 / R)
    out = torch.zeros(B, T, p[n + 'o_proj.weight'].shape[0], dtype=torch.float64)
    for b in range(B):
        for h in range(heads):
            kv = h // (heads // kv_heads)
            wq = p[n + 'q_proj.weight'][h * D:(h + 1) * D].double()
            wk = p[n + 'k_proj.weight'][kv * D:(kv + 1) * D].double()
            wv = p[n + 'v_proj.weight'][kv * D:(kv + 1) * D].double()
            wo = p[n + 'o_proj.weight'][:, h * D:(h + 1) * D].double()
            for t in range(T):
                q = wq @ a[b, t].double()
                zq = torch.complex(q[:R // 2], q[R // 2:R]) * torch.polar(
                    torch.ones_like(freqs), t * freqs)
                scores = []
                for s in range(t + 1):
                    k = wk @ a[b, s].double()
                    zk = torch.complex(k[:R // 2], k[R // 2:R]) * torch.polar(
                        torch.ones_like(freqs), s * freqs)
                    dot = float((zq * zk.conj()).real.sum()) + float(q[R:] @ k[R:])
                    scores.append(dot / math.sqrt(D))
                top = max(scores)
                weights = [math.exp(x - top) for x in scores]
                total = sum(weights)
                y = sum(w / total * (wv @ a[b, s].double()) for s, w in enumerate(weights))
                out[b, t] += wo @ y
    return out


def _check_attention_loops(heads, kv_heads, fraction, theta):
    """A layer's attention sublayer (rotary dims, grouped KV heads, causal
    mask) against _loop_attention."""
    model = _test_model(heads, kv_heads, fraction, False, 25)
    model.inv_freq = rope_inv_freq(model.head_dim, fraction, theta)
    B, T = 2, 6
    a = torch.randn(B, T, model.hidden, generator=torch.Generator().manual_seed(26))
    with torch.no_grad():
        cos, sin = rope_tables(model.inv_freq, torch.arange(T), a.dtype)
        got = model.attention(0, a, cos, sin, torch.ones(T, T, dtype=torch.bool).tril())
    expected = _loop_attention(model.params, 'model.layers.0.self_attn.', a, heads, kv_heads,
                               model.head_dim, model.inv_freq.numel() * 2, theta)
    return _max_diff(got, expected)


def _check_model_loops(heads, kv_heads, fraction, tied, eps):
    """The whole model's logits against a float64 formulation of its own:
    RMSNorm as x * sqrt(H) / sqrt(|x|^2 + H eps), silu(g) as g / (1 + e^-g),
    _loop_attention, the blocks written out; relative to the largest
    logit."""
    model = _test_model(heads, kv_heads, fraction, tied, 27)
    model.eps = eps
    p = {k: v.double() for k, v in model.params.items()}
    H = model.hidden
    idx = torch.randint(0, model.vocab, (2, 7), generator=torch.Generator().manual_seed(28))
    with torch.no_grad():
        got = model.forward(idx, None)[1]

    def norm(x, w):
        return x * math.sqrt(H) / torch.sqrt((x * x).sum(-1, keepdim=True) + H * eps) * w

    x = p['model.embed_tokens.weight'][idx]
    for i in range(model.layers):
        n = 'model.layers.%d.' % i
        x = x + _loop_attention(p, n + 'self_attn.', norm(x, p[n + 'input_layernorm.weight']),
                                heads, kv_heads, model.head_dim, model.inv_freq.numel() * 2,
                                10000.0)
        m = norm(x, p[n + 'post_attention_layernorm.weight'])
        g = m @ p[n + 'mlp.gate_proj.weight'].t()
        u = m @ p[n + 'mlp.up_proj.weight'].t()
        x = x + (g / (1 + torch.exp(-g)) * u) @ p[n + 'mlp.down_proj.weight'].t()
    head = p['model.embed_tokens.weight'] if tied else p['lm_head.weight']
    expected = norm(x, p['model.norm.weight']) @ head.t()
    return _max_diff(got, expected) / max(1.0, float(expected.abs().max()))


def _check_gqa(fraction):
    """Grouped-query attention with K < A equals multi-head attention whose
    query head h has its own copy of KV head h // (A/K)'s k/v weights: the
    whole model's logits, with rotary dims."""
    A, K = 8, 2
    gqa = _test_model(A, K, fraction, False, 31)
    D = gqa.head_dim
    params = dict(gqa.params)
    for name in list(params):
        if name.endswith('k_proj.weight') or name.endswith('v_proj.weight'):
            w = params[name].view(K, D, -1)
            params[name] = torch.stack([w[h // (A // K)] for h in range(A)]).reshape(A * D, -1)
    mha = Llama(params, A, A, rope_fraction=fraction)
    idx = torch.randint(0, gqa.vocab, (2, 11), generator=torch.Generator().manual_seed(32))
    with torch.no_grad():
        return _max_diff(gqa.forward(idx, None)[1], mha.forward(idx, None)[1])


def _check_decode(heads, kv_heads, fraction, tied, std=0.3):
    """Decoding one position at a time with the KV cache gives the full
    forward's logits at every position: the largest difference, relative
    to the largest logit when that is above 1."""
    model = _test_model(heads, kv_heads, fraction, tied, 41, std=std)
    T = 16
    idx = torch.randint(0, model.vocab, (1, T), generator=torch.Generator().manual_seed(42))
    cache = []
    with torch.no_grad():
        full = model.forward(idx, None)[1][0]
        steps = torch.stack([model.decode(int(idx[0, t]), t, cache) for t in range(T)])
    return _max_diff(steps, full) / max(1.0, float(full.abs().max()))


def _check_gradients(heads, kv_heads, fraction, tied):
    """torch.autograd.gradcheck of the loss with respect to every parameter,
    float64, on a tiny model."""
    model = _test_model(heads, kv_heads, fraction, tied, 51, torch.float64,
                        vocab=7, layers=2, hidden=8, intermediate=8)
    names = sorted(model.params)
    g = torch.Generator().manual_seed(52)
    idx = torch.randint(0, model.vocab, (2, 5), generator=g)
    targets = torch.randint(0, model.vocab, (2, 5), generator=g)
    targets[1, 2] = -1  # ignored, as reference_gpt2.py's loss ignores -1

    def loss(*tensors):
        model.params = dict(zip(names, tensors))
        return model.forward(idx, targets)[0]

    inputs = tuple(model.params[n].clone().requires_grad_(True) for n in names)
    return bool(torch.autograd.gradcheck(loss, inputs, eps=1e-6, atol=1e-7, rtol=1e-5,
                                         raise_exception=False))


def cmd_selftest(args):
    torch.manual_seed(0)
    checks = [
        ('rope_vs_meta_complex_permuted', _check_rope_meta, 1e-6),
        # Against float64 angles: Hugging Face's float32 angles (p * inv_freq,
        # here p up to 84) are off by up to ~p * 2^-24 radians.
        ('rope_vs_complex_full', lambda: _check_rope_complex(1.0, 10000.0), 1e-5),
        ('rope_vs_complex_half_theta500000', lambda: _check_rope_complex(0.5, 500000.0), 1e-5),
        ('attention_k_eq_a_vs_nn_multihead', _check_mha, 1e-5),
        ('attention_vs_loops_gqa', lambda: _check_attention_loops(4, 2, 1.0, 10000.0), 1e-5),
        ('attention_vs_loops_mqa_partial_rope',
         lambda: _check_attention_loops(8, 1, 0.5, 500000.0), 1e-5),
        ('model_vs_loops_gqa_untied', lambda: _check_model_loops(4, 2, 1.0, False, 1e-5), 1e-5),
        ('model_vs_loops_mqa_tied_partial_rope_eps1e-2',
         lambda: _check_model_loops(4, 1, 0.5, True, 1e-2), 1e-5),
        ('gqa_vs_replicated_kv_weights', lambda: _check_gqa(1.0), 1e-5),
        ('gqa_vs_replicated_kv_weights_partial_rope', lambda: _check_gqa(0.5), 1e-5),
        ('decode_vs_forward_gqa_untied', lambda: _check_decode(4, 2, 1.0, False), 1e-5),
        ('decode_vs_forward_mqa_tied_partial_rope', lambda: _check_decode(4, 1, 0.25, True), 1e-5),
        ('decode_vs_forward_mha', lambda: _check_decode(4, 4, 1.0, False), 1e-5),
        ('decode_vs_forward_gqa_init_weights', lambda: _check_decode(4, 2, 1.0, False, 0.02), 1e-5),
        ('gradcheck_f64_mqa_untied_partial_rope', lambda: _check_gradients(2, 1, 0.5, False), None),
        ('gradcheck_f64_mha_tied', lambda: _check_gradients(2, 2, 1.0, True), None),
    ]
    report, failed = {}, []
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
    p.add_argument('--kv-heads', type=int, default=0,
                   help="KV heads (default: what k_proj's shape implies)")
    p.add_argument('--rope-theta', type=float, default=10000.0)
    p.add_argument('--rope-fraction', type=float, default=1.0,
                   help='the fraction of each head rotated (partial_rotary_factor)')
    p.add_argument('--norm-eps', type=float, default=1e-5, help='RMSNorm eps')
    p.add_argument('--threads', type=int, default=0)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='command', required=True)
    init = sub.add_parser('init', help='write a random Llama checkpoint under Hugging Face names')
    init.add_argument('--vocab', type=int, required=True)
    init.add_argument('--layers', type=int, required=True)
    init.add_argument('--hidden', type=int, required=True)
    init.add_argument('--heads', type=int, required=True)
    init.add_argument('--kv-heads', type=int, default=0, help='default: --heads')
    init.add_argument('--intermediate', type=int, required=True)
    init.add_argument('--seq', type=int, default=0,
                      help='accepted for symmetry with reference_gpt2.py; unused')
    init.add_argument('--seed', type=int, default=1)
    init.add_argument('--tied', action='store_true',
                      help='no lm_head.weight: the logits use model.embed_tokens.weight')
    init.add_argument('--dtype', default='f32', choices=['f32', 'f16', 'bf16'])
    init.add_argument('--wrong-shape', default='',
                      help='give this parameter one extra column (for error tests)')
    init.add_argument('-o', required=True)
    for name in ('eval', 'train'):
        p = sub.add_parser(name)
        add_model_args(p)
        p.add_argument('--data', required=True)
        p.add_argument('--batch', type=int, required=True)
        p.add_argument('--seq', type=int, required=True)
        if name == 'eval':
            p.add_argument('--max-batches', type=int, default=0)
        else:
            ref.add_train_args(p)
    gen = sub.add_parser('generate', help='greedy decoding with a KV cache')
    add_model_args(gen)
    gen.add_argument('--prompt-ids', required=True, help='comma-separated token ids')
    gen.add_argument('--tokens', type=int, required=True)
    test = sub.add_parser('selftest', help='check the model against independent formulations')
    test.add_argument('--threads', type=int, default=1)
    args = ap.parse_args(argv)
    if getattr(args, 'threads', 0) > 0:
        torch.set_num_threads(args.threads)
    {'init': cmd_init, 'eval': cmd_eval, 'train': cmd_train, 'generate': cmd_generate,
     'selftest': cmd_selftest}[args.command](args)


if __name__ == '__main__':
    main(sys.argv[1:])
