#!/usr/bin/python3
"""Training-step benchmark: tpc against a PyTorch CPU reference, fp32 or bf16.

GPT-2 124M (tpc-model gpt2 --preset 124m), micro-batch B = 4, T = 256, is
compiled for tp = 1 and tp = 2 and trained for --warmup + --steps AdamW steps
from the same initial weights (tpc-run init --save) on the same windows of the
same token file by
  - tpc tp=1: tpc-run --threads 2 (one process, 2 threads),
  - tpc tp=2: mpirun -np 2 tpc-run --threads 1 (2 ranks of 1 thread),
  - PyTorch:  bench/reference_gpt2.py with torch.set_num_threads(2).
With --baseline-build-dir, the two tpc runs are repeated with the tools of
another build (an earlier commit, say) in the same run, each compiling its
own program, so that a change is measured against its predecessor on the
same machine at the same time. --rounds R repeats the tpc runs R times,
taking turns (this build's tp=1 and tp=2, the fp32 run, the baseline's),
and each row keeps its median round: single runs on this machine drift by
10 to 20%, and taking turns lets a slow stretch weigh on all of them alike.
The warm-up steps are left out of the figures. tokens/s and ms/step come from
the per-step times (tpc-run's JSON lines log; the same span of work, data to
updated weights, in PyTorch). GFLOP/s are model FLOPs (the program's own count
that tpc-run prints for its MFU: 6 N per token plus attention) times tokens/s,
and the peak they are compared with is the best fp32 GEMM rate measured on
the same threads: the probe tpc-run runs before training (1024^3 on its fp32
GEMMs, oneDNN's when the build has it; the tp=1 run's), torch.mm at the same
size (best of 3), and tpc-bench-gemm's OpenBLAS sgemm and oneDNN f32 rates
over one training step's GEMMs. Each row also gives the peak resident memory
of a rank (tpc-run's log) or of the PyTorch process. The first-step losses
of the three runs must agree (printed, not timed).

With --precision bf16, the tpc programs are compiled with --precision bf16
(bf16 weights, activations and GEMMs on oneDNN, fp32 masters) and PyTorch
runs under torch.autocast(device_type="cpu", dtype=torch.bfloat16); an fp32
tpc tp=1 run joins them, and the peak is the better of two bf16 GEMM rates:
torch.mm on bf16 1024^3 and tpc-bench-gemm's oneDNN rate over one training
step's GEMMs. First-step losses then agree within 1e-2 (bf16 rounding).

Builds nothing: it runs tpc-model, tpc-compile and tpc-run from
<build-dir>/bin (default: build/ at the repository root). The data are the
Brown corpus's training tokens when scripts/fetch-data.sh has prepared them,
else seeded random tokens; the output says which.

Usage: /usr/bin/python3 bench/train_step.py [--steps N] [--warmup W] [--quick]
                                           [--baseline-build-dir DIR] [--rounds R]
                                           [--precision fp32|bf16]
"""
import argparse
import json
import os
import re
import shutil
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import reference_gpt2 as ref  # noqa: E402
import benchutil  # noqa: E402
from benchutil import mpi_env, mpirun_of, tools_of, work_dir, steps_of  # noqa: E402

FULL = {'model': ['--preset', '124m'], 'heads': 12, 'vocab': 50257, 'B': 4, 'T': 256,
        'name': 'GPT-2 124M'}
QUICK = {'model': ['--layers', '2', '--hidden', '64', '--heads', '4', '--vocab', '512',
                   '--seq', '64'],
         'heads': 4, 'vocab': 512, 'B': 2, 'T': 32, 'name': 'GPT-2 2x64, vocabulary 512'}


def run(cmd, log, env=None):
    return benchutil.run(cmd, log, 'train_step', env)[0]


def summarize(steps, warmup):
    """tokens/s, ms/step, first-step loss of a log's steps after the warm-up."""
    timed = [s for s in steps if s['step'] >= warmup]
    seconds = [s['tokens'] / s['tokens_per_s'] for s in timed]
    tokens = sum(s['tokens'] for s in timed)
    return {'tokens_per_s': tokens / sum(seconds), 'ms_per_step': 1e3 * sum(seconds) / len(seconds),
            'first_loss': steps[0]['loss'], 'last_loss': steps[-1]['loss'],
            'rss': steps[-1].get('peak_rss_mib')}


def probe_line(stdout):
    m = re.search(r'model ([0-9.e+]+) FLOPs per token; peak ([0-9.e+]+) FLOP/s per rank', stdout)
    if not m:
        sys.exit('train_step: tpc-run printed no FLOPs/peak line:\n' + stdout)
    return float(m.group(1)), float(m.group(2))


def torch_mm_peak(threads, n=1024, reps=5, trials=3, dtype=torch.float32):
    """The best of `trials` timings of `reps` n^3 torch.mm."""
    torch.set_num_threads(threads)
    a = torch.randn(n, n).to(dtype)
    b = torch.randn(n, n).to(dtype)
    torch.mm(a, b)
    best = 0.0
    for _ in range(trials):
        start = time.perf_counter()
        for _ in range(reps):
            torch.mm(a, b)
        best = max(best, 2.0 * n ** 3 * reps / (time.perf_counter() - start))
    return best


def compile_programs(tools, path, cfg, threads, prefix, log, precision='fp32', tps=None):
    """The tp=1 and tp=threads programs of model.mlir, named <prefix>tp<n>.tpc."""
    for tp in tps or (1, threads):
        cmd = [tools['tpc-compile'], path('model.mlir'), '--tp', str(tp), '--micro-batch',
               str(cfg['B']), '--seq', str(cfg['T']), '-o', path('%stp%d.tpc' % (prefix, tp))]
        if precision != 'fp32':
            cmd += ['--precision', precision]
        run(cmd, log)


def gemm_step_rates(build_dir, threads, quick, log):
    """tpc-bench-gemm's rates over one training step's GEMMs (FLOP/s):
    {'sgemm': OpenBLAS fp32, 'onednn_f32': ..., 'onednn_bf16': ...}, None
    for what the build lacks (no oneDNN, no tpc-bench-gemm)."""
    rates = {'sgemm': None, 'onednn_f32': None, 'onednn_bf16': None}
    bench = os.path.join(build_dir, 'bin', 'tpc-bench-gemm')
    if not os.access(bench, os.X_OK):
        return rates
    out = run([bench, '--threads', str(threads)] + (['--quick'] if quick else []), log)
    for key, label in (('sgemm', 'sgemm f32'), ('onednn_f32', 'oneDNN f32'),
                       ('onednn_bf16', 'oneDNN bf16')):
        m = re.search(label + r' [0-9.]+ ms \(([0-9.]+) GFLOP/s\)', out)
        if m:
            rates[key] = float(m.group(1)) * 1e9
    return rates


def gflops_text(rate):
    return '%.1f' % (rate / 1e9) if rate else 'not in this build'


def run_tpc(tools, path, threads, train, mpirun, env, prefix, suffix, log):
    """Trains tp=1 (threads threads) and tp=threads (ranks of 1 thread); logs to
    <prefix>tp1<suffix>.jsonl and <prefix>tp2<suffix>.jsonl. Returns tp=1's
    FLOPs per token and GEMM probe."""
    out1 = run([tools['tpc-run'], path('%stp1.tpc' % prefix), '--threads', str(threads)] +
               train + ['--log', path('%stp1%s.jsonl' % (prefix, suffix))], log)
    run([mpirun, '--oversubscribe', '-np', str(threads), tools['tpc-run'],
         path('%stp%d.tpc' % (prefix, threads)), '--threads', '1'] + train +
        ['--log', path('%stp2%s.jsonl' % (prefix, suffix))], log, env)
    return probe_line(out1)


def median_round(logs, warmup):
    """summarize() of the run with the median tokens/s among the rounds' logs
    (the lower middle one for an even count)."""
    runs = sorted((summarize(steps_of(p), warmup) for p in logs),
                  key=lambda r: r['tokens_per_s'])
    return runs[(len(runs) - 1) // 2]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--steps', type=int, default=None,
                    help='timed steps after the warm-up (default: 5; --quick: 2)')
    ap.add_argument('--warmup', type=int, default=None,
                    help='warm-up steps, not timed (default: 2; --quick: 1)')
    ap.add_argument('--quick', action='store_true',
                    help='a tiny model (2 layers, hidden 64, vocabulary 512, B=2, T=32): a smoke run')
    ap.add_argument('--threads', type=int, default=2,
                    help='threads of tpc tp=1 and of PyTorch; tp=2 runs that many ranks of 1 thread')
    ap.add_argument('--build-dir', default=os.environ.get('TPC_BUILD_DIR', os.path.join(ROOT, 'build')))
    ap.add_argument('--baseline-build-dir', default='',
                    help='also run tpc tp=1 and tp=2 with the tools of this build '
                         '(e.g. an earlier commit\'s) and print the ratios to it')
    ap.add_argument('--work-dir', default='',
                    help='where the model, programs, logs and data go (default: a temporary '
                         'directory, removed at the end)')
    ap.add_argument('--rounds', type=int, default=1,
                    help='repeat the tpc runs this many times, taking turns, and keep each '
                         'one\'s median round (default: 1)')
    ap.add_argument('--lr', type=float, default=3e-4)
    ap.add_argument('--precision', choices=['fp32', 'bf16'], default='fp32',
                    help='bf16: tpc --precision bf16 against PyTorch under torch.autocast '
                         '(bfloat16), with an fp32 tpc tp=1 run and a bf16 GEMM peak')
    args = ap.parse_args(argv)
    bf16 = args.precision == 'bf16'
    cfg = QUICK if args.quick else FULL
    steps = args.steps if args.steps is not None else (2 if args.quick else 5)
    warmup = args.warmup if args.warmup is not None else (1 if args.quick else 2)
    if steps < 1 or warmup < 0 or args.rounds < 1:
        sys.exit('train_step: --steps and --rounds must be >= 1 and --warmup >= 0')
    total = warmup + steps
    threads = args.threads

    tools = tools_of(args.build_dir, 'train_step')
    baseline = tools_of(args.baseline_build_dir, 'train_step') if args.baseline_build_dir else None
    mpirun = mpirun_of('train_step', 'tp=2')

    work, log, path = work_dir(args.work_dir, 'tpc-bench-')
    B, T = cfg['B'], cfg['T']

    # The model and the initial weights (this build's; a baseline compiles
    # its own programs from the same model file and loads the same weights).
    run([tools['tpc-model'], 'gpt2'] + cfg['model'] + ['-o', path('model.mlir')], log)
    compile_programs(tools, path, cfg, threads, '', log, args.precision)
    if bf16:
        compile_programs(tools, path, cfg, threads, 'fp32-', log, tps=(1,))
    run([tools['tpc-run'], path('tp1.tpc'), 'init', '--save', path('init.safetensors')], log)

    # The data: Brown's training tokens when prepared, else random tokens.
    cache = os.environ.get('TPC_CACHE', os.path.join(os.path.expanduser('~'), '.cache', 'tpc'))
    brown = os.path.join(cache, 'data', 'brown_train.bin')
    need = total * B * T + 1
    if not args.quick and os.path.exists(brown) and len(ref.read_tokens(brown)) >= need:
        data, data_note = brown, 'the Brown corpus (%s)' % brown
    else:
        import numpy as np
        rng = np.random.default_rng(1)
        tokens = rng.integers(0, cfg['vocab'], size=need, dtype=np.int64).astype(np.uint16)
        data = path('random.bin')
        with open(data, 'wb') as f:
            f.write(np.array([20240520, 1, need] + [0] * 253, dtype=np.int32).tobytes())
            f.write(tokens.tobytes())
        data_note = 'random tokens (seed 1, %d tokens)' % need

    train = ['train', '--load', path('init.safetensors'), '--data', data, '--steps', str(total),
             '--lr', str(args.lr), '--schedule', 'constant']
    env = mpi_env(work)
    if baseline:
        compile_programs(baseline, path, cfg, threads, 'base-', log, args.precision)
    rounds = ['.r%d' % k for k in range(args.rounds)]
    for r in rounds:
        flops_per_token, peak = run_tpc(tools, path, threads, train, mpirun, env, '', r, log)
        if bf16:
            run([tools['tpc-run'], path('fp32-tp1.tpc'), '--threads', str(threads)] + train +
                ['--log', path('fp32-tp1%s.jsonl' % r)], log)
        if baseline:
            run_tpc(baseline, path, threads, train, mpirun, env, 'base-', r, log)

    def tpc_row(name):
        return median_round([path('%s%s.jsonl' % (name, r)) for r in rounds], warmup)

    # PyTorch, in this process.
    torch.set_num_threads(threads)
    model = ref.GPT2(ref.load_checkpoint(path('init.safetensors')), cfg['heads'])
    batches = ref.Batches(ref.read_tokens(data), B, T)
    opts = argparse.Namespace(steps=total, lr=args.lr, min_lr=0.0, warmup=0, schedule='constant',
                              weight_decay=0.1, beta1=0.9, beta2=0.95, eps=1e-8, clip=1.0,
                              autocast=torch.bfloat16 if bf16 else None)
    torch_steps = []
    ref.train(model, batches, opts, torch_steps.append)
    del model, batches
    import resource
    torch_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux
    mm_peak = torch_mm_peak(threads, dtype=torch.bfloat16 if bf16 else torch.float32)
    rates = gemm_step_rates(args.build_dir, threads, args.quick, log)

    tag = ' bf16' if bf16 else ''
    rows = [('tpc%s tp=1 (%d threads)' % (tag, threads), tpc_row('tp1')),
            ('tpc%s tp=%d (%d ranks x 1 thread)' % (tag, threads, threads), tpc_row('tp2')),
            ('PyTorch %s%s (%d threads)' % (torch.__version__, ' autocast bf16' if bf16 else '',
                                          threads), summarize(torch_steps, warmup))]
    if bf16:
        rows.append(('tpc fp32 tp=1 (%d threads)' % threads, tpc_row('fp32-tp1')))
    if baseline:
        rows += [('baseline tpc tp=1 (%d threads)' % threads, tpc_row('base-tp1')),
                 ('baseline tpc tp=%d (%d ranks x 1 thread)' % (threads, threads),
                  tpc_row('base-tp2'))]

    print('train_step: %s, B=%d, T=%d, %s, %d timed steps after %d warm-up steps%s; data: %s'
          % (cfg['name'], B, T, args.precision, steps, warmup,
             ', tpc rows the median of %d rounds' % args.rounds if args.rounds > 1 else '',
             data_note))
    print('model FLOPs per token: %.4g (the program\'s count)' % flops_per_token)
    probe = peak
    if bf16:
        peak = max(mm_peak, rates['onednn_bf16'] or 0.0)
        print('bf16 GEMM peak: %.1f GFLOP/s on %d threads, the better of torch.mm bf16 1024^3 '
              '(%.1f, best of 3) and tpc-bench-gemm\'s oneDNN bf16 over one step\'s GEMMs (%s)'
              % (peak / 1e9, threads, mm_peak / 1e9, gflops_text(rates['onednn_bf16'])))
    else:
        peak = max(probe, mm_peak, rates['sgemm'] or 0.0, rates['onednn_f32'] or 0.0)
        print('fp32 GEMM peak: %.1f GFLOP/s on %d threads, the best of tpc-run\'s 1024^3 GEMM '
              'probe (%.1f), torch.mm 1024^3 (%.1f, best of 3) and tpc-bench-gemm over one '
              'step\'s GEMMs: OpenBLAS sgemm (%s), oneDNN f32 (%s)'
              % (peak / 1e9, threads, probe / 1e9, mm_peak / 1e9, gflops_text(rates['sgemm']),
                 gflops_text(rates['onednn_f32'])))
    print()
    print('| run | tokens/s | ms/step | GFLOP/s | %% of %s peak | peak RSS (MiB, per rank) |'
          % ('bf16 GEMM' if bf16 else 'fp32 GEMM'))
    print('|---|---:|---:|---:|---:|---:|')
    for name, r in rows:
        gflops = flops_per_token * r['tokens_per_s'] / 1e9
        rss = r.get('rss')
        if rss is None and name.startswith('PyTorch'):
            rss = torch_rss
        print('| %s | %.1f | %.1f | %.2f | %.1f%% | %s |'
              % (name, r['tokens_per_s'], r['ms_per_step'], gflops, 100.0 * gflops * 1e9 / peak,
                 '%.0f' % rss if rss is not None else '-'))
    print()
    torch_rate = rows[2][1]['tokens_per_s']
    for name, r in rows[:2]:
        print('ratio %s / PyTorch: %.2fx' % (name.split(' (')[0], r['tokens_per_s'] / torch_rate))
    print('ratio %s / %s: %.2fx' % (rows[1][0].split(' (')[0], rows[0][0].split(' (')[0],
                                    rows[1][1]['tokens_per_s'] / rows[0][1]['tokens_per_s']))
    if bf16:
        print('ratio tpc bf16 tp=1 / tpc fp32 tp=1: %.2fx'
              % (rows[0][1]['tokens_per_s'] / rows[3][1]['tokens_per_s']))
    if baseline:
        for (name, r), (_, b) in zip(rows[:2], rows[4 if bf16 else 3:]):
            print('ratio %s / baseline (%s): %.3fx'
                  % (name.split(' (')[0], args.baseline_build_dir,
                     r['tokens_per_s'] / b['tokens_per_s']))
    first = [r['first_loss'] for _, r in rows[:3]]
    worst = max(abs(x - first[2]) / abs(first[2]) for x in first)
    tolerance = '1e-2' if bf16 else '1e-5'
    agree = worst <= float(tolerance)
    print('first-step loss: tpc tp=1 %.7f, tpc tp=%d %.7f, PyTorch %.7f: %s %s (largest relative '
          'difference %.2g)' % (first[0], threads, first[1], first[2],
                                'agree within' if agree else 'DIFFER by more than', tolerance,
                                worst))
    last = [r['last_loss'] for _, r in rows]
    print('step-%d loss: tpc tp=1 %.7f, tpc tp=%d %.7f, PyTorch %.7f'
          % (total, last[0], threads, last[1], last[2]))
    if not args.work_dir:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print('files in ' + work)
    if not agree:
        sys.exit('train_step: tpc and PyTorch disagree on the first step\'s loss')


if __name__ == '__main__':
    main(sys.argv[1:])
