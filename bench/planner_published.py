#!/usr/bin/python3
"""The planner's step-time model against published Megatron-LM runs.

Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on GPU
Clusters Using Megatron-LM" (SC21), Table 1: GPT models of 1.7B to 1T
parameters (sequence 2048, vocabulary 51,200) trained on DGX A100 nodes
(8 x A100 80GB) in mixed precision with full activation recompute, and the
achieved TFLOP/s per GPU of each. For each row this script

  - writes the model with tpc-model gpt2 (its layers, hidden size, heads),
  - predicts the step of the paper's layout (tp, pp, dp = GPUs / (tp pp),
    micro-batch 1, the rest of the batch as micro-batches, 1F1B, full
    recompute, fp16) with `tpc-plan time --cluster
    compiler/clusters/a100-80gb-sxm.json`,
  - turns it into TFLOP/s per GPU by the paper's own count of a step,
    96 B s l h^2 (1 + s / 6h + V / 16 l h), which includes the recomputed
    forward, and prints it beside the published figure with the error,
  - lets `tpc-plan auto` choose a layout for the same GPUs and global batch
    and says whether the model predicts it faster, and by how much.

The model is the paper's as its code ran it then (Megatron-LM's defaults):
dropout 0.1 on the attention probabilities and the residual branches, and
attention as separate kernels (`tpc-plan --unfused-attention`: the batched
QK^T and PV products, the fused scale-mask-softmax and the dropout, each
writing or reading every head's [seq, seq] scores in memory); the
data-parallel all-reduce runs after the backward, not overlapped with it
(no --overlap-grad-reduce). --fused also predicts each row with tpc's own
fused attention, for comparison. The cluster is the shipped A100 file with
one figure measured instead of the datasheet's: NVLink all-reduces at a bus
bandwidth of 200 GB/s, what NCCL's all_reduce_perf reaches on 8 A100 80GB
SXM on NVSwitch (NVIDIA/nccl-tests issue #149), not the 300 GB/s of the
link; --datasheet keeps the file as shipped.

The paper gives no micro-batch size or schedule per row; micro-batch 1 and
1F1B are this script's assumptions. Builds nothing: it runs tpc-model and
tpc-plan from <build-dir>/bin.

Usage: /usr/bin/python3 bench/planner_published.py [--rows 1.7B,18.4B,...]
                                        [--no-auto] [--fused] [--json FILE]
                                        [--build-dir DIR] [--work-dir DIR]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLUSTER = os.path.join(ROOT, 'compiler', 'clusters', 'a100-80gb-sxm.json')
# NCCL all_reduce_perf's bus bandwidth on 8 A100 80GB SXM over NVLink and
# NVSwitch, about 200 GB/s (NVIDIA/nccl-tests issue #149); a ring's bus
# bandwidth is the cluster file's bytes_per_s.
NVLINK_MEASURED = 200e9
SEQ, VOCAB = 2048, 51200
# Megatron-LM's --hidden-dropout and --attention-dropout defaults.
DROPOUT = '0.1'

# name, heads, hidden, layers, tp, pp, GPUs, global batch, TFLOP/s per GPU
TABLE1 = [
    ('1.7B', 24, 2304, 24, 1, 1, 32, 512, 137),
    ('3.6B', 32, 3072, 30, 2, 1, 64, 512, 138),
    ('7.5B', 32, 4096, 36, 4, 1, 128, 512, 142),
    ('18.4B', 48, 6144, 40, 8, 1, 256, 1024, 135),
    ('39.1B', 64, 8192, 48, 8, 2, 512, 1536, 138),
    ('76.1B', 80, 10240, 60, 8, 4, 1024, 1792, 140),
    ('145.6B', 96, 12288, 80, 8, 8, 1536, 2304, 148),
    ('310.1B', 128, 16384, 96, 8, 16, 1920, 2160, 155),
    ('529.6B', 128, 20480, 105, 8, 35, 2520, 2520, 163),
    ('1008.0B', 160, 25600, 128, 8, 64, 3072, 3072, 163),
]
DEFAULT_ROWS = '1.7B,7.5B,18.4B,39.1B,145.6B,1008.0B'


# Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
# Transformer Models": the models of its evaluation (name, heads,
# hidden, layers), all at tensor-parallel size 8 and sequence 2048.
KORTHIKANTI = [
    ('22B', 64, 6144, 48),
    ('175B', 96, 12288, 96),
    ('530B', 128, 20480, 105),
    ('1T', 160, 25600, 128),
]
TP = 8


def korthikanti_bytes(hidden, heads, layout):
    """Activation bytes of one layer per sequence by the paper's Table 2 (fp16;
    s b h times a factor): tensor parallel with selective recomputation
    (10 + 24/t), tensor and sequence parallel with it (34/t), full
    recomputation (2, the layer's input)."""
    sbh = SEQ * hidden
    return sbh * {'tp': 10 + 24.0 / TP, 'tp+sp': 34.0 / TP, 'full': 2.0}[layout]


def paper_flops(batch, layers, hidden):
    """The paper's FLOPs of one iteration with full recompute (its eq. 3)."""
    s, l, h, v = SEQ, layers, hidden, VOCAB
    return 96.0 * batch * s * l * h * h * (1 + s / (6.0 * h) + v / (16.0 * l * h))


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit('planner_published: %s failed:\n%s' % (' '.join(cmd), result.stderr))
    return result.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--rows', default=DEFAULT_ROWS,
                        help='Table 1 rows by size, comma-separated, or "all"')
    parser.add_argument('--no-auto', action='store_true',
                        help='skip tpc-plan auto')
    parser.add_argument('--fused', action='store_true',
                        help="also predict each row with tpc's fused attention")
    parser.add_argument('--memory', action='store_true',
                        help="compare tpc's activation memory per layer with "
                        "Korthikanti et al. 2022's Table 2 instead")
    parser.add_argument('--mfu-530b', action='store_true',
                        help="predict Korthikanti et al. 2022's 530B on 2,240 GPUs (its "
                        "abstract's MFU: 42.1%% with full recompute, 54.2%% with sequence "
                        "parallelism and selective recompute) instead")
    parser.add_argument('--datasheet', action='store_true',
                        help="the A100 file as shipped (NVLink at the datasheet's 300 GB/s)")
    parser.add_argument('--json', help='also write the figures to FILE')
    parser.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    parser.add_argument('--work-dir')
    args = parser.parse_args()
    bindir = os.path.join(args.build_dir, 'bin')
    model_tool, plan = os.path.join(bindir, 'tpc-model'), os.path.join(bindir, 'tpc-plan')
    for tool in (model_tool, plan):
        if not os.access(tool, os.X_OK):
            sys.exit('planner_published: %s not found; build it first (ninja -C %s '
                     'tpc-model tpc-plan)' % (tool, args.build_dir))
    global CLUSTER
    if not args.datasheet:
        with open(CLUSTER) as f:
            cluster = json.load(f)
        cluster['name'] += ', NVLink as NCCL measures it'
        cluster['intra_node']['bytes_per_s'] = NVLINK_MEASURED
        work = args.work_dir or tempfile.mkdtemp(prefix='planner_published.')
        args.work_dir = work
        os.makedirs(work, exist_ok=True)
        CLUSTER = os.path.join(work, 'a100-nvlink-measured.json')
        with open(CLUSTER, 'w') as f:
            json.dump(cluster, f, indent=1)
    if args.memory:
        memory(args, model_tool, os.path.join(bindir, 'tpc-compile'))
        return
    if args.mfu_530b:
        mfu_530b(args, model_tool, plan)
        return
    wanted = [r[0] for r in TABLE1] if args.rows == 'all' else args.rows.split(',')
    rows = [r for r in TABLE1 if r[0] in wanted]
    if len(rows) != len(wanted):
        sys.exit('planner_published: unknown row in --rows; the rows are %s'
                 % ', '.join(r[0] for r in TABLE1))
    work = args.work_dir or tempfile.mkdtemp(prefix='planner_published.')
    os.makedirs(work, exist_ok=True)

    results = []
    print('%-8s %3s %3s %5s %5s %9s %9s %7s%s   %s' % (
        'model', 'tp', 'pp', 'GPUs', 'batch', 'published', 'predicted', 'error',
        ' %9s %7s' % ('fused', 'error') if args.fused else '',
        'tpc-plan auto (same GPUs and batch)'))
    for name, heads, hidden, layers, tp, pp, gpus, batch, published in rows:
        model = os.path.join(work, 'gpt-%s.mlir' % name)
        run([model_tool, 'gpt2', '--layers', str(layers), '--hidden', str(hidden),
             '--heads', str(heads), '--vocab', str(VOCAB), '--seq', str(SEQ),
             '--dropout', DROPOUT, '-o', model])
        dp = gpus // (tp * pp)
        micro = batch // dp
        cmd = [plan, 'time', model, '--cluster', CLUSTER, '--tp', str(tp), '--pp', str(pp),
               '--dp', str(dp), '--micro-batch', '1', '--micro-batches', str(micro),
               '--seq', str(SEQ), '--precision', 'fp16', '--recompute', 'full', '--json']
        step = json.loads(run(cmd + ['--unfused-attention']))
        predicted = paper_flops(batch, layers, hidden) / step['step_seconds'] / gpus / 1e12
        error = predicted / published - 1
        row = {'model': name, 'heads': heads, 'hidden': hidden, 'layers': layers, 'tp': tp,
               'pp': pp, 'gpus': gpus, 'batch': batch, 'published_tflops': published,
               'predicted_tflops': predicted, 'error': error,
               'step_seconds': step['step_seconds'], 'breakdown': step['breakdown_seconds'],
               'memory_bytes': step['memory_bytes']}
        fused = ''
        if args.fused:
            fused_step = json.loads(run(cmd))
            row['fused_tflops'] = paper_flops(batch, layers, hidden) / \
                fused_step['step_seconds'] / gpus / 1e12
            row['fused_error'] = row['fused_tflops'] / published - 1
            fused = ' %9.0f %+6.1f%%' % (row['fused_tflops'], 100 * row['fused_error'])
        choice = ''
        if not args.no_auto:
            start = time.time()
            found = json.loads(run([plan, 'auto', model, '--cluster', CLUSTER, '--devices',
                                    str(gpus), '--global-batch', str(batch), '--seq', str(SEQ),
                                    '--precision', 'fp16', '--top', '1', '--unfused-attention',
                                    '--json']))
            best = found['layouts'][0]
            row['auto'] = best
            row['auto_search_seconds'] = time.time() - start
            speedup = step['step_seconds'] / best['step_seconds']
            row['auto_speedup'] = speedup
            choice = 'tp %d pp %d V %d dp %d b %d %s%s%s%s: %.2fx' % (
                best['tp'], best['pp'], best['virtual_stages'], best['dp'], best['micro_batch'],
                best['schedule'] or '-', ' SP' if best['sequence_parallel'] else '',
                ' recompute' if best['recompute'] == 'full' else '',
                ' ZeRO' if best['distributed_optimizer'] else '', speedup)
        results.append(row)
        print('%-8s %3d %3d %5d %5d %9.0f %9.0f %+6.1f%%%s   %s' % (
            name, tp, pp, gpus, batch, published, predicted, 100 * error, fused, choice),
            flush=True)
    mean = sum(abs(r['error']) for r in results) / len(results)
    print('mean |error| %.1f%% over %d rows' % (100 * mean, len(results)))
    if args.fused:
        print('with fused attention: mean |error| %.1f%%'
              % (100 * sum(abs(r['fused_error']) for r in results) / len(results)))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'rows': results, 'mean_abs_error': mean}, f, indent=2)


def mfu_530b(args, model_tool, plan):
    """The 530B model (105 layers, hidden 20480, 128 heads) at tp 8, pp 35,
    dp 8 on 2,240 A100s, as the paper's abstract gives its MFU: with full
    recompute (then attention unfused, as Megatron-LM ran it) and with
    sequence parallelism and selective recompute, which tpc expresses as
    sequence parallelism without recompute: its fused attention keeps no
    [seq, seq] scores and recomputes them in the backward, as selective
    recompute does. The abstract gives no global batch: 2,240 and 1,920
    (MT-NLG's, on the same 2,240 GPUs) both."""
    work = args.work_dir or tempfile.mkdtemp(prefix='planner_published.')
    os.makedirs(work, exist_ok=True)
    name, heads, hidden, layers = KORTHIKANTI[2]
    model = os.path.join(work, 'k-530B.mlir')
    run([model_tool, 'gpt2', '--layers', str(layers), '--hidden', str(hidden), '--heads',
         str(heads), '--vocab', str(VOCAB), '--seq', str(SEQ), '--dropout', DROPOUT, '-o', model])
    gpus, pp, dp = 2240, 35, 8
    rows = []
    print('%-5s %-40s %9s %9s %7s %9s' % ('batch', 'layout', 'published', 'predicted', 'error',
                                          'memory'))
    for batch in (2240, 1920):
        for what, published, flags in (
                ('full recompute, unfused attention', 42.1,
                 ['--recompute', 'full', '--unfused-attention']),
                ('sequence parallel, no recompute', 54.2, ['--sequence-parallel'])):
            step = json.loads(run([plan, 'time', model, '--cluster', CLUSTER, '--tp', str(TP),
                                   '--pp', str(pp), '--dp', str(dp), '--micro-batch', '1',
                                   '--micro-batches', str(batch // dp), '--seq', str(SEQ),
                                   '--precision', 'fp16', '--json'] + flags))
            # The paper's model FLOPs (its eq. 7): 72 B L s h^2 (1 + s/6h + V/12hL).
            s, l, h, v = SEQ, layers, hidden, VOCAB
            flops = 72.0 * batch * l * s * h * h * (1 + s / (6.0 * h) + v / (12.0 * h * l))
            mfu = 100 * flops / step['step_seconds'] / gpus / 312e12
            rows.append({'batch': batch, 'layout': what, 'published_mfu': published,
                         'predicted_mfu': mfu, 'step_seconds': step['step_seconds'],
                         'memory_bytes': step['memory_bytes']})
            print('%-5d %-40s %8.1f%% %8.1f%% %+6.1f%% %6.1f GiB' % (
                batch, what, published, mfu, 100 * (mfu / published - 1),
                step['memory_bytes'] / 2.0 ** 30), flush=True)
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'mfu_530b': rows}, f, indent=2)


def memory(args, model_tool, compile_tool):
    """Per layer and sequence, the activation bytes tpc plans (the
    difference between 8 and 4 layers of the model, tp 8, micro-batch 1,
    fp16) against the paper's Table 2."""
    work = args.work_dir or tempfile.mkdtemp(prefix='planner_published.')
    os.makedirs(work, exist_ok=True)
    print('%-6s %-6s %12s %12s %7s' % ('model', 'layout', 'paper (MB)', 'tpc (MB)', 'error'))
    rows = []
    for name, heads, hidden, _ in KORTHIKANTI:
        report = {}
        for layers in (4, 8):
            model = os.path.join(work, 'k-%s-%d.mlir' % (name, layers))
            run([model_tool, 'gpt2', '--layers', str(layers), '--hidden', str(hidden),
                 '--heads', str(heads), '--vocab', str(VOCAB), '--seq', str(SEQ),
                 '--dropout', DROPOUT, '-o', model])
            for sp in (False, True):
                out = json.loads(run([compile_tool, model, '--tp', str(TP), '--seq', str(SEQ),
                                      '--micro-batch', '1', '--precision', 'fp16',
                                      '--report=json'] + (['--sequence-parallel'] if sp else [])))
                report[layers, sp] = out['rank']['memory_bytes']
        per_layer = {
            'tp': (report[8, False]['activations'] - report[4, False]['activations']) / 4,
            'tp+sp': (report[8, True]['activations'] - report[4, True]['activations']) / 4,
            'full': (report[8, False]['recompute_kept'] - report[4, False]['recompute_kept']) / 4,
        }
        for layout, tpc in per_layer.items():
            paper = korthikanti_bytes(hidden, heads, layout)
            rows.append({'model': name, 'layout': layout, 'paper_bytes': paper, 'tpc_bytes': tpc,
                         'error': tpc / paper - 1})
            print('%-6s %-6s %12.1f %12.1f %+6.1f%%' % (name, layout, paper / 1e6, tpc / 1e6,
                                                       100 * (tpc / paper - 1)), flush=True)
    mean = sum(abs(r['error']) for r in rows) / len(rows)
    print('mean |error| %.1f%% over %d rows' % (100 * mean, len(rows)))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'memory_rows': rows, 'mean_abs_error': mean}, f, indent=2)


if __name__ == '__main__':
    main()
