#!/usr/bin/python3
"""Stack-parallel decoding of a StagFormer: per-token latency against its peers.

A separate-weights StagFormer of 2 stacks (L layers each, byte vocabulary
256, so that the layers, not the output layer, are the step) decodes
greedily at batch 1, one thread per rank, from its initial weights:
  - sequential:     decode_step on 1 rank, the stacks one after the other
                    (the paper's baseline),
  - stack-parallel: tpc-compile --stack-parallel on 2 ranks, each stack on
                    its own rank, one message of the final activation per
                    token (the paper's method),
  - tp=2:           the same model tensor-parallel on the same 2 ranks (the
                    same-hardware alternative),
and, as the depth baseline, a GPT-2 of 2L layers (the same blocks without
the cross-attentions) at tp=1 and tp=2. --repeats rounds run every
configuration once each, and the median of each is kept (single runs on a
machine with shared cores vary by up to twice; rounds let a slow stretch
weigh on all configurations alike). The table gives the milliseconds per new token after
the first (tpc-run generate's 'then X ms per token'), the time of the prompt
and the first token, and each run's latency ratio to the sequential
StagFormer. The ids of the three StagFormer runs must agree: stack-parallel
decoding computes what sequential decoding does.

Builds nothing: it runs tpc-model, tpc-compile and tpc-run from
<build-dir>/bin (default: build/ at the repository root).

Usage: /usr/bin/python3 bench/stack_parallel_decode.py [--layers L] [--hidden H]
           [--heads N] [--tokens N] [--prompt N] [--repeats N] [--quick]
           [--build-dir DIR] [--work DIR]
"""
import argparse
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import benchutil  # noqa: E402
from benchutil import mpi_env, mpirun_of, tools_of, work_dir  # noqa: E402

WHO = 'stack_parallel_decode'


def timing(err):
    m = re.search(r'prompt and first token ([0-9.]+) s, then ([0-9.]+) ms per token', err)
    if not m:
        sys.exit('%s: tpc-run generate printed no timing:\n%s' % (WHO, err))
    return float(m.group(1)), float(m.group(2))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--layers', type=int, default=None, help='layers per stack (default 6)')
    ap.add_argument('--hidden', type=int, default=None, help='hidden size (default 512)')
    ap.add_argument('--heads', type=int, default=None, help='attention heads (default 8)')
    ap.add_argument('--tokens', type=int, default=None, help='new tokens (default 128)')
    ap.add_argument('--prompt', type=int, default=16, help='prompt tokens')
    ap.add_argument('--repeats', type=int, default=None, help='runs of each (default 7)')
    ap.add_argument('--quick', action='store_true',
                    help='a tiny model and few tokens: checks the bench runs, not a measurement')
    ap.add_argument('--build-dir', default=os.environ.get('TPC_BUILD_DIR', os.path.join(ROOT, 'build')))
    ap.add_argument('--work', default=None, help='keep models, programs and logs here')
    a = ap.parse_args(argv)
    quick = {'layers': 1, 'hidden': 32, 'heads': 2, 'tokens': 8, 'repeats': 1}
    full = {'layers': 6, 'hidden': 512, 'heads': 8, 'tokens': 128, 'repeats': 7}
    for k, v in (quick if a.quick else full).items():
        if getattr(a, k) is None:
            setattr(a, k, v)
    if a.prompt < 1 or a.tokens < 2:
        sys.exit('%s: --prompt must be >= 1 and --tokens >= 2' % WHO)
    tools = tools_of(a.build_dir, WHO)
    mpirun = mpirun_of(WHO, 'stack-parallel and tp=2 decoding')
    work, log, path = work_dir(a.work, 'tpc-stack-decode-')
    env = mpi_env(work)
    # Room for the prompt and every new token.
    context = a.prompt + a.tokens + 1
    shape = ['--hidden', str(a.hidden), '--heads', str(a.heads), '--vocab', '256',
             '--seq', str(context)]

    def run(cmd):
        return benchutil.run(cmd, log, WHO, env)

    run([tools['tpc-model'], 'stagformer', '--stacks', '2', '--layers', str(a.layers)] + shape +
        ['-o', path('stag.mlir')])
    run([tools['tpc-model'], 'gpt2', '--layers', str(2 * a.layers)] + shape + ['-o', path('deep.mlir')])
    programs = {
        'stag1': ('stag.mlir', []), 'stagsp': ('stag.mlir', ['--stack-parallel']),
        'stag2': ('stag.mlir', ['--tp', '2']),
        'deep1': ('deep.mlir', []), 'deep2': ('deep.mlir', ['--tp', '2']),
    }
    for name, (model, flags) in programs.items():
        run([tools['tpc-compile'], path(model), '--seq', str(context)] + flags +
            ['-o', path(name + '.tpc')])
    report, _ = run([tools['tpc-compile'], path('stag.mlir'), '--seq', str(context),
                     '--stack-parallel', '--report'])
    message = re.search(r'message per token to the next stack\s+([0-9,]+) B', report)
    prompt = ','.join(str((7 * i + 3) % 256) for i in range(a.prompt))
    rows = [
        ('StagFormer p=2, sequential, 1 rank', 'stag1', 1, True),
        ('StagFormer p=2, stack-parallel, 2 ranks', 'stagsp', 2, True),
        ('StagFormer p=2, tp=2, 2 ranks', 'stag2', 2, True),
        ('GPT-2 %d layers, tp=1, 1 rank' % (2 * a.layers), 'deep1', 1, False),
        ('GPT-2 %d layers, tp=2, 2 ranks' % (2 * a.layers), 'deep2', 2, False),
    ]
    # Rounds over every run, so that a slow stretch of the machine weighs on
    # all of them alike.
    measured = {name: ([], [], None) for _, name, _, _ in rows}
    for _ in range(a.repeats):
        for label, name, ranks, stag in rows:
            cmd = [tools['tpc-run'], path(name + '.tpc'), '--threads', '1', 'generate',
                   '--prompt-ids', prompt, '--tokens', str(a.tokens), '--temperature', '0']
            if ranks > 1:
                cmd = [mpirun, '--oversubscribe', '-np', str(ranks)] + cmd
            out, err = run(cmd)
            first, per = timing(err)
            firsts, pers, _ = measured[name]
            firsts.append(first)
            pers.append(per)
            measured[name] = (firsts, pers, out.split())
    results = {name: (statistics.median(f), statistics.median(p), ids)
               for name, (f, p, ids) in measured.items()}
    same = results['stag1'][2] == results['stagsp'][2] == results['stag2'][2]
    base = results['stag1'][1]
    print('stack-parallel decoding: StagFormer 2 stacks x %d layers (GPT-2 blocks), H %d, '
          '%d heads, vocabulary 256, fp32, batch 1, 1 thread per rank; greedy, prompt %d '
          'ids, %d new tokens; median of %d rounds' % (a.layers, a.hidden, a.heads, a.prompt,
                                                      a.tokens, a.repeats))
    print('message per token (stack 0 -> stack 1): %s B' % (message.group(1) if message else '?'))
    print()
    print('| run | ms per token | prompt + first token (ms) | speedup vs sequential |')
    print('|---|---:|---:|---:|')
    for label, name, _, _ in rows:
        first, per, _ = results[name]
        print('| %s | %.3f | %.1f | %.2fx |' % (label, per, 1e3 * first, base / per))
    print()
    print('StagFormer ids: %s' % ('sequential, stack-parallel and tp=2 agree' if same
                                  else 'DIFFER between the StagFormer runs'))
    if not same:
        sys.exit(1)


if __name__ == '__main__':
    main(sys.argv[1:])
