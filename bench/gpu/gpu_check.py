#!/usr/bin/env python3
"""The CUDA backend's check on a GPU machine; started by gpu-check.sh.

Prints one table: the backend conformance suite on the GPU (every kernel
against naive references, per storage type), parity of tiny models against
the CPU backend in the same run (eval loss, 3 AdamW steps, dropout, greedy
decoding), on machines with two GPUs and mpirun tensor and pipeline
parallelism over NCCL against MPI on the CPU, the GPT-2 124M bf16 training step at T 1024 against PyTorch eager
with autocast, and GPT-2 124M decoding at batch 1.

The machine is lent for minutes, so the check keeps to one deadline
($TPC_CHECK_DEADLINE seconds from $TPC_CHECK_STARTED, 420 by default): a
step that would not fit in what is left is skipped with a line saying so,
and every row is printed (and table.md rewritten) as soon as it is known,
so that a run killed at its limit still shows what it measured. Logs go to
a local folder ($TPC_CHECK_LOGS); at the end $TPC_CHECK_OUT holds exactly
two files: table.md and logs.tar.gz, every log compressed. Stdlib only, so
that it runs under any python3.
"""
import array
import io
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get('TPC_CHECK_OUT', os.path.join(HERE, 'out'))
LOGS = os.environ.get('TPC_CHECK_LOGS', os.path.join(HERE, 'logs'))
WORK = os.path.join(HERE, 'work')  # weights: inputs, not evidence
LIBS = os.environ.get('TPC_RUN_LIBRARY_PATH', os.path.join(HERE, 'lib'))
PEAK = 989e12  # H200 dense bf16, the datasheet's figure
# The backend under check. TPC_CHECK_BACKEND=cpu is a dry run of this script
# on a machine without a GPU: the same steps on tiny programs, the CPU
# against itself, no PyTorch.
BACKEND = os.environ.get('TPC_CHECK_BACKEND', 'cuda')
DRY = BACKEND != 'cuda'
TABLE = 'table.md'
ARCHIVE = 'logs.tar.gz'
# What travels back from the GPU machine: files of at most 16 MiB.
ARCHIVE_LIMIT = 15 << 20
# Time kept at the end for the table and the archive.
RESERVE_S = 10
# The tiny parity models' vocabulary (gpu-bundle.sh builds them so).
TINY_VOCAB = 512
# bf16 keeps 8 significant bits (a relative step of 2^-8), and the two
# backends round each GEMM, norm and residual to bf16 after sums taken in
# different orders: logits that differ by 2^-5 of the row's largest |logit|
# are ordinary bf16 noise. Greedy ids are compared only where the CPU's
# top-2 margin, in those units, exceeds it.
BF16_MARGIN = 2.0 ** -5


class Deadline:
    """One deadline for the whole check, less RESERVE_S for its end."""

    def __init__(self, started, seconds, reserve=RESERVE_S):
        self.end = started + seconds - reserve

    def left(self):
        return self.end - time.time()

    def allows(self, need):
        return self.left() >= need

    def timeout(self, want):
        """A step's time limit: what it asks, within what is left."""
        return max(1.0, min(float(want), self.left()))


deadline = Deadline(float(os.environ.get('TPC_CHECK_STARTED') or time.time()),
                    float(os.environ.get('TPC_CHECK_DEADLINE') or 420))
started = time.time()
rows = []      # (section, item, result, verdict)
PASSING = ('ok', 'measured', 'reference', 'below target')
# A row this machine cannot run by its hardware (the two-rank section on one
# GPU): stated, and neither a pass nor a failure of the backend.
NOT_APPLICABLE = 'not applicable'


def row_text(r):
    return '| %s | %s | %s | %s |' % r


def table_text(final):
    lines = ['| section | item | result | verdict |', '|---|---|---|---|']
    lines += [row_text(r) for r in rows]
    lines.append('')
    if not final:
        lines.append('(in progress: the check has not ended)')
        return '\n'.join(lines)
    lines.append('The single-GPU sections run at world size 1, where NCCL is never '
                 'loaded (a group of one rank needs no communicator); NCCL runs '
                 'only in the two-ranks section, on a machine with two GPUs and '
                 'mpirun. %.0f s in all.' % (time.time() - started))
    lines.append('verdict: ' + verdict_of(rows))
    return '\n'.join(lines)


def verdict_of(rows):
    failed = sum(r[3] not in PASSING + ('skipped', NOT_APPLICABLE)
                 for r in rows)
    skipped = sum(r[3] == 'skipped' for r in rows)
    if failed or not rows:
        return 'FAIL (%d rows failed)' % failed
    if skipped:
        return 'INCOMPLETE (%d rows skipped at the deadline)' % skipped
    return 'PASS'


def write_table(final):
    path = os.path.join(OUT, TABLE)
    with open(path + '.part', 'w') as f:
        f.write(table_text(final) + '\n')
    os.replace(path + '.part', path)


def add_row(section, item, result, verdict):
    rows.append((section, item, result, verdict))
    print(row_text(rows[-1]), flush=True)
    write_table(final=False)


def step_allowed(section, item, need):
    """False, with a line and a row saying so, when the step would not fit."""
    if deadline.allows(need):
        return True
    why = '%.0f s left before the deadline, needs about %d s' % (
        max(0.0, deadline.left()), need)
    print('[skipped: %s %s: %s]' % (section, item, why), flush=True)
    add_row(section, item, 'skipped: ' + why, 'skipped')
    return False


def log_path(name):
    return os.path.join(LOGS, name)


def run(cmd, timeout, name, tpc=True, extra_env=None):
    """(returncode, stdout, stderr); both streams also go to LOGS/name.log.
    The time limit is `timeout` within what the deadline leaves."""
    env = dict(os.environ)
    env.update(extra_env or {})
    if tpc:
        env['LD_LIBRARY_PATH'] = LIBS + (':' + env['LD_LIBRARY_PATH']
                                         if env.get('LD_LIBRARY_PATH') else '')
        env.setdefault('OMP_NUM_THREADS', '8')
    limit = deadline.timeout(timeout)
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=HERE, env=env, capture_output=True,
                           text=True, timeout=limit)
        rc, so, se = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc = 124
        so = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or '')
        se = (e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or '')) + \
            '\n[timed out after %.0f s]' % limit
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


def slug(text):
    return re.sub(r'[^A-Za-z0-9_.-]', '_', text)


#===----------------------------------------------------------------------===#
# Device and conformance
#===----------------------------------------------------------------------===#

def device():
    rc, so, se = tpc('gpt2_tiny', 'info', backend=BACKEND, name='info', timeout=60)
    if DRY:
        add_row('device', 'dry run on ' + BACKEND, 'rc %d' % rc,
                'ok' if rc == 0 else 'FAIL')
        return rc == 0
    lines = [l for l in so.splitlines() if l.startswith('cuda:')]
    for l in lines:
        print(l)
    ok = rc == 0 and any('cuda: device' in l for l in lines)
    add_row('device', 'tpc-run info --backend cuda',
            '; '.join(l[6:] for l in lines[:2]) if lines else last_error(se),
            'ok' if ok else 'FAIL')
    return ok


_RESULT = re.compile(r'^\[\s*(OK|FAILED|SKIPPED)\s*\] ([^\s,]+)', re.M)


def gtest_status(stdout, names):
    """name -> 'passed', 'failed', 'skipped' or 'unfinished' (crashed, timed
    out or never reached) from a gtest run's output."""
    seen = {}
    for word, name in _RESULT.findall(stdout):
        seen.setdefault(name, set()).add(word)
    status = {}
    for n in names:
        words = seen.get(n, set())
        status[n] = ('failed' if 'FAILED' in words else
                     'skipped' if 'SKIPPED' in words else
                     'passed' if 'OK' in words else 'unfinished')
    return status


def failure_lines(stdout, stderr, name, limit=40):
    """What a test printed between its start and its result (the assertion
    lines, or why it skipped); all it printed, and stderr's end, if it never
    finished."""
    lines = stdout.splitlines()
    start = next((i for i, l in enumerate(lines)
                  if l.startswith('[ RUN') and l.split()[-1] == name), None)
    if start is None:
        body, ended = [], False
    else:
        body, ended = [], False
        for l in lines[start + 1:]:
            if _RESULT.match(l) and _RESULT.match(l).group(2) == name:
                ended = True
                break
            body.append(l)
    if not ended:
        body += [l for l in stderr.strip().splitlines()][-10:]
    if len(body) > limit:
        body = body[:limit] + ['... (%d more lines in the log)' % (len(body) - limit)]
    return body


def group_tests(names, backend):
    """[(binary, test)] -> {row name: (binary, [tests])}: one process per
    storage type of the conformance suite, one per other suite."""
    groups = {}
    for binary, name in names:
        m = re.search(r'/%s_(f32|bf16|f16)' % backend, name)
        key = backend + ' ' + m.group(1) if m else name.split('.')[0]
        groups.setdefault(key, (binary, []))[1].append(name)
    return groups


def list_tests():
    names = []  # (binary, test)
    for binary, pattern in (('bin/tpc_runtime_tests',
                             '*Conformance*%s*:CudaBackend.*' % BACKEND),
                            ('bin/tpc_exec_tests', 'CudaCollectives.*')):
        rc, so, se = run([binary, '--gtest_list_tests', '--gtest_filter=' + pattern],
                         60, 'conformance_list_' + os.path.basename(binary))
        suite = ''
        for line in so.splitlines():
            if not line.strip() or line.startswith('Running main()'):
                continue
            if not line.startswith(' '):
                suite = line.strip()
            else:
                names.append((binary, suite + line.strip().split()[0]))
    return names, rc, so + se


def cpu_counterpart(name):
    """The CPU backend's instances of a conformance test of the device
    ('.../cuda_bf16' -> '.../cpu_bf16*'); None for other tests."""
    m = re.match(r'(.*/)%s_(f32|bf16|f16)(_[a-z]+)?$' % BACKEND, name)
    return m and '%scpu_%s*' % (m.group(1), m.group(2))


def skipped_as_on_cpu(dev_out, cpu_out, skipped):
    """The device tests in `skipped` that a CPU instance (in `cpu_out`)
    skips too, at the same line with the same message: the test does not
    apply to that storage type, so the skip is the test's, not the
    device's."""
    ran = set(re.findall(r'^\[ RUN\s*\] (\S+)', cpu_out, re.M))
    found = set()
    for t in skipped:
        pattern = cpu_counterpart(t)
        if not pattern:
            continue
        why = failure_lines(dev_out, '', t)
        cpu = [n for n in ran if n.startswith(pattern.rstrip('*'))]
        if any(gtest_status(cpu_out, [n])[n] == 'skipped' and
               failure_lines(cpu_out, '', n) == why for n in cpu):
            found.add(t)
    return found


def skips_by_design(binary, group_out, skipped):
    patterns = [p for p in map(cpu_counterpart, skipped) if p]
    if not patterns:
        return set()
    rc, so, se = run([binary, '--gtest_filter=' + ':'.join(patterns)], 60,
                     'conformance_cpu_skips')
    return skipped_as_on_cpu(group_out, so, skipped)


GROUP_NEED_S = 20  # one group's process
ONE_NEED_S = 5     # one test alone


def conformance():
    """One process per group; a test that did not pass alone is run again
    by itself, because a kernel that faults leaves a sticky error in its
    CUDA context that fails every test after it in that process. On a GPU a
    skipped test is a failure (the device is there to be tested) unless the
    CPU backend skips it too, for the same storage type and reason."""
    names, rc, text = list_tests()
    if not names:
        add_row('conformance', 'tpc_runtime_tests', 'no tests listed (rc %d): %s'
                % (rc, last_error(text)), 'FAIL')
        return
    for key, (binary, tests) in sorted(group_tests(names, BACKEND).items()):
        if not step_allowed('conformance', key, GROUP_NEED_S):
            continue
        rc, so, se = run([binary, '--gtest_filter=' + ':'.join(tests)], 300,
                         'conformance_' + slug(key))
        status = gtest_status(so, tests)
        # Without a GPU (a dry run) the device's own tests skip; with one, a
        # skip fails unless the CPU makes it too.
        skipped = [t for t in tests if status[t] == 'skipped']
        allowed = set(skipped) if DRY else skips_by_design(binary, so, skipped)
        again = [t for t in tests if status[t] != 'passed' and t not in allowed]
        details = {}
        for t in again:
            if not deadline.allows(ONE_NEED_S):
                status[t] = 'unfinished'
                details[t] = ['not run alone: the deadline is near']
                continue
            rc1, so1, se1 = run([binary, '--gtest_filter=' + t], 120,
                                'conformance_' + slug(t))
            status[t] = gtest_status(so1, [t])[t]
            if status[t] != 'passed':
                details[t] = failure_lines(so1, se1, t)
        count = {s: sum(v == s for v in status.values())
                 for s in ('passed', 'failed', 'unfinished', 'skipped')}
        bad = [t for t in tests if status[t] in ('failed', 'unfinished') or
               (status[t] == 'skipped' and t not in allowed)]
        for t in bad:
            print('%s %s:' % (status[t].upper(), t))
            for l in details.get(t, []):
                print('    ' + l)
        text = '%d passed, %d failed, %d skipped' % (
            count['passed'], count['failed'] + count['unfinished'], count['skipped'])
        if allowed and not DRY:
            text += ' (%d as the CPU skips them too)' % len(allowed)
        if count['skipped'] > len(allowed):
            text += ' (a skip fails on a GPU)'
        if again:
            text += ' (%d run again alone)' % len(again)
        if bad:
            short = [t.split('.')[-1].split('/')[0] for t in bad]
            text += ': ' + ', '.join(short[:8]) + (' ...' if len(short) > 8 else '')
        verdict = 'ok' if not bad and (count['passed'] or DRY) else 'FAIL'
        add_row('conformance', key, text, verdict)


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


PROMPT_IDS = (5, 17, 300, 42)


def logits_path(prog, side):
    return log_path('logits_%s_%s.bin' % (prog, side))


def greedy_ids(prog, backend, weights, side):
    rc, so, se = tpc(prog, 'generate', '--load', weights, '--prompt-ids',
                     ','.join(map(str, PROMPT_IDS)), '--tokens', '12',
                     '--temperature', '0', '--tokenizer', 'bytes', '--logits',
                     logits_path(prog, side),
                     backend=backend, name='generate_%s_%s' % (prog, side))
    if rc != 0:
        return None, last_error(se)
    return [int(t) for t in so.split()], ''


def top2_margins(data, vocab):
    """Per row of little-endian float32 logits [rows, vocab]: (largest -
    second largest) / max(1, largest |logit|)."""
    values = array.array('f')
    values.frombytes(data[:len(data) // (4 * vocab) * 4 * vocab])
    if sys.byteorder != 'little':
        values.byteswap()
    margins = []
    for r in range(len(values) // vocab):
        row = values[r * vocab:(r + 1) * vocab]
        first, second = sorted(row, reverse=True)[:2]
        scale = max(1.0, max(abs(first), abs(min(row))))
        margins.append((first - second) / scale)
    return margins


def greedy_verdict(ref, dev, prompt_len, margins=None, tol=None):
    """(ok, text) for greedy ids `dev` against the CPU's `ref` (prompt and
    new ids). tol None: exact. Else margins[r] is the CPU's top-2 margin of
    logits row r, which chose the id at r + 1; an id may differ only where
    that margin is at most tol (a near tie), and after the first such
    difference the two continue from different tokens, so the rest is not
    compared."""
    if tol is None or ref[:prompt_len] != dev[:prompt_len]:
        if ref == dev:
            return True, 'identical ids'
        return False, 'cpu [%s] %s [%s]' % (' '.join(map(str, ref)), BACKEND,
                                            ' '.join(map(str, dev)))
    new = len(ref) - prompt_len
    for pos in range(prompt_len, max(len(ref), len(dev))):
        m = margins[pos - 1] if pos - 1 < len(margins) else None
        same = pos < len(ref) and pos < len(dev) and ref[pos] == dev[pos]
        if same:
            continue
        where = 'new token %d' % (pos - prompt_len + 1)
        if m is None or m > tol:
            return False, ('%s differs (cpu %s, %s %s) where the cpu\'s top-2 '
                           'margin %s > %.1e' % (
                               where, ref[pos] if pos < len(ref) else 'none',
                               BACKEND, dev[pos] if pos < len(dev) else 'none',
                               'is unknown' if m is None else '%.1e' % m, tol))
        return True, ('ids agree up to %s, a near tie (cpu top-2 margin %.1e '
                      '<= %.1e); not compared after it' % (where, m, tol))
    close = sum(1 for pos in range(prompt_len, len(ref))
                if pos - 1 < len(margins) and margins[pos - 1] <= tol)
    text = 'identical ids'
    if close:
        text += ' (%d of %d new tokens near ties, cpu top-2 margin <= %.1e)' % (
            close, new, tol)
    return True, text


PARITY_NEED_S = 25  # one model: init, eval, train and decode on both sides


def parity():
    cases = [('gpt2_tiny', 1e-5, 1e-4), ('stag_tiny', 1e-5, 1e-4),
             ('stag3_shared', 1e-5, 1e-4), ('llama_tiny', 1e-5, 1e-4),
             ('gpt2_tiny_dropout', 1e-5, 1e-4), ('gpt2_tiny_bf16', 2e-2, 2e-2)]
    os.makedirs(WORK, exist_ok=True)
    for prog, eval_tol, train_tol in cases:
        if not step_allowed('parity', prog, PARITY_NEED_S):
            continue
        weights = os.path.join(WORK, '%s.safetensors' % prog)
        rc, so, se = tpc(prog, 'init', '--save', weights, '--seed', '7',
                         name='init_' + prog)
        if rc != 0:
            add_row('parity', prog, 'init failed: ' + last_error(se), 'FAIL')
            continue
        cpu, err_c = eval_loss(prog, 'cpu', weights, 'ref')
        gpu, err_g = eval_loss(prog, BACKEND, weights, 'dev')
        if cpu is None or gpu is None:
            add_row('parity', prog + ' eval', err_g or err_c, 'FAIL')
        else:
            d = rel(gpu, cpu)
            add_row('parity', prog + ' eval loss',
                    'cpu %.7f, %s %.7f, rel %.1e (<= %.0e)' % (cpu, BACKEND, gpu, d, eval_tol),
                    'ok' if d <= eval_tol else 'FAIL')
        tc, err_c = train_losses(prog, 'cpu', weights, 'ref')
        tg, err_g = train_losses(prog, BACKEND, weights, 'dev')
        if tc is None or tg is None or len(tc) != len(tg):
            add_row('parity', prog + ' 3 AdamW steps', err_g or err_c or
                    'step counts differ', 'FAIL')
        else:
            worst = max(max(rel(g[0], c[0]), rel(g[1], c[1])) for c, g in zip(tc, tg))
            add_row('parity', prog + ' 3 AdamW steps (loss, grad norm)',
                    'last loss cpu %.6f, %s %.6f; worst rel %.1e (<= %.0e)'
                    % (tc[-1][0], BACKEND, tg[-1][0], worst, train_tol),
                    'ok' if worst <= train_tol else 'FAIL')
        if prog in ('gpt2_tiny', 'stag_tiny', 'llama_tiny', 'gpt2_tiny_bf16'):
            ic, err_c = greedy_ids(prog, 'cpu', weights, 'ref')
            ig, err_g = greedy_ids(prog, BACKEND, weights, 'dev')
            if ic is None or ig is None:
                add_row('parity', prog + ' greedy decoding', err_c or err_g, 'FAIL')
                continue
            tol, margins = None, None
            if 'bf16' in prog:
                tol = BF16_MARGIN
                with open(logits_path(prog, 'ref'), 'rb') as f:
                    margins = top2_margins(f.read(), TINY_VOCAB)
            ok, text = greedy_verdict(ic, ig, len(PROMPT_IDS), margins, tol)
            add_row('parity', prog + ' greedy decoding', text,
                    'ok' if ok else 'FAIL')


#===----------------------------------------------------------------------===#
# Two ranks: NCCL all-reduce (tp 2) and send/recv (pp 2)
#===----------------------------------------------------------------------===#

RANKS_NEED_S = 40   # two 2-rank trainings of 3 steps per program


def gpu_count():
    if DRY:
        return 2
    try:
        p = subprocess.run(['nvidia-smi', '-L'], capture_output=True, text=True,
                           timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return 0
    return sum(l.startswith('GPU ') for l in p.stdout.splitlines())


def two_ranks():
    """tp 2 and pp 2 trained for 3 steps on the backend and on the CPU,
    both under mpirun -np 2 from the same weights: the NCCL collectives and
    point-to-point messages against MPI's."""
    gpus, mpirun = gpu_count(), shutil.which('mpirun')
    if gpus < 2 or not mpirun:
        why = ('%d GPU%s' % (gpus, '' if gpus == 1 else 's')) if gpus < 2 \
            else 'no mpirun'
        for prog in ('gpt2_tiny_tp2', 'gpt2_tiny_pp2'):
            add_row('two ranks', prog, 'not run: %s on this machine (needs 2 '
                    'GPUs and mpirun)' % why, NOT_APPLICABLE)
        return
    weights = os.path.join(WORK, 'gpt2_tiny_2r.safetensors')
    os.makedirs(WORK, exist_ok=True)
    rc, so, se = tpc('gpt2_tiny', 'init', '--save', weights, '--seed', '7',
                     name='init_two_ranks')
    if rc != 0:
        add_row('two ranks', 'init', 'init failed: ' + last_error(se), 'FAIL')
        return
    launch = [mpirun, '-np', '2', '--oversubscribe']
    # Open MPI refuses root unless told, and a job's session files in a
    # TMPDIR of its own cannot collide with another job's.
    mpi_env = {'TMPDIR': tempfile.mkdtemp(prefix='gpu_check_mpi.')}
    if os.geteuid() == 0:
        mpi_env.update(OMPI_ALLOW_RUN_AS_ROOT='1',
                       OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1')
    for prog in ('gpt2_tiny_tp2', 'gpt2_tiny_pp2'):
        if not step_allowed('two ranks', prog, RANKS_NEED_S):
            continue
        losses = {}
        for side, backend in (('ref', 'cpu'), ('dev', BACKEND)):
            logf = log_path('train_%s_%s.jsonl' % (prog, side))
            if os.path.exists(logf):
                os.remove(logf)
            rc, so, se = run(launch + [
                'bin/tpc-run', 'progs/%s.tpc' % prog, '--backend', backend,
                'train', '--data', 'data/tiny.bin', '--load', weights,
                '--steps', '3', '--lr', '1e-3', '--schedule', 'constant',
                '--log', logf, '--plot', 'none', '--progress', 'lines'],
                180, 'train_%s_%s' % (prog, side), extra_env=mpi_env)
            if rc != 0:
                losses[side] = last_error(se)
                continue
            with open(logf) as f:
                losses[side] = [(s['loss'], s['grad_norm'])
                                for s in (json.loads(l) for l in f if l.strip())]
        ref, dev = losses.get('ref'), losses.get('dev')
        if not isinstance(ref, list) or not isinstance(dev, list) \
                or len(ref) != len(dev) or not ref:
            add_row('two ranks', prog, 'run failed: %s' % (
                dev if isinstance(dev, str) else ref), 'FAIL')
            continue
        worst = max(max(rel(g[0], c[0]), rel(g[1], c[1])) for c, g in zip(ref, dev))
        add_row('two ranks', prog + ' 3 AdamW steps (loss, grad norm)',
                'last loss cpu %.6f, %s %.6f; worst rel %.1e (<= 1e-04)'
                % (ref[-1][0], BACKEND, dev[-1][0], worst),
                'ok' if worst <= 1e-4 else 'FAIL')


#===----------------------------------------------------------------------===#
# Speed
#===----------------------------------------------------------------------===#

TRAIN_NEED_S = 40   # GPT-2 124M: start, 10 steps
TORCH_NEED_S = 60   # PyTorch: import, start, 10 steps


def bench_train():
    for b in ((4,) if DRY else (48, 32, 16, 8, 4)):
        prog = 'gpt2_tiny_bf16' if DRY else 'gpt2_124m_bf16_b%d' % b
        item = '%s B %d' % (prog if DRY else 'GPT-2 124M bf16 T 1024', b)
        if not step_allowed('train step', item, TRAIN_NEED_S):
            return
        data = 'data/tiny.bin' if DRY else 'data/gpt2.bin'
        logf = log_path('bench_%s.jsonl' % prog)
        rc, so, se = tpc(prog, 'train', '--data', data, '--steps', '10',
                         '--log', logf, '--plot', 'none', '--progress', 'lines',
                         '--peak-flops', str(PEAK), backend=BACKEND,
                         name='bench_' + prog, timeout=240)
        if rc != 0:
            if 'out of memory' in se:
                continue
            add_row('train step', item, 'tpc failed: ' + last_error(se), 'FAIL')
            return
        with open(logf) as f:
            steps = [json.loads(l) for l in f if l.strip()]
        steady = steps[3:] or steps
        tps = statistics.median(s['tokens_per_s'] for s in steady)
        mfu = statistics.median(s.get('mfu', 0.0) for s in steady)
        text = 'tpc %.0f tokens/s, MFU %.1f%%' % (tps, 100 * mfu)
        print('[train step: %s: %s]' % (item, text), flush=True)
        ref, se = None, 'dry run'
        if not DRY and deadline.allows(TORCH_NEED_S):
            rc, so, se = run(['python3', 'torch_reference.py', 'train', '--batch',
                              str(b), '--seq', '1024', '--steps', '10', '--warmup', '3',
                              '--peak-flops', str(PEAK)], 300, 'bench_torch_b%d' % b,
                             tpc=False)
            if rc == 0 and so.strip():
                ref = json.loads(so.strip().splitlines()[-1])
        elif not DRY:
            se = 'skipped: %.0f s left before the deadline' % max(0.0, deadline.left())
        if ref:
            text += '; PyTorch eager + autocast %.0f tokens/s, MFU %.1f%%; ratio %.2fx' % (
                ref['tokens_per_s'], 100 * ref['mfu'], tps / ref['tokens_per_s'])
        else:
            text += '; PyTorch: ' + last_error(se)
        verdict = 'ok' if mfu >= 0.40 and ref and tps >= ref['tokens_per_s'] else 'below target'
        add_row('train step', item + ' (largest that fits)', text, verdict)
        return
    add_row('train step', 'GPT-2 124M bf16 T 1024', 'no micro-batch fits', 'FAIL')


DECODE_NEED_S = 30


def bench_decode():
    prompt = ','.join(str(i) for i in range(100, 116))
    progs = ('gpt2_tiny',) if DRY else ('gpt2_124m_decode', 'gpt2_124m_decode_bf16')
    for prog in progs:
        item = prog if DRY else 'GPT-2 124M batch 1, %s' % (
            'bf16' if 'bf16' in prog else 'fp32')
        if not step_allowed('decode', item, DECODE_NEED_S):
            continue
        rc, so, se = tpc(prog, 'generate', '--prompt-ids', prompt, '--tokens',
                         '32' if DRY else '128', '--temperature', '0', '--tokenizer',
                         'bytes', backend=BACKEND,
                         name='decode_' + prog, timeout=240)
        m = re.search(r'then ([0-9.]+) ms per token', se)
        if rc != 0 or not m:
            add_row('decode', item, 'failed: ' + last_error(se), 'FAIL')
            continue
        ms = float(m.group(1))
        add_row('decode', item,
                'tpc %.2f ms per token (%.0f tokens/s)' % (ms, 1e3 / ms), 'measured')
    if DRY:
        return
    item = 'GPT-2 124M batch 1, PyTorch eager fp32'
    if not step_allowed('decode', item, TORCH_NEED_S):
        return
    rc, so, se = run(['python3', 'torch_reference.py', 'decode', '--tokens', '128',
                      '--prompt', '16'], 240, 'decode_torch', tpc=False)
    if rc == 0 and so.strip():
        ref = json.loads(so.strip().splitlines()[-1])
        add_row('decode', item, '%.2f ms per token (%.0f tokens/s)' % (
            ref['ms_per_token'], ref['tokens_per_s']), 'reference')
    else:
        add_row('decode', item, 'PyTorch failed: ' + last_error(se), 'FAIL')


#===----------------------------------------------------------------------===#
# The end: one table, one archive
#===----------------------------------------------------------------------===#

def write_archive(folder, path, limit=ARCHIVE_LIMIT):
    """Every file under `folder` into one tar.gz at `path`, as logs/...; a
    file larger than a cap keeps its head and tail. The cap shrinks until
    the archive fits in `limit` bytes."""
    files = []
    for base, _, names in os.walk(folder):
        files += [os.path.join(base, n) for n in sorted(names)]
    for cap in (2 << 20, 256 << 10, 16 << 10):
        with tarfile.open(path, 'w:gz') as tar:
            for f in files:
                arcname = os.path.join('logs', os.path.relpath(f, folder))
                size = os.path.getsize(f)
                if size <= cap:
                    tar.add(f, arcname)
                    continue
                with open(f, 'rb') as src:
                    head = src.read(cap // 2)
                    src.seek(size - cap // 2)
                    tail = src.read()
                data = head + (b'\n[... %d bytes left out ...]\n' %
                               (size - len(head) - len(tail))) + tail
                info = tarfile.TarInfo(arcname)
                info.size = len(data)
                info.mtime = int(os.path.getmtime(f))
                tar.addfile(info, io.BytesIO(data))
        if os.path.getsize(path) <= limit:
            return cap
    return cap


def finish():
    text = table_text(final=True)
    print(text, flush=True)
    write_table(final=True)
    write_archive(LOGS, os.path.join(OUT, ARCHIVE))


SECTIONS = (('conformance', conformance, GROUP_NEED_S),
            ('parity', parity, PARITY_NEED_S),
            ('two ranks', two_ranks, RANKS_NEED_S),
            ('train step', bench_train, TRAIN_NEED_S),
            ('decode', bench_decode, DECODE_NEED_S))


def main():
    os.makedirs(OUT, exist_ok=True)
    shutil.rmtree(LOGS, ignore_errors=True)
    os.makedirs(LOGS)
    print('| section | item | result | verdict |\n|---|---|---|---|', flush=True)
    # The runner's kill at its limit still leaves the table and the archive.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        if not step_allowed('device', BACKEND, 10) or device():
            # Each section, skipped as a whole when even its first step
            # would not fit; after a failed device, none.
            for name, section, need in SECTIONS:
                if not step_allowed(name, 'every step', need):
                    continue
                t0 = time.time()
                try:
                    section()
                except Exception as e:  # the other sections still run
                    add_row(name, 'error', '%s: %s' % (
                        type(e).__name__, str(e)[:160]), 'FAIL')
                print('[%s: %.0f s]' % (name, time.time() - t0), flush=True)
    finally:
        finish()
    return 0 if verdict_of(rows) == 'PASS' else 1


if __name__ == '__main__':
    sys.exit(main())
