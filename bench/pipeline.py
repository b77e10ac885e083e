#!/usr/bin/python3
"""Pipeline parallelism: step time and bubble of pp = 2 against one rank.

A GPT-2 of 8 layers, hidden 256, 4 heads, vocabulary 512, sequence 128,
micro-batch 4 (fp32, AdamW), large enough that a stage's compute, not the
message between the stages (B x T x H floats, 512 KiB), makes the step, is
trained from the same initial weights on the same windows of seeded random
tokens
  - on one rank (tpc-run --threads 1, --grad-accum M), and
  - at pp = 2 (mpirun -np 2 tpc-run --threads 1) with --micro-batches M
    and each of the schedules 1f1b, zb-h1 and interleaved (2 virtual
    stages, so 4 chunks of 2 layers),
for M in 2, 4 and 8 micro-batches per step. The runs take turns --rounds
times, each M's four runs one after the other, and the warm-up steps of
each run are left out. For each schedule and M it prints the median step
time (tpc-run's JSON lines log: tokens / tokens_per_s) of one rank (T1) and
of pp 2 (Tpp), the speedup T1 / Tpp, the measured bubble 1 - T1 / (P Tpp)
(the pipeline's ideal is T1 / P on P ranks), the same of the fastest steps
of each, the bubble the compiler predicts (tpc-compile --report=json:
pipeline.bubble_fraction, the schedule simulated on its cost model) and the
range of the pp steps; then zb-h1's gain over 1f1b at each M (the ratio of
their step times, medians and fastest steps). The fastest steps matter on a
shared machine: a pipeline of P ranks on P cores loses a stage's core to
any other process, one rank only when every core is busy, so there the
medians weigh against the pipeline and the fastest steps are the nearest
to an idle machine. The first-step losses of every pp run and of the
one-rank run of the same M must agree (printed, not timed).

Builds nothing: it runs tpc-model, tpc-compile and tpc-run from
<build-dir>/bin (default: build/ at the repository root). --quick runs a
tiny model for a smoke test of the table's shape; --json FILE also writes
the figures as JSON.

Usage: /usr/bin/python3 bench/pipeline.py [--steps N] [--warmup W] [--rounds R]
                                         [--micro-batches 2,4,8] [--quick]
                                         [--json FILE] [--build-dir DIR]
                                         [--work-dir DIR]
"""
import argparse
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import benchutil  # noqa: E402
from benchutil import mpi_env, mpirun_of, tools_of, work_dir, steps_of  # noqa: E402

WHO = 'pipeline'
P = 2
FULL = {'layers': 8, 'hidden': 256, 'heads': 4, 'vocab': 512, 'T': 128, 'B': 4,
        'micro_batches': '2,4,8', 'steps': 5, 'rounds': 3}
QUICK = {'layers': 4, 'hidden': 32, 'heads': 2, 'vocab': 64, 'T': 16, 'B': 1,
         'micro_batches': '2,4', 'steps': 1, 'rounds': 1}
# (label, --schedule, --virtual-stages)
SCHEDULES = [('1f1b', '1f1b', 1), ('zb-h1', 'zb-h1', 1), ('interleaved, 2 virtual stages', 'interleaved', 2)]


def seconds(step):
    return step['tokens'] / step['tokens_per_s']


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--steps', type=int, default=None, help='timed steps per run (default 5; --quick 1)')
    ap.add_argument('--warmup', type=int, default=1, help='steps left out of each run')
    ap.add_argument('--rounds', type=int, default=None, help='turns of all runs (default 3; --quick 1)')
    ap.add_argument('--micro-batches', default=None,
                    help='comma-separated micro-batches per step, each a multiple of %d '
                    '(default 2,4,8; --quick 2,4)' % P)
    ap.add_argument('--quick', action='store_true', help='a tiny model: a smoke run')
    ap.add_argument('--json', default='', help='also write the figures to this file')
    ap.add_argument('--build-dir', default=os.environ.get('TPC_BUILD_DIR', os.path.join(ROOT, 'build')))
    ap.add_argument('--work-dir', default='')
    args = ap.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    steps = args.steps if args.steps is not None else cfg['steps']
    rounds = args.rounds if args.rounds is not None else cfg['rounds']
    try:
        ms = [int(m) for m in (args.micro_batches or cfg['micro_batches']).split(',')]
    except ValueError:
        sys.exit('%s: --micro-batches takes comma-separated integers' % WHO)
    if steps < 1 or args.warmup < 0 or rounds < 1:
        sys.exit('%s: --steps and --rounds must be >= 1, --warmup >= 0' % WHO)
    if not ms or any(m < P or m % P for m in ms):
        sys.exit('%s: every --micro-batches value must be a positive multiple of %d '
                 '(the interleaved schedule needs it)' % (WHO, P))
    tools = tools_of(args.build_dir, WHO)
    mpirun = mpirun_of(WHO, 'pp = %d' % P)
    work, log, path = work_dir(args.work_dir, 'tpc-pipeline-')
    env = mpi_env(work)

    def run(cmd, env=None):
        return benchutil.run(cmd, log, WHO, env)[0]

    total = args.warmup + steps
    run([sys.executable, os.path.join(ROOT, 'test', 'e2e', 'tpc_e2e.py'), 'tokens', path('train.bin'),
         str(max(100000, 4 * cfg['B'] * (cfg['T'] + 1))), str(cfg['vocab']), '--seed', '1'])
    run([tools['tpc-model'], 'gpt2', '--layers', str(cfg['layers']), '--hidden', str(cfg['hidden']),
         '--heads', str(cfg['heads']), '--vocab', str(cfg['vocab']), '--seq', str(cfg['T']),
         '-o', path('model.mlir')])
    shape = ['--micro-batch', str(cfg['B']), '--seq', str(cfg['T'])]
    run([tools['tpc-compile'], path('model.mlir')] + shape + ['-o', path('one.tpc')])
    predicted = {}
    for _, schedule, v in SCHEDULES:
        for m in ms:
            name = '%s-m%d' % (schedule, m)
            report = json.loads(run([tools['tpc-compile'], path('model.mlir')] + shape +
                                    ['--pp', str(P), '--virtual-stages', str(v), '--schedule', schedule,
                                     '--micro-batches', str(m), '--report=json',
                                     '-o', path(name + '.tpc')]))
            bubble = report.get('pipeline', {}).get('bubble_fraction')
            if bubble is None:
                sys.exit('%s: tpc-compile --report=json of %s has no pipeline.bubble_fraction'
                         % (WHO, name))
            predicted[name] = bubble

    def train(program, out, ranks, extra):
        cmd = [tools['tpc-run'], path(program), '--threads', '1', 'train', '--data', path('train.bin'),
               '--steps', str(total), '--log', out, '--plot', 'none'] + extra
        if ranks > 1:
            cmd = [mpirun, '--oversubscribe', '-np', str(ranks)] + cmd
        run(cmd, env)
        return steps_of(out, total, WHO)

    # Rounds over every run, so that a slow stretch of the shared machine
    # weighs on all of them alike.
    timed = {}
    first_loss = {}
    for r in range(rounds):
        for m in ms:
            s = train('one.tpc', path('one-m%d-%d.jsonl' % (m, r)), 1, ['--grad-accum', str(m)])
            first_loss.setdefault('one-m%d' % m, s[0]['loss'])
            timed.setdefault('one-m%d' % m, []).extend(seconds(x) for x in s[args.warmup:])
            for _, schedule, _ in SCHEDULES:
                name = '%s-m%d' % (schedule, m)
                s = train(name + '.tpc', path('%s-%d.jsonl' % (name, r)), P, [])
                first_loss.setdefault(name, s[0]['loss'])
                timed.setdefault(name, []).extend(seconds(x) for x in s[args.warmup:])

    # Medians: a shared machine's slow steps would swamp a mean.
    med = {name: statistics.median(t) for name, t in timed.items()}
    print('pipeline: GPT-2 %d layers, hidden %d, %d heads, vocabulary %d, seq %d, micro-batch %d, '
          'fp32, AdamW; pp %d (%d ranks x 1 thread) against 1 rank x 1 thread with --grad-accum M; '
          '%d timed step%s after %d warm-up step%s per run, %d round%s; medians'
          % (cfg['layers'], cfg['hidden'], cfg['heads'], cfg['vocab'], cfg['T'], cfg['B'], P, P,
             steps, '' if steps == 1 else 's', args.warmup, '' if args.warmup == 1 else 's',
             rounds, '' if rounds == 1 else 's'))
    print()
    print('| schedule | M | 1 rank (ms/step) | pp %d (ms/step) | speedup | bubble, measured | '
          'bubble, best steps | bubble, predicted | pp %d steps, min-max (ms) |' % (P, P))
    print('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
    rows = []
    for label, schedule, v in SCHEDULES:
        for m in ms:
            name = '%s-m%d' % (schedule, m)
            t1, tpp = med['one-m%d' % m], med[name]
            row = {'schedule': schedule, 'virtual_stages': v, 'micro_batches': m,
                   'one_rank_s': t1, 'pp_s': tpp, 'speedup': t1 / tpp,
                   'bubble_measured': 1 - t1 / (P * tpp),
                   'bubble_best_steps': 1 - min(timed['one-m%d' % m]) / (P * min(timed[name])),
                   'bubble_predicted': predicted[name],
                   'pp_min_s': min(timed[name]), 'pp_max_s': max(timed[name])}
            rows.append(row)
            print('| %s | %d | %.1f | %.1f | %.2fx | %.3f | %.3f | %.3f | %.1f-%.1f |'
                  % (label, m, 1e3 * t1, 1e3 * tpp, row['speedup'], row['bubble_measured'],
                     row['bubble_best_steps'], row['bubble_predicted'], 1e3 * row['pp_min_s'],
                     1e3 * row['pp_max_s']))
    print()
    gains = {m: med['1f1b-m%d' % m] / med['zb-h1-m%d' % m] for m in ms}
    best_gains = {m: min(timed['1f1b-m%d' % m]) / min(timed['zb-h1-m%d' % m]) for m in ms}
    print('zb-h1 against 1f1b, step-time ratio 1f1b / zb-h1 (above 1: zb-h1 is faster), medians '
          '(fastest steps): ' + ', '.join('M=%d %.3fx (%.3fx)' % (m, gains[m], best_gains[m]) for m in ms))
    print('1 rank steps, min-max (ms): ' +
          ', '.join('M=%d %.1f-%.1f' % (m, 1e3 * min(timed['one-m%d' % m]), 1e3 * max(timed['one-m%d' % m]))
                    for m in ms))
    worst = max(abs(first_loss['%s-m%d' % (schedule, m)] / first_loss['one-m%d' % m] - 1)
                for _, schedule, _ in SCHEDULES for m in ms)
    agree = worst <= 1e-5
    print('first-step losses: every pp %d run and the 1-rank run of its M %s (largest relative '
          'difference %.1e)' % (P, 'agree within 1e-5' if agree else 'DIFFER', worst))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'model': {k: cfg[k] for k in ('layers', 'hidden', 'heads', 'vocab', 'T', 'B')},
                       'pp': P, 'steps': steps, 'warmup': args.warmup, 'rounds': rounds,
                       'rows': rows, 'zb_h1_gain': {str(m): g for m, g in gains.items()},
                       'zb_h1_gain_best_steps': {str(m): g for m, g in best_gains.items()},
                       'largest_first_loss_difference': worst}, f, indent=1)
    if not agree:
        sys.exit(1)


if __name__ == '__main__':
    main(sys.argv[1:])
