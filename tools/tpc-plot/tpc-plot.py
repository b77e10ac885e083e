#!/usr/bin/python3
"""tpc-plot: the loss curve of a training run.

Reads the JSON lines that `tpc-run train --log LOG.jsonl` writes (one object
per optimizer step: "step" (0-based), "loss" (the step's batch loss before
its update), "tokens" (target tokens of the step over the job) and, before
every --eval-every-th step, "val_loss") and draws the train loss, a smoothed
train loss and the validation loss against the step into a PNG. When every
step counts the same tokens, a second axis shows the tokens trained on.

  tpc-plot LOG.jsonl [-o loss.png] [--title TEXT] [--smooth 0.9]
  tpc-plot A.jsonl B.jsonl ... --labels a,b,... -o compare.png

With several logs (runs of one model at different precisions or tp sizes,
say), each run gets one colour: its smoothed train loss as a line over its
faint raw loss, and its validation loss as dots.

matplotlib comes from Debian's python3-matplotlib, which only /usr/bin/python3
imports; `bash scripts/setup.sh` installs it.
"""
import argparse
import json
import math
import os
import sys

PROG = 'tpc-plot'


def fail(message):
    sys.stderr.write('%s: error: %s\n' % (PROG, message))
    sys.exit(1)


def number(record, key, where):
    value = record.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        fail('%s: "%s" is %s, not a number' % (where, key, json.dumps(value)))
    return value


def read_log(path):
    """The log's steps as (step, loss, tokens, val_loss or None), in order."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        fail('cannot read the log %s: %s' % (path, e.strerror or e))
    except UnicodeDecodeError:
        fail('%s is not a text file of JSON lines (a tpc-run train --log)' % path)
    steps = []
    for number_, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = '%s:%d' % (path, number_)
        try:
            record = json.loads(line)
        except ValueError as e:
            fail('%s: not a JSON line (%s); expected the log of tpc-run train '
                 '--log' % (where, e))
        if not isinstance(record, dict):
            fail('%s: a JSON %s, expected an object with "step" and "loss"'
                 % (where, type(record).__name__))
        for key in ('step', 'loss'):
            if key not in record:
                fail('%s: no "%s"; expected the log of tpc-run train --log'
                     % (where, key))
        step = number(record, 'step', where)
        if step != int(step) or step < 0:
            fail('%s: "step" is %s, not a step count' % (where, json.dumps(step)))
        if steps and int(step) <= steps[-1][0]:
            fail('%s: step %d does not follow step %d; one log per run'
                 % (where, step, steps[-1][0]))
        loss = number(record, 'loss', where)
        tokens = number(record, 'tokens', where) if 'tokens' in record else None
        val = number(record, 'val_loss', where) if 'val_loss' in record else None
        steps.append((int(step), float(loss), tokens, val))
    if not steps:
        fail('%s holds no step (an empty log: did the run train at all?)' % path)
    return steps


def smoothed(values, weight):
    """Exponential moving average, bias-corrected as TensorBoard does."""
    out, average, norm = [], 0.0, 0.0
    for v in values:
        average = weight * average + (1.0 - weight) * v
        norm = weight * norm + (1.0 - weight)
        out.append(average / norm)
    return out


def import_pyplot():
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError as e:
        fail('cannot import matplotlib (%s) with %s: install Debian\'s '
             'python3-matplotlib (`bash scripts/setup.sh` does) and run tpc-plot '
             'with /usr/bin/python3, which imports it' % (e, sys.executable))
    return plt


def save(plt, fig, out):
    fig.tight_layout()
    tmp = out + '.tmp.png'
    try:
        fig.savefig(tmp, format='png')
        os.replace(tmp, out)
    except OSError as e:
        try:
            os.remove(tmp)
        except OSError:
            pass
        fail('cannot write %s: %s' % (out, e.strerror or e))
    plt.close(fig)


def plot_runs(runs, out, title, weight):
    """Several logs on one axis: runs is [(label, steps)]. Below it, each
    later run's smoothed train loss minus the first run's at the same steps,
    where curves that lie on top of each other still differ visibly."""
    plt = import_pyplot()
    fig, (ax, diff) = plt.subplots(2, 1, figsize=(8, 5), dpi=100, sharex=True,
                                   gridspec_kw={'height_ratios': [3, 1]})
    colors = plt.rcParams['axes.prop_cycle'].by_key()['color']
    points = vals = 0
    reference = None
    for i, (label, steps) in enumerate(runs):
        finite = {s: l for s, l, _, _ in steps if math.isfinite(l)}
        ordered = sorted(finite)
        curve = dict(zip(ordered, smoothed([finite[s] for s in ordered],
                                           weight)))
        if i == 0:
            reference = curve
            continue
        common = [s for s in ordered if s in reference]
        if common:
            diff.plot(common, [curve[s] - reference[s] for s in common],
                      color=colors[i % len(colors)], linewidth=1.2)
    diff.axhline(0.0, color=colors[0], linewidth=1.0)
    diff.set_ylabel('- %s' % runs[0][0])
    diff.set_xlabel('step')
    diff.grid(True, alpha=0.3)
    for i, (label, steps) in enumerate(runs):
        color = colors[i % len(colors)]
        finite = [(s, l) for s, l, _, _ in steps if math.isfinite(l)]
        val = [(s, v) for s, _, _, v in steps if v is not None and math.isfinite(v)]
        xs = [s for s, _ in finite]
        ys = [l for _, l in finite]
        many = len(finite) >= 10 and weight > 0
        if many:
            ax.plot(xs, ys, color=color, linewidth=0.8, alpha=0.2)
            ax.plot(xs, smoothed(ys, weight), color=color, linewidth=1.8,
                    label='%s train (smoothed, %g)' % (label, weight))
        else:
            ax.plot(xs, ys, color=color, linewidth=1.2,
                    marker='' if len(xs) > 1 else 'o', label='%s train' % label)
        if val:
            ax.plot([s for s, _ in val], [v for _, v in val], color=color,
                    linestyle='--', linewidth=1.2, marker='o', markersize=4,
                    label='%s val' % label)
        points += len(finite)
        vals += len(val)
    ax.set_ylabel('loss (nats per token)')
    ax.grid(True, alpha=0.3)
    ax.legend()
    ax.set_title(title)
    save(plt, fig, out)
    return points, vals


def plot(steps, out, title, weight):
    plt = import_pyplot()
    finite = [(s, l) for s, l, _, _ in steps if math.isfinite(l)]
    val = [(s, v) for s, _, _, v in steps if v is not None and math.isfinite(v)]
    fig, ax = plt.subplots(figsize=(8, 5), dpi=100)
    xs = [s for s, _ in finite]
    ys = [l for _, l in finite]
    many = len(finite) >= 10 and weight > 0
    ax.plot(xs, ys, color='tab:blue', linewidth=1.0, alpha=0.35 if many else 1.0,
            marker='' if len(xs) > 1 else 'o', label='train loss')
    if many:
        ax.plot(xs, smoothed(ys, weight), color='tab:blue', linewidth=1.8,
                label='train loss (smoothed, %g)' % weight)
    if val:
        ax.plot([s for s, _ in val], [v for _, v in val], color='tab:orange',
                linewidth=1.8, marker='o', markersize=4, label='val loss')
    ax.set_xlabel('step')
    ax.set_ylabel('loss (nats per token)')
    ax.grid(True, alpha=0.3)
    ax.legend()
    tokens = {t for _, _, t, _ in steps}
    if len(tokens) == 1 and None not in tokens and next(iter(tokens)) > 0:
        per_step = float(next(iter(tokens)))
        top = ax.secondary_xaxis(
            'top', functions=(lambda s: s * per_step, lambda t: t / per_step))
        top.set_xlabel('tokens (%g per step)' % per_step)
    ax.set_title(title)
    save(plt, fig, out)
    return len(finite), len(val)


def main(argv):
    parser = argparse.ArgumentParser(
        prog=PROG,
        description='Plot the train and validation loss of a `tpc-run train '
                    '--log` JSON lines file into a PNG.')
    parser.add_argument('log', nargs='+',
                        help='JSON lines written by tpc-run train --log; several '
                        'draw one curve each')
    parser.add_argument('-o', '--output',
                        help='PNG to write (default: the first log with .png)')
    parser.add_argument('--labels', help='comma-separated names of the logs in the '
                        'legend (default: their file names)')
    parser.add_argument('--title', help='plot title (default: the log\'s name '
                        'and its steps)')
    parser.add_argument('--smooth', type=float, default=0.9,
                        help='weight of the moving average drawn over the train '
                        'loss, in [0, 1) (0: none; default 0.9)')
    args = parser.parse_args(argv)
    if not 0.0 <= args.smooth < 1.0:
        fail('--smooth must be in [0, 1), not %g' % args.smooth)
    out = args.output or os.path.splitext(args.log[0])[0] + '.png'
    labels = [os.path.splitext(os.path.basename(p))[0] for p in args.log]
    if args.labels is not None:
        labels = args.labels.split(',')
        if len(labels) != len(args.log):
            fail('--labels names %d runs but %d logs are given'
                 % (len(labels), len(args.log)))
    runs = [(label, read_log(path)) for label, path in zip(labels, args.log)]
    title = args.title
    if len(runs) == 1:
        steps = runs[0][1]
        if title is None:
            title = '%s: steps %d-%d' % (os.path.basename(args.log[0]),
                                          steps[0][0], steps[-1][0])
        points, vals = plot(steps, out, title, args.smooth)
    else:
        points, vals = plot_runs(runs, out, title or ', '.join(labels),
                                 args.smooth)
    print('%s: wrote %s (%d steps, %d validation points%s)'
          % (PROG, out, points, vals,
             '' if len(runs) == 1 else ', %d runs' % len(runs)))


if __name__ == '__main__':
    main(sys.argv[1:])
