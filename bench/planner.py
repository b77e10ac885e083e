#!/usr/bin/python3
"""The planner's step-time model against measured steps on this machine.

Calibrates this machine twice, for one rank and for two (tpc-plan calibrate
--ranks R --threads 1: the backend's GEMM rates by shape and memory
bandwidth with R ranks running at once, and the MPI collectives of two),
since the ranks of a job share the caches and the memory of a machine and a
rank alone runs faster than one of two; then, for a small GPT-2 and a small
Llama (fp32, AdamW),
compiles every layout of up to 2 ranks in the set below (tp, pp, dp in
{1, 2} with tp x pp x dp <= 2; --sequence-parallel and --recompute full at
tp 2, --recompute full and --distributed-optimizer at dp 2; micro-batch
sizes 2 and 4), all at the same global batch of GLOBAL sequences per step
(gradient accumulation, or a pipeline's micro-batches, make up the rest),
and for each one
  - predicts its step with `tpc-plan time --cluster <the calibrated file
    of its rank count>`,
  - measures its median step (tpc-run --threads 1 train, under mpirun for
    2 ranks; the JSON lines log's tokens / tokens_per_s) over --steps
    steps after --warmup, in --rounds turns over all layouts so that a slow
    stretch of the shared machine weighs on all of them alike.
It prints predicted against measured per layout, the mean absolute error
(|predicted / measured - 1|, averaged), the Spearman rank correlation, and
whether the layout predicted fastest (tpc-plan auto's first choice when
tpc-plan has `auto`, else the minimum predicted over the set) runs within
5% of the fastest measured.

Builds nothing: it runs tpc-model, tpc-compile, tpc-plan and tpc-run from
<build-dir>/bin (default: build/ at the repository root). --quick runs
tiny models and a few layouts for a smoke test of the table's shape;
--json FILE also writes the figures as JSON.

Usage: /usr/bin/python3 bench/planner.py [--steps N] [--warmup W] [--rounds R]
                                        [--models gpt2,llama] [--quick]
                                        [--layouts NAME,...]
                                        [--json FILE] [--build-dir DIR]
                                        [--work-dir DIR]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import benchutil  # noqa: E402
from benchutil import mpi_env, mpirun_of, tools_of, work_dir, steps_of  # noqa: E402

WHO = 'planner'
RANKS = 2
GLOBAL = 8  # sequences per step, every layout
MODELS = {
    'gpt2': ['gpt2', '--layers', '4', '--hidden', '256', '--heads', '4', '--vocab', '2048', '--seq', '128'],
    'llama': ['llama', '--layers', '4', '--hidden', '256', '--heads', '4', '--kv-heads', '2',
              '--intermediate', '688', '--vocab', '2048', '--seq', '128'],
}
QUICK_MODELS = {
    'gpt2': ['gpt2', '--layers', '2', '--hidden', '32', '--heads', '2', '--vocab', '64', '--seq', '16'],
    'llama': ['llama', '--layers', '2', '--hidden', '32', '--heads', '2', '--kv-heads', '1',
              '--intermediate', '64', '--vocab', '64', '--seq', '16'],
}
FULL = {'T': 128, 'vocab': 2048, 'steps': 3, 'rounds': 2}
QUICK = {'T': 16, 'vocab': 64, 'steps': 1, 'rounds': 1}


def layouts(quick):
    """(name, tp, pp, dp, micro-batch, flags): every layout of <= 2 ranks in
    the study."""
    out = []
    for b in (2, 4):
        out.append(('1 rank', 1, 1, 1, b, []))
        out.append(('tp 2', 2, 1, 1, b, []))
        out.append(('dp 2', 1, 1, 2, b, []))
        out.append(('pp 2', 1, 2, 1, b, []))
    out += [('tp 2 sp', 2, 1, 1, 2, ['--sequence-parallel']),
            ('tp 2 sp', 2, 1, 1, 4, ['--sequence-parallel']),
            ('tp 2 recompute', 2, 1, 1, 4, ['--recompute', 'full']),
            ('tp 2 sp recompute', 2, 1, 1, 4, ['--sequence-parallel', '--recompute', 'full']),
            ('dp 2 zero-1', 1, 1, 2, 2, ['--distributed-optimizer']),
            ('dp 2 zero-1', 1, 1, 2, 4, ['--distributed-optimizer']),
            ('dp 2 recompute', 1, 1, 2, 2, ['--recompute', 'full']),
            ('1 rank recompute', 1, 1, 1, 4, ['--recompute', 'full']),
            ('pp 2 zb-h1', 1, 2, 1, 2, ['--schedule', 'zb-h1'])]
    if quick:
        out = [l for l in out if l[4] == 2 and not l[5]]
    return out


def micro_batches(tp, pp, dp, b):
    """Micro-batches per step that make GLOBAL sequences."""
    if GLOBAL % (b * dp):
        sys.exit('%s: a global batch of %d is not a multiple of micro-batch %d x dp %d'
                 % (WHO, GLOBAL, b, dp))
    return GLOBAL // (b * dp)


def label(layout):
    name, tp, pp, dp, b, _ = layout
    return '%s, b %d x %d' % (name, b, micro_batches(tp, pp, dp, b))


def spearman(xs, ys):
    """Spearman's rho: Pearson's correlation of the ranks (ties averaged)."""
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2.0
            i = j + 1
        return r
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.mean(rx), statistics.mean(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    den = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return num / den if den else 0.0


def auto_choice(tpc_plan, model, T, cluster, log):
    """tpc-plan auto's first choice on 2 ranks of the calibrated cluster, as
    a dict of its layout's fields, when this tpc-plan has `auto`."""
    if subprocess.run([tpc_plan, 'auto', '--help'], capture_output=True).returncode != 0:
        return None
    cmd = [tpc_plan, 'auto', model, '--devices', str(RANKS), '--global-batch', str(GLOBAL),
           '--seq', str(T), '--cluster', cluster, '--json']
    p = subprocess.run(cmd, capture_output=True, text=True)
    with open(log, 'a') as f:
        f.write('$ ' + ' '.join(cmd) + '\n' + p.stdout + p.stderr)
    if p.returncode != 0:
        sys.exit('%s: tpc-plan auto failed:\n%s' % (WHO, p.stderr))
    return json.loads(p.stdout)['layouts'][0]


def same_layout(auto, layout):
    """Whether tpc-plan auto's layout is `layout` of the study."""
    name, tp, pp, dp, b, flags = layout
    recompute = flags[flags.index('--recompute') + 1] if '--recompute' in flags else 'none'
    schedule = flags[flags.index('--schedule') + 1] if '--schedule' in flags else '1f1b'
    return (auto['tp'], auto['pp'], auto['dp'], auto['micro_batch']) == (tp, pp, dp, b) and \
        auto['sequence_parallel'] == ('--sequence-parallel' in flags) and \
        auto['recompute'] == recompute and \
        auto['distributed_optimizer'] == ('--distributed-optimizer' in flags) and \
        (pp == 1 or (auto['schedule'] == schedule and auto.get('virtual_stages', 1) == 1))


def describe(auto):
    return ('tp %d, pp %d, dp %d, micro-batch %d x %d%s%s%s%s'
            % (auto['tp'], auto['pp'], auto['dp'], auto['micro_batch'], auto['micro_batches'],
               ', ' + auto['schedule'] if auto['pp'] > 1 else '',
               ', sequence-parallel' if auto['sequence_parallel'] else '',
               ', recompute ' + auto['recompute'] if auto['recompute'] != 'none' else '',
               ', distributed optimizer' if auto['distributed_optimizer'] else ''))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--steps', type=int, default=None, help='timed steps per run (default 3; --quick 1)')
    ap.add_argument('--warmup', type=int, default=1, help='steps left out of each run')
    ap.add_argument('--rounds', type=int, default=None, help='turns of all runs (default 2; --quick 1)')
    ap.add_argument('--models', default='gpt2,llama', help='comma-separated: gpt2, llama')
    ap.add_argument('--quick', action='store_true', help='tiny models, a few layouts: a smoke run')
    ap.add_argument('--layouts', default='',
                    help='comma-separated layout names to run alone (e.g. "dp 2,dp 2 zero-1": '
                    'both micro-batch sizes of each), so that a few take turns more often')
    ap.add_argument('--json', default='', help='also write the figures to this file')
    ap.add_argument('--build-dir', default=os.environ.get('TPC_BUILD_DIR', os.path.join(ROOT, 'build')))
    ap.add_argument('--work-dir', default='')
    args = ap.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    steps = args.steps if args.steps is not None else cfg['steps']
    rounds = args.rounds if args.rounds is not None else cfg['rounds']
    models = [m for m in args.models.split(',') if m]
    if not models or any(m not in MODELS for m in models):
        sys.exit('%s: --models takes a comma-separated list of %s' % (WHO, ', '.join(MODELS)))
    if steps < 1 or args.warmup < 0 or rounds < 1:
        sys.exit('%s: --steps and --rounds must be >= 1, --warmup >= 0' % WHO)
    tools = tools_of(args.build_dir, WHO)
    tools['tpc-plan'] = os.path.join(args.build_dir, 'bin', 'tpc-plan')
    mpirun = mpirun_of(WHO, '%d ranks' % RANKS)
    work, log, path = work_dir(args.work_dir, 'tpc-planner-')
    env = mpi_env(work)
    # One thread per rank everywhere: the calibration, the runs.
    env['OMP_NUM_THREADS'] = '1'
    env['OPENBLAS_NUM_THREADS'] = '1'

    def run(cmd):
        return benchutil.run(cmd, log, WHO, env)[0]

    T = cfg['T']
    # A calibration per rank count: the ranks of a job share the machine's
    # caches and memory, so a rank that runs alone is faster than one of two.
    clusters = {}
    for ranks in (1, RANKS):
        clusters[ranks] = path('this-machine-%d.json' % ranks)
        print(run([tools['tpc-plan'], 'calibrate', '-o', clusters[ranks], '--ranks', str(ranks),
                   '--threads', '1', '--mpirun', mpirun] + (['--quick'] if args.quick else [])).strip())
    cluster = clusters[RANKS]
    run([sys.executable, os.path.join(ROOT, 'test', 'e2e', 'tpc_e2e.py'), 'tokens', path('train.bin'),
         str(max(100000, 4 * GLOBAL * (T + 1))), str(cfg['vocab']), '--seed', '1'])
    total = args.warmup + steps
    study = layouts(args.quick)
    if args.layouts:
        names = [n.strip() for n in args.layouts.split(',') if n.strip()]
        unknown = sorted(set(names) - set(l[0] for l in study))
        if unknown:
            sys.exit('%s: --layouts: no layout named %s; the names are %s'
                     % (WHO, ', '.join(unknown), ', '.join(sorted(set(l[0] for l in study)))))
        study = [l for l in study if l[0] in names]
    results = {}
    for model in models:
        spec = (QUICK_MODELS if args.quick else MODELS)[model]
        mlir = path(model + '.mlir')
        run([tools['tpc-model']] + spec + ['-o', mlir])
        predicted, programs = {}, {}
        for i, (name, tp, pp, dp, b, flags) in enumerate(study):
            m = micro_batches(tp, pp, dp, b)
            shape = ['--tp', str(tp), '--pp', str(pp), '--dp', str(dp), '--micro-batch', str(b),
                     '--seq', str(T)] + flags
            program = path('%s-%d.tpc' % (model, i))
            run([tools['tpc-compile'], mlir] + shape + (['--micro-batches', str(m)] if pp > 1 else []) +
                ['-o', program])
            programs[i] = program
            out = json.loads(run([tools['tpc-plan'], 'time', mlir, '--cluster', clusters[tp * pp * dp]] + shape +
                                 ['--micro-batches', str(m), '--json']))
            predicted[i] = out['step_seconds']

        timed = {}
        for r in range(rounds):
            for i, (name, tp, pp, dp, b, flags) in enumerate(study):
                ranks = tp * pp * dp
                out = path('%s-%d-%d.jsonl' % (model, i, r))
                cmd = [tools['tpc-run'], programs[i], '--threads', '1', 'train', '--data', path('train.bin'),
                       '--steps', str(total), '--log', out, '--plot', 'none']
                if pp == 1:
                    cmd += ['--grad-accum', str(micro_batches(tp, pp, dp, b))]
                if ranks > 1:
                    cmd = [mpirun, '-np', str(ranks)] + cmd
                run(cmd)
                s = steps_of(out, total, WHO)
                timed.setdefault(i, []).extend(x['tokens'] / x['tokens_per_s'] for x in s[args.warmup:])
        measured = {i: statistics.median(t) for i, t in timed.items()}

        idx = list(range(len(study)))
        mae = statistics.mean(abs(predicted[i] / measured[i] - 1) for i in idx)
        rho = spearman([predicted[i] for i in idx], [measured[i] for i in idx])
        # The same against each layout's fastest step, the nearest to an idle
        # machine: on a shared one, a job of 2 ranks on 2 cores loses a
        # rank's core to any other process and waits for it at every
        # collective.
        best = {i: min(timed[i]) for i in idx}
        mae_best = statistics.mean(abs(predicted[i] / best[i] - 1) for i in idx)
        rho_best = spearman([predicted[i] for i in idx], [best[i] for i in idx])
        fastest = min(idx, key=lambda i: measured[i])
        chosen = min(idx, key=lambda i: predicted[i])
        within = measured[chosen] <= 1.05 * measured[fastest]
        auto = auto_choice(tools['tpc-plan'], mlir, T, cluster, log)
        auto_text = None
        if auto is not None:
            match = [i for i in idx if same_layout(auto, study[i])]
            auto_text = '%s, predicted %.1f ms; ' % (describe(auto), 1e3 * auto['step_seconds'])
            if match:
                auto_text += 'measured %.1f ms (%s)' % (
                    1e3 * measured[match[0]], 'within 5% of the fastest'
                    if measured[match[0]] <= 1.05 * measured[fastest] else 'NOT within 5% of the fastest')
            else:
                auto_text += 'not in the measured set'
        print()
        print('%s: %s; fp32, AdamW, %d sequences of %d tokens per step; %d rank%s x 1 thread; '
              'median of %d step%s after %d warm-up, %d round%s'
              % (model, ' '.join(spec[1:]), GLOBAL, T, RANKS, '' if RANKS == 1 else 's', steps * rounds,
                 '' if steps * rounds == 1 else 's', args.warmup, rounds, '' if rounds == 1 else 's'))
        print()
        print('| layout | ranks | predicted (ms) | measured (ms) | error | steps, min-max (ms) |')
        print('|---|---:|---:|---:|---:|---:|')
        rows = []
        for i in idx:
            name, tp, pp, dp, b, flags = study[i]
            rows.append({'layout': label(study[i]), 'tp': tp, 'pp': pp, 'dp': dp, 'micro_batch': b,
                         'micro_batches': micro_batches(tp, pp, dp, b), 'flags': flags,
                         'predicted_s': predicted[i], 'measured_s': measured[i],
                         'steps_s': timed[i]})
            print('| %s | %d | %.1f | %.1f | %+.1f%% | %.1f-%.1f |'
                  % (label(study[i]), tp * pp * dp, 1e3 * predicted[i], 1e3 * measured[i],
                     100 * (predicted[i] / measured[i] - 1), 1e3 * min(timed[i]), 1e3 * max(timed[i])))
        print()
        print('mean absolute error %.1f%% (target <= 15%%), Spearman rank correlation %.3f (target >= 0.8); '
              'against the fastest steps: %.1f%%, %.3f' % (100 * mae, rho, 100 * mae_best, rho_best))
        print('fastest measured: %s (%.1f ms); fastest predicted: %s, measured %.1f ms: %s'
              % (label(study[fastest]), 1e3 * measured[fastest], label(study[chosen]),
                 1e3 * measured[chosen], 'within 5%' if within else 'NOT within 5%'))
        if auto_text is not None:
            print('tpc-plan auto\'s first choice: %s' % auto_text)
        results[model] = {'model': spec, 'rows': rows, 'mae': mae, 'spearman': rho,
                          'mae_fastest_steps': mae_best, 'spearman_fastest_steps': rho_best,
                          'fastest_measured': label(study[fastest]),
                          'fastest_predicted': label(study[chosen]), 'within_5_percent': within,
                          'tpc_plan_auto': auto_text}
    if args.json:
        calibrated = {}
        for ranks, c in clusters.items():
            with open(c) as f:
                calibrated[str(ranks)] = json.load(f)
        with open(args.json, 'w') as f:
            json.dump({'global_batch': GLOBAL, 'seq': T, 'steps': steps, 'warmup': args.warmup,
                       'rounds': rounds, 'clusters': calibrated, 'models': results}, f, indent=1)


if __name__ == '__main__':
    main(sys.argv[1:])
