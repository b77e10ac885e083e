#!/usr/bin/python3
"""Decoding benchmark: tpc-run generate against a PyTorch reference with its own KV cache.

GPT-2 124M (tpc-model gpt2 --preset 124m) with the same initial weights
(tpc-run init --save) decodes greedily --tokens new tokens after a prompt
of --prompt tokens (the first tokens of the Brown corpus when
scripts/fetch-data.sh has prepared it, else seeded random ids), batch 1:
  - tpc tp=1: tpc-run generate --threads N (one process),
  - tpc tp=2: mpirun -np 2 tpc-run generate --threads N/2,
  - PyTorch:  bench/reference_gpt2.py generate --threads N (Hugging Face's
              past_key_values scheme: keys and values of earlier positions
              are kept, each step runs one position).
Both time every decode step, the prompt's and the new tokens', and the
table gives decode steps per second, ms per step and the peak resident
memory of each process (tpc-run prints its ranks' largest; the reference's
comes from the operating system). --rounds rounds (default 3) run the
three once each, and each one's median time is kept: single runs on a
machine with shared cores vary by up to twice, and rounds let a slow
stretch weigh on all three alike. It also says whether the greedy ids of
the runs agree: fp32 round-off in a different summation order may flip a
near tie of a random model, which is reported, not hidden.

Builds nothing: it runs tpc-model, tpc-compile and tpc-run from
<build-dir>/bin (default: build/ at the repository root).

Usage: /usr/bin/python3 bench/decode.py [--tokens N] [--prompt N] [--threads N]
                                      [--rounds N] [--quick] [--build-dir DIR]
"""
import argparse
import json
import os
import re
import shutil
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import reference_gpt2 as ref  # noqa: E402
import benchutil  # noqa: E402
from benchutil import mpi_env, mpirun_of, tools_of, work_dir  # noqa: E402

FULL = {'model': ['--preset', '124m'], 'heads': 12, 'vocab': 50257, 'name': 'GPT-2 124M'}
QUICK = {'model': ['--layers', '2', '--hidden', '64', '--heads', '4', '--vocab', '512',
                   '--seq', '64'], 'heads': 4, 'vocab': 512, 'name': 'GPT-2 2x64, vocabulary 512'}


def run_measured(cmd, log, env=None):
    return benchutil.run(cmd, log, 'decode', env)


def tpc_rate(err):
    m = re.search(r'(\d+) decode steps in ([0-9.]+) s \(([0-9.]+) tokens/s', err)
    if not m:
        sys.exit('decode: tpc-run generate printed no rate:\n' + err)
    steps, seconds = int(m.group(1)), float(m.group(2))
    rss = re.search(r'peak resident memory ([0-9.]+) MiB', err)
    return {'steps': steps, 'seconds': seconds, 'rss': float(rss.group(1)) if rss else None}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--tokens', type=int, default=None, help='new tokens (default 128; --quick 16)')
    ap.add_argument('--prompt', type=int, default=16, help='prompt tokens')
    ap.add_argument('--threads', type=int, default=2,
                    help='threads of tpc tp=1 and of PyTorch; tp=2 splits them over 2 ranks')
    ap.add_argument('--quick', action='store_true', help='a tiny model: a smoke run')
    ap.add_argument('--rounds', type=int, default=None,
                    help='rounds over the three runs; the median time of each (default 3; '
                         '--quick 1)')
    ap.add_argument('--build-dir', default=os.environ.get('TPC_BUILD_DIR', os.path.join(ROOT, 'build')))
    ap.add_argument('--work-dir', default='')
    args = ap.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    tokens = args.tokens if args.tokens is not None else (16 if args.quick else 128)
    threads = args.threads
    rounds = args.rounds if args.rounds is not None else (1 if args.quick else 3)
    if rounds < 1:
        sys.exit('decode: --rounds must be >= 1')
    if tokens < 1 or args.prompt < 1 or threads < 2 or threads % 2:
        sys.exit('decode: --tokens and --prompt must be >= 1, --threads even and >= 2')
    tools = tools_of(args.build_dir, 'decode')
    mpirun = mpirun_of('decode', 'tp=2')

    work, log, path = work_dir(args.work_dir, 'tpc-decode-')
    positions = args.prompt + tokens
    run_measured([tools['tpc-model'], 'gpt2'] + cfg['model'] + ['-o', path('model.mlir')], log)
    for tp in (1, 2):
        run_measured([tools['tpc-compile'], path('model.mlir'), '--tp', str(tp), '--micro-batch',
                      '1', '--seq', str(positions), '-o', path('tp%d.tpc' % tp)], log)
    run_measured([tools['tpc-run'], path('tp1.tpc'), 'init', '--save', path('init.safetensors')],
                 log)

    cache = os.environ.get('TPC_CACHE', os.path.join(os.path.expanduser('~'), '.cache', 'tpc'))
    brown = os.path.join(cache, 'data', 'brown_train.bin')
    if not args.quick and os.path.exists(brown):
        prompt = [int(t) for t in ref.read_tokens(brown)[:args.prompt]]
        prompt_note = 'the first %d tokens of the Brown corpus' % args.prompt
    else:
        import numpy as np
        prompt = [int(t) for t in np.random.default_rng(1).integers(0, cfg['vocab'], args.prompt)]
        prompt_note = '%d random ids (seed 1)' % args.prompt
    ids = ','.join(str(t) for t in prompt)
    env = mpi_env(work)
    gen = ['generate', '--load', path('init.safetensors'), '--prompt-ids', ids, '--tokens',
           str(tokens), '--temperature', '0']

    # Rounds over the three runs, so that a slow stretch of the machine
    # weighs on all of them alike; each run's median time is kept.
    import torch
    per_rank = '%d thread%s' % (threads // 2, '' if threads == 2 else 's')
    runs = [
        ('tpc tp=1 (%d threads)' % threads,
         [tools['tpc-run'], path('tp1.tpc'), '--threads', str(threads)] + gen),
        ('tpc tp=2 (2 ranks x %s)' % per_rank,
         [mpirun, '--oversubscribe', '-np', '2', tools['tpc-run'], path('tp2.tpc'),
          '--threads', str(threads // 2)] + gen),
        ('PyTorch %s (%d threads)' % (torch.__version__, threads),
         ['/usr/bin/python3', os.path.join(HERE, 'reference_gpt2.py'), 'generate', '--load',
          path('init.safetensors'), '--heads', str(cfg['heads']), '--prompt-ids', ids,
          '--tokens', str(tokens), '--threads', str(threads)]),
    ]
    measured = {name: [] for name, _ in runs}
    ids_of = {}
    for _ in range(rounds):
        for name, cmd in runs:
            out, err = run_measured(cmd, log, env)
            if name.startswith('PyTorch'):
                r = json.loads(out.strip().splitlines()[-1])
                m = {'steps': r['steps'], 'seconds': r['seconds'], 'rss': r['peak_rss_mib']}
                ids_of[name] = [str(t) for t in r['ids']]
            else:
                m = tpc_rate(err)
                ids_of[name] = out.split()
            measured[name].append(m)
    rows = []
    for name, _ in runs:
        ms = measured[name]
        rss = [m['rss'] for m in ms if m['rss'] is not None]
        rows.append((name, {'steps': ms[0]['steps'],
                            'seconds': statistics.median(m['seconds'] for m in ms),
                            'rss': max(rss) if rss else None}, ids_of[name]))

    print('decode: %s, batch 1, greedy, prompt: %s, %d new tokens; %d decode steps per run%s'
          % (cfg['name'], prompt_note, tokens, rows[0][1]['steps'],
             '; median of %d rounds' % rounds if rounds > 1 else ''))
    print()
    print('| run | steps/s | ms/step | peak RSS (MiB, per rank) | ids as PyTorch |')
    print('|---|---:|---:|---:|---|')
    want = rows[-1][2]
    for name, m, got in rows:
        agree = sum(1 for a, b in zip(got, want) if a == b) - args.prompt
        rss = '%.0f' % m['rss'] if m['rss'] is not None else '-'
        same = 'all' if got == want else '%d of %d' % (max(agree, 0), tokens)
        print('| %s | %.2f | %.1f | %s | %s |' % (name, m['steps'] / m['seconds'],
                                                 1e3 * m['seconds'] / m['steps'], rss, same))
    base = rows[-1][1]['steps'] / rows[-1][1]['seconds']
    print()
    for name, m, _ in rows[:-1]:
        print('ratio %s / PyTorch: %.2fx' % (name.split(' (')[0], m['steps'] / m['seconds'] / base))
    if not args.work_dir:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main(sys.argv[1:])
