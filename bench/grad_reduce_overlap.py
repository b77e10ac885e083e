#!/usr/bin/python3
"""Overlapped gradient reduction: step time and exposed DP communication.

GPT-2 124M (tpc-model gpt2 --preset 124m) at dp = 2 (mpirun -np 2, one
thread per rank), micro-batch B = 1, T = 64, so that a step's compute is
small next to its gradient reduction (124M gradients each step), trained
with AdamW from the same initial weights on the same random tokens, four
ways: the gradient all-reduce after the backward (the default) and started
during it (tpc-run train --overlap-grad-reduce), each without and with the
distributed optimizer (tpc-compile --distributed-optimizer: reduce-scatter,
then all-gather of the parameters). The runs take turns, --rounds times,
and the warm-up steps of each run are left out. For each it prints the
median step time (tpc-run's JSON lines log: tokens / tokens_per_s) and the median
"dp_comm_s", the seconds apply_step spent in DP communication (the bucket
reductions or waiting for the started ones, and the distributed optimizer's
parameter all-gathers): what the step did not hide.
The losses of the four runs agree (printed, not timed).

Builds nothing: it runs tpc-model, tpc-compile and tpc-run from
<build-dir>/bin (default: build/ at the repository root). --quick runs a
tiny model for a smoke test of the table's shape.

Usage: /usr/bin/python3 bench/grad_reduce_overlap.py [--steps N] [--warmup W]
                                                    [--rounds R] [--quick]
"""
import argparse
import json
import os
import random
import statistics
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import benchutil  # noqa: E402
from benchutil import mpi_env, mpirun_of, tools_of, work_dir, steps_of  # noqa: E402

FULL = {'model': ['--preset', '124m'], 'vocab': 50257, 'B': 1, 'T': 64,
        'name': 'GPT-2 124M'}
QUICK = {'model': ['--layers', '2', '--hidden', '64', '--heads', '4', '--vocab', '512',
                   '--seq', '64'], 'vocab': 512, 'B': 1, 'T': 16,
         'name': 'GPT-2 2x64, vocabulary 512'}
RUNS = [('all-reduce after the backward', 'plain', False),
        ('all-reduce overlapped', 'plain', True),
        ('distributed optimizer, after', 'zero', False),
        ('distributed optimizer, overlapped', 'zero', True)]


def run(cmd, log, env=None):
    return benchutil.run(cmd, log, 'grad_reduce_overlap', env)[0]


def write_tokens(path, count, vocab, seed):
    rng = random.Random(seed)
    tokens = [rng.randrange(vocab) for _ in range(count)]
    with open(path, 'wb') as f:
        f.write(struct.pack('<256i', *([20240520, 1, count] + [0] * 253)))
        f.write(struct.pack('<%dH' % count, *tokens))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--steps', type=int, default=None, help='timed steps per run (default 6; --quick 2)')
    ap.add_argument('--warmup', type=int, default=2, help='steps left out of each run')
    ap.add_argument('--rounds', type=int, default=None, help='turns of the four runs (default 2; --quick 1)')
    ap.add_argument('--quick', action='store_true', help='a tiny model: a smoke run')
    ap.add_argument('--build-dir', default=os.environ.get('TPC_BUILD_DIR', os.path.join(ROOT, 'build')))
    ap.add_argument('--work-dir', default='')
    args = ap.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    steps = args.steps if args.steps is not None else (2 if args.quick else 6)
    rounds = args.rounds if args.rounds is not None else (1 if args.quick else 2)
    if steps < 1 or args.warmup < 0 or rounds < 1:
        sys.exit('grad_reduce_overlap: --steps and --rounds must be >= 1, --warmup >= 0')
    tools = tools_of(args.build_dir, 'grad_reduce_overlap')
    mpirun = mpirun_of('grad_reduce_overlap', 'dp = 2')

    work, log, path = work_dir(args.work_dir, 'tpc-overlap-')
    total = args.warmup + steps
    write_tokens(path('train.bin'), 2 * cfg['B'] * (cfg['T'] + 1) * (total + 1) + 1,
                 cfg['vocab'], 1)
    run([tools['tpc-model'], 'gpt2'] + cfg['model'] + ['-o', path('model.mlir')], log)
    for kind in ('plain', 'zero'):
        run([tools['tpc-compile'], path('model.mlir'), '--dp', '2', '--micro-batch', str(cfg['B']),
             '--seq', str(cfg['T'])] + (['--distributed-optimizer'] if kind == 'zero' else []) +
            ['-o', path(kind + '.tpc')], log)
    env = mpi_env(work)

    timed = {label: [] for label, _, _ in RUNS}
    losses = {}
    for r in range(rounds):
        for label, kind, overlap in RUNS:
            out = path('%s-%d-%d.jsonl' % (kind, overlap, r))
            run([mpirun, '--oversubscribe', '-np', '2', tools['tpc-run'], path(kind + '.tpc'),
                 '--threads', '1', 'train', '--data', path('train.bin'), '--steps', str(total),
                 '--lr', '1e-4', '--warmup', '1', '--log', out, '--plot', 'none'] +
                (['--overlap-grad-reduce'] if overlap else []), log, env)
            s = steps_of(out)
            if len(s) != total or any('dp_comm_s' not in x for x in s):
                sys.exit('grad_reduce_overlap: %s: expected %d steps with dp_comm_s' % (out, total))
            losses.setdefault(label, [x['loss'] for x in s])
            timed[label] += s[args.warmup:]

    print('grad_reduce_overlap: %s, dp = 2 (2 ranks x 1 thread), micro-batch %d, seq %d, '
          'AdamW; %d timed steps after %d warm-up steps per run, %d round%s'
          % (cfg['name'], cfg['B'], cfg['T'], steps, args.warmup, rounds, '' if rounds == 1 else 's'))
    print()
    print('| run (medians) | ms/step | exposed DP communication (ms/step) | share of the step | buckets started in the backward |')
    print('|---|---:|---:|---:|---:|')
    ms = {}
    for label, _, _ in RUNS:
        s = timed[label]
        # Medians: a shared machine's slow steps would swamp a mean.
        step = statistics.median(x['tokens'] / x['tokens_per_s'] for x in s) * 1e3
        comm = statistics.median(x['dp_comm_s'] for x in s) * 1e3
        overlapped = sum(x['dp_overlapped'] for x in s) / len(s)
        ms[label] = (step, comm)
        print('| %s | %.1f | %.1f | %.1f%% | %.1f |' % (label, step, comm, 100 * comm / step, overlapped))
    print()
    for after, overlapped in ((RUNS[0][0], RUNS[1][0]), (RUNS[2][0], RUNS[3][0])):
        print('%s / %s: step time %.3fx, exposed communication %.3fx'
              % (overlapped, after, ms[overlapped][0] / ms[after][0],
                 ms[overlapped][1] / max(ms[after][1], 1e-9)))
    first = [losses[label][0] for label, _, _ in RUNS]
    print('first-step losses: ' + ', '.join('%.7f' % l for l in first))
    if max(first) - min(first) > 1e-5 * abs(first[0]):
        sys.exit('grad_reduce_overlap: the runs disagree on the first loss')


if __name__ == '__main__':
    main(sys.argv[1:])
