"""Writes a GPT-2 module as the partition pass leaves it for tp ranks.

Parameters carry their global shapes and Megatron layouts; the module
records tpc.tp; get_param reads the local slices; f precedes each
column-parallel region and g follows each row-parallel one; row-parallel
biases are added after g; the vocabulary is padded to a multiple of 128 * tp
and the loss is the vocab-parallel cross-entropy. Used by the cost report
tests for configurations too large to write by hand (Megatron 8.3B).
"""

import argparse


def main():
    p = argparse.ArgumentParser()
    for name in ("layers", "hidden", "heads", "vocab", "positions", "tp",
                 "batch", "seq"):
        p.add_argument("--" + name, type=int, required=True)
    a = p.parse_args()
    L, H, heads, V, P, tp, B, T = (a.layers, a.hidden, a.heads, a.vocab,
                                   a.positions, a.tp, a.batch, a.seq)
    mult = 128 * tp
    Vp = (V + mult - 1) // mult * mult
    f32 = lambda *dims: "tensor<%sxf32>" % "x".join(map(str, dims))
    act = f32(B, T, H)
    out = []
    w = out.append
    w("module attributes {tpc.tp = %d : i64} {" % tp)

    def param(name, shape, init, layout):
        w("  tpc.param @%s : %s init %s layout %s" % (name, f32(*shape), init,
                                                     layout))

    normal = "<normal, std = 0.02>"
    resid = "<normal, std = 0.02, residual_layers = %d>" % L
    w("  tpc.param @wte : %s init %s layout <split 0> {vocab_size = %d : i64}"
      % (f32(Vp, H), normal, V))
    param("wpe", (P, H), normal, "<replicated>")
    for i in range(L):
        h = "h.%d." % i
        for ln in ("ln_1", "ln_2"):
            param(h + ln + ".weight", (H,), "<ones>", "<replicated>")
            param(h + ln + ".bias", (H,), "<zeros>", "<replicated>")
        param(h + "attn.c_attn.weight", (H, 3 * H), normal, "<split 1 blocks 3>")
        param(h + "attn.c_attn.bias", (3 * H,), "<zeros>", "<split 0 blocks 3>")
        param(h + "attn.c_proj.weight", (H, H), resid, "<split 0>")
        param(h + "attn.c_proj.bias", (H,), "<zeros>", "<replicated>")
        param(h + "mlp.c_fc.weight", (H, 4 * H), normal, "<split 1>")
        param(h + "mlp.c_fc.bias", (4 * H,), "<zeros>", "<split 0>")
        param(h + "mlp.c_proj.weight", (4 * H, H), resid, "<split 0>")
        param(h + "mlp.c_proj.bias", (H,), "<zeros>", "<replicated>")
    param("ln_f.weight", (H,), "<ones>", "<replicated>")
    param("ln_f.bias", (H,), "<zeros>", "<replicated>")

    ids = "tensor<%dx%dxi32>" % (B, T)
    logits = f32(B, T, Vp // tp)
    w("  func.func @forward(%%tokens: %s, %%targets: %s) -> (tensor<f32>, "
      "tensor<i32>, %s) {" % (ids, ids, logits))
    n = [0]

    def v():
        n[0] += 1
        return "%%v%d" % n[0]

    def get(name, shape):
        r = v()
        w("    %s = tpc.get_param @%s : %s" % (r, name, f32(*shape)))
        return r

    def layernorm(x, prefix):
        g, b = get(prefix + ".weight", (H,)), get(prefix + ".bias", (H,))
        r = v()
        w("    %s = tpc.layernorm %s, %s, %s eps 1.0e-05 : %s, %s, %s"
          % (r, x, g, b, act, f32(H), f32(H)))
        return r

    def collective(op, x):
        r = v()
        w("    %s = tpc.%s %s group tp : %s" % (r, op, x, act))
        return r

    def linear(x, xdims, wname, wshape, bname=None):
        wt = get(wname, wshape)
        operands, types = [x, wt], [f32(B, T, *xdims), f32(*wshape)]
        if bname:
            operands.append(get(bname, (wshape[1],)))
            types.append(f32(wshape[1]))
        r = v()
        w("    %s = tpc.linear %s : %s" % (r, ", ".join(operands),
                                           ", ".join(types)))
        return r

    def row_parallel_out(x, bname):
        y = collective("g", x)
        b = get(bname, (H,))
        r = v()
        w("    %s = tpc.bias_add %s, %s : %s, %s" % (r, y, b, act, f32(H)))
        return r

    def add(x, y):
        r = v()
        w("    %s = tpc.add %s, %s : %s" % (r, x, y, act))
        return r

    wte = get("wte", (Vp // tp, H))
    e = v()
    w("    %s = tpc.embedding %s, %%tokens vocab_parallel : %s, %s"
      % (e, wte, f32(Vp // tp, H), ids))
    e = collective("g", e)
    wpe = get("wpe", (P, H))
    pos = v()
    w("    %s = tpc.position_embedding %s, %%tokens : %s, %s"
      % (pos, wpe, f32(P, H), ids))
    x = add(e, pos)
    Hl = H // tp
    for i in range(L):
        h = "h.%d." % i
        a = collective("f", layernorm(x, h + "ln_1"))
        qkv = linear(a, (H,), h + "attn.c_attn.weight", (H, 3 * Hl),
                     h + "attn.c_attn.bias")
        s = v()
        w("    %s = tpc.self_attention %s heads %d causal head_parallel : %s"
          % (s, qkv, heads // tp, f32(B, T, 3 * Hl)))
        o = linear(s, (Hl,), h + "attn.c_proj.weight", (Hl, H))
        x = add(x, row_parallel_out(o, h + "attn.c_proj.bias"))
        m = collective("f", layernorm(x, h + "ln_2"))
        u = linear(m, (H,), h + "mlp.c_fc.weight", (H, 4 * Hl),
                   h + "mlp.c_fc.bias")
        gu = v()
        w("    %s = tpc.gelu %s : %s" % (gu, u, f32(B, T, 4 * Hl)))
        o = linear(gu, (4 * Hl,), h + "mlp.c_proj.weight", (4 * Hl, H))
        x = add(x, row_parallel_out(o, h + "mlp.c_proj.bias"))
    nf = collective("f", layernorm(x, "ln_f"))
    lg = v()
    w("    %s = tpc.linear %s, %s transposed : %s, %s"
      % (lg, nf, wte, act, f32(Vp // tp, H)))
    w("    %%sum, %%count = tpc.vocab_parallel_cross_entropy %s, %%targets "
      "vocab %d ignore_index -1 : %s, %s" % (lg, V, logits, ids))
    w("    return %%sum, %%count, %s : tensor<f32>, tensor<i32>, %s"
      % (lg, logits))
    w("  }")
    w("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
