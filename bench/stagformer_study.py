#!/usr/bin/python3
"""The StagFormer paper's ablations at small scale, on the Brown corpus.

Every model trains on the same byte-level token stream (tpc-data encode
--tokenizer bytes: vocabulary 256, so the compute goes into the layers) with
the same token budget, batch, schedule and seed:

  GPT-2 of L layers (twice, with seeds 1 and 2: the noise level)
  GPT-2 of 2L layers
  StagFormer p = 2, separate weights (L layers per stack) and shared weights
  the same two with cross-attention windows scaled from the paper's
  512 / 128 / 1 of 1,280 positions to T: round(T / 2.5), round(T / 10), 1
  StagFormer p = 3 and p = 4, separate weights, 2L / p layers per stack,
  with the alpha combination of the stacks and without it (--no-alpha)

as the paper splits one depth into p stacks. For each it reports the
parameters, the validation loss and perplexity (per byte) after the budget
on the first --eval-batches x 4 batches of the validation split, and the
decoding latency, measured after all the training: tpc-run generate, batch
1, one thread per rank, greedy, 128 new tokens after a 16-byte prompt, ms
per new token after the first, the median of 7 rounds over all the
programs, sequential (one rank) and, for StagFormers,
stack-parallel (tpc-compile --stack-parallel, p ranks; marked * where p
exceeds the machine's cores, so that ranks share a core). It writes the
table (study.md), the validation curves (val_curves.png) and every log into
the work directory. --latency-only skips the training and times the
models' initial weights (the latency does not depend on them).

Builds nothing: it runs tpc-model, tpc-compile, tpc-run and tpc-data from
<build-dir>/bin (default: build/ at the repository root). The corpus is
the Brown text that scripts/fetch-data.sh writes (~/.cache/tpc/data). The
default budget is 2^20 tokens per model, L = 6, H = 128, T = 128, B = 16:
on an idle 2-core machine the 6-layer baseline trains in about 90 s and a
2-stack StagFormer takes about 2.6 times as long, about an hour for the
whole study by that estimate. --quick trains tiny models on a few thousand
tokens: a smoke test of the table's shape.

Usage: /usr/bin/python3 bench/stagformer_study.py [--tokens N] [--work DIR]
                                                  [--quick] [--latency-only]
"""
import argparse
import json
import math
import os
import re
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import benchutil  # noqa: E402
from benchutil import mpi_env, mpirun_of, tools_of, work_dir  # noqa: E402

WHO = 'stagformer_study'
# Decoding runs per latency: this machine's figures jump between runs
# (shared cores), so the median of several.
REPEATS = 7
FULL = {'layers': 6, 'hidden': 128, 'heads': 4, 'seq': 128, 'batch': 16,
        'tokens': 1 << 20, 'evals': 8, 'eval_batches': 16, 'decode_tokens': 128,
        'lr': 2e-3}
QUICK = {'layers': 6, 'hidden': 32, 'heads': 2, 'seq': 32, 'batch': 4,
         'tokens': 8 * 4 * 32, 'evals': 2, 'eval_batches': 2, 'decode_tokens': 8,
         'lr': 2e-3}


def run(cmd, log):
    return benchutil.run(cmd, log, WHO)


def models(cfg):
    """(name, tpc-model arguments, tpc-run seed) of every model."""
    L, T = cfg['layers'], cfg['seq']
    common = ['--hidden', str(cfg['hidden']), '--heads', str(cfg['heads']),
              '--vocab', '256', '--seq', str(T)]
    windows = [max(1, round(T / 2.5)), max(1, round(T / 10)), 1]
    out = [('GPT-2, %d layers' % L, ['gpt2', '--layers', str(L)], 1),
           ('GPT-2, %d layers, seed 2' % L, ['gpt2', '--layers', str(L)], 2),
           ('GPT-2, %d layers' % (2 * L), ['gpt2', '--layers', str(2 * L)], 1)]
    for shared in (False, True):
        kind = 'shared' if shared else 'separate'
        flags = ['stagformer', '--stacks', '2', '--layers', str(L)]
        flags += ['--shared-weights'] if shared else []
        out.append(('StagFormer p=2, %s' % kind, flags, 1))
        for w in windows:
            out.append(('StagFormer p=2, %s, window %d' % (kind, w),
                        flags + ['--window', str(w)], 1))
    for p in (3, 4):
        flags = ['stagformer', '--stacks', str(p), '--layers', str(2 * L // p)]
        out.append(('StagFormer p=%d, separate, alpha' % p, flags, 1))
        out.append(('StagFormer p=%d, separate, no alpha' % p, flags + ['--no-alpha'], 1))
    return [(name, flags + common, seed) for name, flags, seed in out]


def slug(name):
    return ''.join(c if c.isalnum() else '-' for c in name.lower()).strip('-')


def parameters(tpc_run, program, log):
    out, _ = run([tpc_run, program, 'info'], log)
    for line in out.splitlines():
        if line.startswith('parameters'):
            return int(line.split()[3])
    sys.exit('%s: tpc-run info printed no parameter count:\n%s' % (WHO, out))


def decode_ms(tools, program, checkpoint, prompt, tokens, log, ranks=1, env=None):
    """ms per new token after the first of one greedy run on `ranks` ranks of
    one thread each (tpc-run generate's 'then X ms per token': the prompt and
    the first token, which carry the one-time costs of a process's first
    steps, are left out); the initial weights without a checkpoint."""
    cmd = [tools['tpc-run'], program, '--threads', '1', 'generate',
           '--prompt-ids', ','.join(map(str, prompt)),
           '--tokens', str(tokens), '--temperature', '0']
    if checkpoint:
        cmd += ['--load', checkpoint]
    if ranks > 1:
        cmd = [mpirun_of(WHO, 'stack-parallel decoding'), '--oversubscribe',
               '-np', str(ranks)] + cmd
    _, err = benchutil.run(cmd, log, WHO, env)
    m = re.search(r'then ([0-9.]+) ms per token', err)
    if not m:
        sys.exit('%s: tpc-run generate printed no ms per token:\n%s' % (WHO, err))
    return float(m.group(1))


def plot(curves, path, title):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9, 5.5))
    for name, points in curves:
        if points:
            xs, ys = zip(*points)
            ax.plot(xs, ys, marker='o', markersize=3, label=name)
    ax.set_xlabel('training tokens')
    ax.set_ylabel('validation loss (nats per byte)')
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--work', help='directory for the models, logs and results '
                    '(default: a new temporary one)')
    ap.add_argument('--text', default=os.path.join(
        os.environ.get('TPC_CACHE', os.path.expanduser('~/.cache/tpc')), 'data', 'brown.txt'),
        help='plain text to train on (default: the Brown corpus of scripts/fetch-data.sh)')
    ap.add_argument('--tokens', type=int, help='training tokens per model')
    ap.add_argument('--threads', type=int, default=os.cpu_count() or 1)
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--latency-only', action='store_true',
                    help='no training: time decoding of the initial weights only')
    args = ap.parse_args()
    cfg = dict(QUICK if args.quick else FULL)
    if args.tokens:
        cfg['tokens'] = args.tokens
    tools = tools_of(args.build_dir, WHO)
    tpc_data = os.path.join(args.build_dir, 'bin', 'tpc-data')
    if not os.access(tpc_data, os.X_OK):
        sys.exit('%s: %s not found; build it first' % (WHO, tpc_data))
    if not os.path.isfile(args.text):
        sys.exit('%s: %s not found; run scripts/fetch-data.sh first (or give --text)'
                 % (WHO, args.text))
    work, log, at = work_dir(args.work, 'tpc-stagformer-study-')
    start = time.time()

    run([tpc_data, 'encode', '--tokenizer', 'bytes', '--val-fraction', '0.1',
         '-o', at('bytes'), args.text], log)
    train, val = at('bytes_train.bin'), at('bytes_val.bin')
    with open(val, 'rb') as f:
        f.seek(1024)
        prompt = list(f.read(32))[0::2][:16]  # uint16 little-endian bytes

    step_tokens = cfg['batch'] * cfg['seq']
    steps = max(2, cfg['tokens'] // step_tokens)
    every = max(1, steps // cfg['evals'])
    rows, curves = [], []
    for name, flags, seed in models(cfg):
        s = slug(name)
        t0 = time.time()
        run([tools['tpc-model']] + flags + ['-o', at(s + '.mlir')], log)
        run([tools['tpc-compile'], at(s + '.mlir'), '--micro-batch', str(cfg['batch']),
             '--seq', str(cfg['seq']), '-o', at(s + '.tpc')], log)
        stacks = int(flags[flags.index('--stacks') + 1]) if '--stacks' in flags else 0
        if stacks:
            run([tools['tpc-compile'], at(s + '.mlir'), '--seq', str(cfg['seq']),
                 '--stack-parallel', '-o', at(s + '.sp.tpc')], log)
        params = parameters(tools['tpc-run'], at(s + '.tpc'), log)
        if args.latency_only:
            rows.append([name, params, None, s, stacks])
            continue
        run([tools['tpc-run'], at(s + '.tpc'), '--threads', str(args.threads),
             '--seed', str(seed), 'train', '--data', train, '--val', val,
             '--eval-every', str(every), '--eval-batches', str(cfg['eval_batches']),
             '--steps', str(steps), '--lr', str(cfg['lr']), '--min-lr', str(cfg['lr'] / 10),
             '--warmup', str(max(1, steps // 20)), '--log', at(s + '.jsonl'),
             '--plot', 'none', '--progress', 'lines', '--save', at(s + '.st')], log)
        out, _ = run([tools['tpc-run'], at(s + '.tpc'), '--threads', str(args.threads),
                      'eval', '--data', val, '--load', at(s + '.st'),
                      '--max-batches', str(4 * cfg['eval_batches']), '--json'], log)
        loss = json.loads(out.strip().splitlines()[-1])['loss']
        with open(at(s + '.jsonl')) as f:
            points = [(r['step'] * step_tokens, r['val_loss'])
                      for r in map(json.loads, f) if 'val_loss' in r]
        points.append((steps * step_tokens, loss))
        curves.append((name, points))
        rows.append([name, params, loss, s, stacks])
        print('%s: %s: val loss %.4f, %.0f s'
              % (WHO, name, loss, time.time() - t0), file=sys.stderr, flush=True)
    # Latencies after all training, in one stretch of the run: REPEATS
    # rounds over every program, so that a slow stretch of the machine
    # weighs on all of them alike; the median of each.
    cores = os.cpu_count() or 1
    env = mpi_env(work)
    runs = []  # (row, column, program, ranks)
    for row in rows:
        s, stacks = row[3], row[4]
        runs.append((row, 3, at(s + '.tpc'), 1, None if args.latency_only else at(s + '.st')))
        if stacks:
            runs.append((row, 4, at(s + '.sp.tpc'), stacks,
                         None if args.latency_only else at(s + '.st')))
    times = {id(r): [] for r in runs}
    for _ in range(REPEATS):
        for r in runs:
            row, _, program, ranks, checkpoint = r
            times[id(r)].append(decode_ms(tools, program, checkpoint, prompt,
                                          cfg['decode_tokens'], log, ranks, env))
    for row in rows:
        row[3], stacks, row[4] = None, row[4], ''
        row.append(stacks)
    for r in runs:
        row, column, _, ranks, _ = r
        ms = '%.3f' % statistics.median(times[id(r)])
        row[column] = ms + (' *' if column == 4 and ranks > cores else '')

    title = ('%s as bytes; L = %d, H = %d, T = %d, B = %d; %s tokens per model'
             % (os.path.basename(args.text), cfg['layers'], cfg['hidden'], cfg['seq'],
                cfg['batch'], '{:,}'.format(steps * step_tokens)))
    lines = ['%s: %s, AdamW lr %g (cosine to %g), %d steps%s; %.0f s' %
             (WHO, title, cfg['lr'], cfg['lr'] / 10, steps,
              ' (latency only: no training)' if args.latency_only else '',
              time.time() - start), '',
             '| model | parameters | val loss | val perplexity | decode ms/token, sequential '
             '| decode ms/token, stack-parallel |',
             '|---|---:|---:|---:|---:|---:|']
    for name, params, loss, ms, parallel, _ in rows:
        lines.append('| %s | %s | %s | %s | %s | %s |'
                     % (name, '{:,}'.format(params), '-' if loss is None else '%.4f' % loss,
                        '-' if loss is None else '%.3f' % math.exp(loss), ms, parallel or '-'))
    lines += ['', 'decoding: batch 1, one thread per rank; stack-parallel on p ranks '
              '(* more ranks than the %d cores)' % cores]
    if not args.latency_only:
        base, seed2 = rows[0][2], rows[1][2]
        lines += ['', 'seed noise: |val loss(seed 1) - val loss(seed 2)| = %.4f'
                  % abs(base - seed2)]
    text = '\n'.join(lines)
    print(text)
    with open(at('study.md'), 'w') as f:
        f.write(text + '\n')
    if args.latency_only:
        print('%s: wrote %s' % (WHO, at('study.md')), file=sys.stderr)
        return
    plot(curves, at('val_curves.png'), title)
    print('%s: wrote %s and %s' % (WHO, at('study.md'), at('val_curves.png')), file=sys.stderr)


if __name__ == '__main__':
    main()
