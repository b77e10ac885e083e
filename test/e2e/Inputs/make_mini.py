#!/usr/bin/env python3
"""Writes mini_tp{1,2,4}.mlir: one transformer layer partitioned by hand, so
that the executor's tensor parallelism is tested apart from the compiler's
partition pass. Run from this directory after changing it."""


def module_attrs(tp, dp):
    attrs = (['tpc.tp = %d : i64' % tp] if tp > 1 else []) + \
        (['tpc.dp = %d : i64' % dp] if dp > 1 else [])
    return ' attributes {%s}' % ', '.join(attrs) if attrs else ''


def module(tp, dp=1):
    # A global batch of 2 sequences: dp ranks hold 2 / dp each.
    V, Vp, H, NH, B, T = 67, (67 if tp == 1 else 128 * tp), 16, 4, 2 // dp, 8
    Vl = Vp // tp

    def loc(n):
        return n // tp

    def t(*s):
        return 'tensor<%sxf32>' % 'x'.join(map(str, s))

    ids = 'tensor<%dx%dxi32>' % (B, T)
    act = t(B, T, H)
    params, body = [], []

    def p(name, shape, init, layout=None, extra=''):
        s = '  tpc.param @%s : %s init %s' % (name, t(*shape), init)
        if layout and tp > 1:
            s += ' layout <%s>' % layout
        if extra and tp > 1:
            s += ' ' + extra
        params.append(s)

    def o(s):
        body.append('    ' + s)

    def get(n, *s):
        v = '%' + n.replace('.', '_')
        o('%s = tpc.get_param @%s : %s' % (v, n, t(*s)))
        return v

    N = '<normal, std = 2.000000e-02>'
    p('wte', [Vp, H], N, 'split 0', '{vocab_size = %d : i64}' % V)
    p('wpe', [T, H], N)
    p('h.0.ln_1.weight', [H], '<ones>')
    p('h.0.ln_1.bias', [H], N)
    p('h.0.attn.c_attn.weight', [H, 3 * H], N, 'split 1 blocks 3')
    p('h.0.attn.c_attn.bias', [3 * H], N, 'split 0 blocks 3')
    p('h.0.attn.c_proj.weight', [H, H], N, 'split 0')
    p('h.0.attn.c_proj.bias', [H], N)
    p('h.0.mlp.c_fc.weight', [H, 4 * H], N, 'split 1')
    p('h.0.mlp.c_fc.bias', [4 * H], N, 'split 0')
    p('h.0.mlp.c_proj.weight', [4 * H, H], N, 'split 0')
    p('h.0.mlp.c_proj.bias', [H], N)
    p('ln_f.weight', [H], '<ones>')
    p('ln_f.bias', [H], '<zeros>')

    o('%%wte = tpc.get_param @wte : %s' % t(Vl, H))
    if tp > 1:
        o('%%e0 = tpc.embedding %%wte, %%tokens vocab_parallel : %s, %s' % (t(Vl, H), ids))
        o('%%e = tpc.g %%e0 group tp : %s' % act)
    else:
        o('%%e = tpc.embedding %%wte, %%tokens : %s, %s' % (t(Vl, H), ids))
    wpe = get('wpe', T, H)
    o('%%pe = tpc.position_embedding %s, %%tokens : %s, %s' % (wpe, t(T, H), ids))
    o('%%x0 = tpc.add %%e, %%pe : %s' % act)
    g1, b1 = get('h.0.ln_1.weight', H), get('h.0.ln_1.bias', H)
    o('%%a = tpc.layernorm %%x0, %s, %s eps 1.000000e-05 : %s, %s, %s' % (g1, b1, act, t(H), t(H)))
    wa, ba = get('h.0.attn.c_attn.weight', H, loc(3 * H)), get('h.0.attn.c_attn.bias', loc(3 * H))
    src = '%a'
    if tp > 1:
        o('%%af = tpc.f %%a group tp : %s' % act)
        src = '%af'
    o('%%qkv = tpc.linear %s, %s, %s : %s, %s, %s' % (src, wa, ba, act, t(H, loc(3 * H)), t(loc(3 * H))))
    o('%%s = tpc.self_attention %%qkv heads %d causal%s : %s' %
      (loc(NH), ' head_parallel' if tp > 1 else '', t(B, T, loc(3 * H))))
    wp, bp = get('h.0.attn.c_proj.weight', loc(H), H), get('h.0.attn.c_proj.bias', H)
    if tp > 1:
        o('%%pr = tpc.linear %%s, %s : %s, %s' % (wp, t(B, T, loc(H)), t(loc(H), H)))
        o('%%pg = tpc.g %%pr group tp : %s' % act)
        o('%%po = tpc.bias_add %%pg, %s : %s, %s' % (bp, act, t(H)))
    else:
        o('%%po = tpc.linear %%s, %s, %s : %s, %s, %s' % (wp, bp, act, t(H, H), t(H)))
    o('%%x1 = tpc.add %%x0, %%po : %s' % act)
    src = '%x1'
    if tp > 1:
        o('%%x1f = tpc.f %%x1 group tp : %s' % act)
        src = '%x1f'
    wf, bf = get('h.0.mlp.c_fc.weight', H, loc(4 * H)), get('h.0.mlp.c_fc.bias', loc(4 * H))
    o('%%u = tpc.linear %s, %s, %s : %s, %s, %s' % (src, wf, bf, act, t(H, loc(4 * H)), t(loc(4 * H))))
    o('%%ug = tpc.gelu %%u : %s' % t(B, T, loc(4 * H)))
    wc, bc = get('h.0.mlp.c_proj.weight', loc(4 * H), H), get('h.0.mlp.c_proj.bias', H)
    if tp > 1:
        o('%%v0 = tpc.linear %%ug, %s : %s, %s' % (wc, t(B, T, loc(4 * H)), t(loc(4 * H), H)))
        o('%%v1 = tpc.g %%v0 group tp : %s' % act)
        o('%%v = tpc.bias_add %%v1, %s : %s, %s' % (bc, act, t(H)))
    else:
        o('%%v = tpc.linear %%ug, %s, %s : %s, %s, %s' % (wc, bc, t(B, T, 4 * H), t(4 * H, H), t(H)))
    o('%%x2 = tpc.add %%x1, %%v : %s' % act)
    o('%%x3 = tpc.scale %%x2 by 1.500000e+00 : %s' % act)
    gf, bff = get('ln_f.weight', H), get('ln_f.bias', H)
    o('%%n = tpc.layernorm %%x3, %s, %s eps 1.000000e-05 : %s, %s, %s' % (gf, bff, act, t(H), t(H)))
    src = '%n'
    if tp > 1:
        o('%%nf = tpc.f %%n group tp : %s' % act)
        src = '%nf'
    o('%%l = tpc.linear %s, %%wte transposed : %s, %s' % (src, act, t(Vl, H)))
    if tp > 1:
        o('%%sum, %%cnt = tpc.vocab_parallel_cross_entropy %%l, %%targets vocab %d ignore_index -1 : %s, %s' %
          (V, t(B, T, Vl), ids))
    else:
        o('%%sum, %%cnt = tpc.cross_entropy %%l, %%targets ignore_index -1 : %s, %s' % (t(B, T, Vl), ids))
    o('return %%sum, %%cnt, %%l : tensor<f32>, tensor<i32>, %s' % t(B, T, Vl))
    head = ['// Written by make_mini.py: one transformer layer partitioned by hand for',
            '// tp = %d (vocabulary-parallel embedding and loss over a vocabulary that tp' % tp,
            '// does not divide, column- and row-parallel linears, f, g, bias_add,',
            '// head-parallel attention). Biases are random so that a misplaced bias shows.',
            'module%s {' % module_attrs(tp, dp)]
    fn = ['  func.func @forward(%%tokens: %s, %%targets: %s) -> (tensor<f32>, tensor<i32>, %s) {' %
          (ids, ids, t(B, T, Vl))]
    return '\n'.join(head + params + fn + body + ['  }', '}']) + '\n'


if __name__ == '__main__':
    for tp in (1, 2, 4):
        with open('mini_tp%d.mlir' % tp, 'w') as f:
            f.write(module(tp))
    for tp in (1, 2):
        with open('mini_tp%d_dp2.mlir' % tp, 'w') as f:
            f.write(module(tp, dp=2))
