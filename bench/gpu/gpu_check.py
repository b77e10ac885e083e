#!/usr/bin/env python3
"""The CUDA backend's check on a GPU machine; started by gpu-check.sh.

Prints one table: the backend conformance suite on the GPU (every kernel
against naive references, per storage type), parity of tiny models against
the CPU backend in the same run (eval loss, 3 AdamW steps, dropout, greedy
decoding), the GPT-2 124M bf16 training step at T 1024 against PyTorch eager
with autocast, and GPT-2 124M decoding at batch 1. Logs go to
$TPC_CHECK_OUT. Stdlib only, so that it runs under any python3.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get('TPC_CHECK_OUT', os.path.join(HERE, 'out'))
LIBS = os.environ.get('TPC_RUN_LIBRARY_PATH', os.path.join(HERE, 'lib'))
PEAK = 989e12  # H200 dense bf16, the datasheet's figure
# The backend under check. TPC_CHECK_BACKEND=cpu is a dry run of this script
# on a machine without a GPU: the same steps on tiny programs, the CPU
# against itself, no PyTorch.
BACKEND = os.environ.get('TPC_CHECK_BACKEND', 'cuda')
DRY = BACKEND != 'cuda'
rows = []      # (section, item, result, verdict)
started = time.time()


def log_path(name):
    return os.path.join(OUT, name)


def run(cmd, timeout, name, tpc=True):
    """(returncode, stdout, stderr); both streams also go to OUT/name.log."""
    env = dict(os.environ)
    if tpc:
        env['LD_LIBRARY_PATH'] = LIBS + (':' + env['LD_LIBRARY_PATH']
                                         if env.get('LD_LIBRARY_PATH') else '')
        env.setdefault('OMP_NUM_THREADS', '8')
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=HERE, env=env, capture_output=True,
                           text=True, timeout=timeout)
        rc, so, se = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc = 124
        so = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or '')
        se = (e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or '')) + \
            '\n[timed out after %d s]' % timeout
    with open(log_path(name + '.log'), 'w') as f:
        f.write('$ %s\n[rc %d, %.1f s]\n--- stdout\n%s\n--- stderr\n%s\n' %
                (' '.join(cmd), rc, time.time() - t0, so, se))
    return rc, so, se


def tpc(prog, *args, backend='cpu', name, timeout=120):
    cmd = ['bin/tpc-run', 'progs/%s.tpc' % prog, '--backend', backend] + list(args)
    return run(cmd, timeout, name)


def last_error(se):
    lines = [l for l in se.strip().splitlines() if l.strip()]
    return lines[-1][:160] if lines else '(no message)'


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-30)


#===----------------------------------------------------------------------===#
# Device and conformance
#===----------------------------------------------------------------------===#

def device():
    rc, so, se = tpc('gpt2_tiny', 'info', backend=BACKEND, name='info')
    if DRY:
        rows.append(('device', 'dry run on ' + BACKEND, 'rc %d' % rc,
                     'ok' if rc == 0 else 'FAIL'))
        return rc == 0
    lines = [l for l in so.splitlines() if l.startswith('cuda:')]
    for l in lines:
        print(l)
    ok = rc == 0 and any('cuda: device' in l for l in lines)
    rows.append(('device', 'tpc-run info --backend cuda',
                 '; '.join(l[6:] for l in lines[:2]) if lines else last_error(se),
                 'ok' if ok else 'FAIL'))
    return ok


def conformance():
    """Each test in a process of its own: a kernel that faults leaves a
    sticky error in its CUDA context, which would fail every test after it."""
    names = []  # (binary, test)
    for binary, pattern in (('bin/tpc_runtime_tests',
                             '*Conformance*%s*:CudaBackend.*' % BACKEND),
                            ('bin/tpc_exec_tests', 'CudaCollectives.*')):
        rc, so, se = run([binary, '--gtest_list_tests', '--gtest_filter=' + pattern],
                         60, 'conformance_list_' + os.path.basename(binary))
        suite = ''
        for line in so.splitlines():
            if not line.strip():
                continue
            if not line.startswith(' '):
                suite = line.strip()
            else:
                names.append((binary, suite + line.strip().split()[0]))
    if not names:
        rows.append(('conformance', 'tpc_runtime_tests', 'no tests listed (rc %d): %s'
                     % (rc, last_error(se + so)), 'FAIL'))
        return
    groups = {}
    for binary, name in names:
        rc, so, se = run([binary, '--gtest_filter=' + name], 120,
                         'conformance_' + re.sub(r'[^A-Za-z0-9_.-]', '_', name))
        m = re.search(r'%s_(f32|bf16|f16)' % BACKEND, name)
        key = BACKEND + ' ' + m.group(1) if m else name.split('.')[0]
        g = groups.setdefault(key, [0, 0, 0, []])
        if '[  SKIPPED ]' in so:
            g[2] += 1
        elif rc == 0 and '[  PASSED  ] 1 test' in so:
            g[0] += 1
        else:
            g[1] += 1
            g[3].append(name.split('.')[-1].split('/')[0])
    for key in sorted(groups):
        ok, bad, skipped, failed = groups[key]
        text = '%d passed, %d failed, %d skipped' % (ok, bad, skipped)
        if failed:
            text += ': ' + ', '.join(failed[:8]) + (' ...' if len(failed) > 8 else '')
        # Without a GPU (a dry run) the device's own tests skip.
        verdict = 'ok' if bad == 0 and (ok or DRY) else 'FAIL'
        rows.append(('conformance', key, text, verdict))


#===----------------------------------------------------------------------===#
# Parity with the CPU backend
#===----------------------------------------------------------------------===#

def eval_loss(prog, backend, weights, side):
    rc, so, se = tpc(prog, 'eval', '--data', 'data/tiny.bin', '--load', weights,
                     '--json', '--max-batches', '6', backend=backend,
                     name='eval_%s_%s' % (prog, side))
    if rc != 0:
        return None, last_error(se)
    return json.loads(so.strip().splitlines()[-1])['loss'], ''


def train_losses(prog, backend, weights, side):
    logf = log_path('train_%s_%s.jsonl' % (prog, side))
    if os.path.exists(logf):
        os.remove(logf)
    rc, so, se = tpc(prog, 'train', '--data', 'data/tiny.bin', '--load', weights,
                     '--steps', '3', '--lr', '1e-3', '--schedule', 'constant',
                     '--log', logf, '--plot', 'none', '--progress', 'lines',
                     backend=backend, name='train_%s_%s' % (prog, side))
    if rc != 0:
        return None, last_error(se)
    with open(logf) as f:
        steps = [json.loads(l) for l in f if l.strip()]
    return [(s['loss'], s['grad_norm']) for s in steps], ''


def greedy_ids(prog, backend, weights, side):
    rc, so, se = tpc(prog, 'generate', '--load', weights, '--prompt-ids',
                     '5,17,300,42', '--tokens', '12', '--temperature', '0',
                     '--tokenizer', 'bytes', '--logits',
                     log_path('logits_%s_%s.bin' % (prog, side)),
                     backend=backend, name='generate_%s_%s' % (prog, side))
    if rc != 0:
        return None, last_error(se)
    return so.strip(), ''


def parity():
    cases = [('gpt2_tiny', 1e-5, 1e-4), ('stag_tiny', 1e-5, 1e-4),
             ('stag3_shared', 1e-5, 1e-4), ('llama_tiny', 1e-5, 1e-4),
             ('gpt2_tiny_dropout', 1e-5, 1e-4), ('gpt2_tiny_bf16', 2e-2, 2e-2)]
    for prog, eval_tol, train_tol in cases:
        weights = log_path('%s.safetensors' % prog)
        rc, so, se = tpc(prog, 'init', '--save', weights, '--seed', '7',
                         name='init_' + prog)
        if rc != 0:
            rows.append(('parity', prog, 'init failed: ' + last_error(se), 'FAIL'))
            continue
        cpu, err_c = eval_loss(prog, 'cpu', weights, 'ref')
        gpu, err_g = eval_loss(prog, BACKEND, weights, 'dev')
        if cpu is None or gpu is None:
            rows.append(('parity', prog + ' eval', err_g or err_c, 'FAIL'))
        else:
            d = rel(gpu, cpu)
            rows.append(('parity', prog + ' eval loss',
                         'cpu %.7f, %s %.7f, rel %.1e (<= %.0e)' % (cpu, BACKEND, gpu, d, eval_tol),
                         'ok' if d <= eval_tol else 'FAIL'))
        tc, err_c = train_losses(prog, 'cpu', weights, 'ref')
        tg, err_g = train_losses(prog, BACKEND, weights, 'dev')
        if tc is None or tg is None or len(tc) != len(tg):
            rows.append(('parity', prog + ' 3 AdamW steps', err_g or err_c or
                         'step counts differ', 'FAIL'))
        else:
            worst = max(max(rel(g[0], c[0]), rel(g[1], c[1])) for c, g in zip(tc, tg))
            rows.append(('parity', prog + ' 3 AdamW steps (loss, grad norm)',
                         'last loss cpu %.6f, %s %.6f; worst rel %.1e (<= %.0e)'
                         % (tc[-1][0], BACKEND, tg[-1][0], worst, train_tol),
                         'ok' if worst <= train_tol else 'FAIL'))
        if prog in ('gpt2_tiny', 'stag_tiny', 'llama_tiny', 'gpt2_tiny_bf16'):
            ic, err_c = greedy_ids(prog, 'cpu', weights, 'ref')
            ig, err_g = greedy_ids(prog, BACKEND, weights, 'dev')
            same = ic is not None and ic == ig
            rows.append(('parity', prog + ' greedy decoding',
                         ('identical ids' if same else 'cpu [%s] %s [%s]' %
                          (ic, BACKEND, ig if ig is not None else err_g)),
                         'ok' if same else 'FAIL'))


#===----------------------------------------------------------------------===#
# Speed
#===----------------------------------------------------------------------===#

def bench_train():
    for b in ((4,) if DRY else (48, 32, 16, 8, 4)):
        prog = 'gpt2_tiny_bf16' if DRY else 'gpt2_124m_bf16_b%d' % b
        data = 'data/tiny.bin' if DRY else 'data/gpt2.bin'
        logf = log_path('bench_%s.jsonl' % prog)
        rc, so, se = tpc(prog, 'train', '--data', data, '--steps', '10',
                         '--log', logf, '--plot', 'none', '--progress', 'lines',
                         '--peak-flops', str(PEAK), backend=BACKEND,
                         name='bench_' + prog, timeout=240)
        if rc != 0:
            if 'out of memory' in se:
                continue
            rows.append(('train step', 'GPT-2 124M bf16 T 1024 B %d' % b,
                         'tpc failed: ' + last_error(se), 'FAIL'))
            return
        with open(logf) as f:
            steps = [json.loads(l) for l in f if l.strip()]
        steady = steps[3:] or steps
        tps = statistics.median(s['tokens_per_s'] for s in steady)
        mfu = statistics.median(s.get('mfu', 0.0) for s in steady)
        ref, se = None, 'dry run'
        if not DRY:
            rc, so, se = run(['python3', 'torch_reference.py', 'train', '--batch',
                              str(b), '--seq', '1024', '--steps', '10', '--warmup', '3',
                              '--peak-flops', str(PEAK)], 300, 'bench_torch_b%d' % b,
                             tpc=False)
            if rc == 0 and so.strip():
                ref = json.loads(so.strip().splitlines()[-1])
        text = 'tpc %.0f tokens/s, MFU %.1f%%' % (tps, 100 * mfu)
        if ref:
            text += '; PyTorch eager + autocast %.0f tokens/s, MFU %.1f%%; ratio %.2fx' % (
                ref['tokens_per_s'], 100 * ref['mfu'], tps / ref['tokens_per_s'])
        else:
            text += '; PyTorch failed: ' + last_error(se)
        verdict = 'ok' if mfu >= 0.40 and ref and tps >= ref['tokens_per_s'] else 'below target'
        rows.append(('train step', '%s B %d (largest that fits)' % (
                     prog if DRY else 'GPT-2 124M bf16 T 1024', b), text, verdict))
        return
    rows.append(('train step', 'GPT-2 124M bf16 T 1024', 'no micro-batch fits', 'FAIL'))


def bench_decode():
    prompt = ','.join(str(i) for i in range(100, 116))
    progs = ('gpt2_tiny',) if DRY else ('gpt2_124m_decode', 'gpt2_124m_decode_bf16')
    for prog in progs:
        rc, so, se = tpc(prog, 'generate', '--prompt-ids', prompt, '--tokens',
                         '32' if DRY else '128', '--temperature', '0', '--tokenizer',
                         'bytes', backend=BACKEND,
                         name='decode_' + prog, timeout=240)
        m = re.search(r'then ([0-9.]+) ms per token', se)
        if rc != 0 or not m:
            rows.append(('decode', prog, 'failed: ' + last_error(se), 'FAIL'))
            continue
        ms = float(m.group(1))
        rows.append(('decode', prog if DRY else 'GPT-2 124M batch 1, %s' % (
                     'bf16' if 'bf16' in prog else 'fp32'),
                     'tpc %.2f ms per token (%.0f tokens/s)' % (ms, 1e3 / ms), 'measured'))
    if DRY:
        return
    rc, so, se = run(['python3', 'torch_reference.py', 'decode', '--tokens', '128',
                      '--prompt', '16'], 240, 'decode_torch', tpc=False)
    if rc == 0 and so.strip():
        ref = json.loads(so.strip().splitlines()[-1])
        rows.append(('decode', 'GPT-2 124M batch 1, PyTorch eager fp32',
                     '%.2f ms per token (%.0f tokens/s)' % (ref['ms_per_token'],
                                                           ref['tokens_per_s']),
                     'reference'))


def main():
    os.makedirs(OUT, exist_ok=True)
    if device():
        for section in (conformance, parity, bench_train, bench_decode):
            t0 = time.time()
            section()
            print('[%s: %.0f s]' % (section.__name__, time.time() - t0), flush=True)
    table = ['| section | item | result | verdict |', '|---|---|---|---|']
    table += ['| %s | %s | %s | %s |' % r for r in rows]
    table.append('')
    table.append('World size 1: NCCL runs with one rank on this one GPU; tensor '
                 'parallelism across GPUs is exercised only up to that, and parity '
                 'across tp is checked on the CPU backend. %.0f s in all.'
                 % (time.time() - started))
    text = '\n'.join(table)
    print(text)
    with open(log_path('table.md'), 'w') as f:
        f.write(text + '\n')
    return 0 if all(r[3] in ('ok', 'measured', 'reference', 'below target')
                    for r in rows) and rows else 1


if __name__ == '__main__':
    sys.exit(main())
