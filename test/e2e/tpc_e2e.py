#!/usr/bin/env python3
"""Helpers of the end-to-end tests (standard library only).

  tokens OUT COUNT VOCAB [--seed S] [--magic M] [--version V] [--truncate]
                                      write an llm.c token file (version 2: uint32 tokens)
  same-loss RTOL A.json B.json ...    every file's "loss" equals the first's within RTOL
  loss-near VALUE TOL A.json          |loss - VALUE| <= TOL (VALUE may be ln:V)
  same-f32 ATOL A.f32 B.f32           raw float32 files agree elementwise within ATOL
  rows-then-differ ATOL V N A.f32 B.f32
                                      logits [T,V] files, every value finite: the first N
                                      rows agree within ATOL, and some later row does not
  same-steps RTOL A.jsonl B.jsonl ...  every log's per-step "loss" equals the first's within RTOL
  same-weights ATOL A.st B.st ...     safetensors files hold the same f32 tensors within ATOL
  same-bytes A.st B.st ...            safetensors files hold the same tensors, byte for byte
  recompute-saves NONE.json FULL.json tpc-compile --report=json of one model without and with
                                      --recompute=full: both plan both arenas, agree on them,
                                      and full recompute's is the smaller
  joined-steps RTOL FULL.jsonl A.jsonl B.jsonl ...
                                      the logs A, B, ... one after another give FULL's steps
                                      (step, tokens) and losses within RTOL (0: identical)
  mfu FLOPS TOKENS PEAK A.jsonl       every step's "mfu" is FLOPS * TOKENS * tokens_per_s /
                                      tokens / PEAK (relative 1e-4)
  header A.st                         print the metadata (key=value) and the tensor names
  losses A.jsonl                      print the per-step losses
  loss-below STEP VALUE A.jsonl       the loss of step STEP (-1: the last) is below VALUE
  stream OUT VOCAB PERIOD COUNT       a token file repeating 0..PERIOD-1
  markov OUT COUNT VOCAB [--chain C] [--seed S]
                                      a learnable token file: each token is followed by one
                                      of two successors fixed by the chain (45% each) or by a
                                      uniformly random token (10%); the seed draws the sample
  curve-band RTOL WINDOW REF.jsonl RUN.jsonl ...
                                      each run's mean loss over every WINDOW consecutive steps
                                      is within RTOL of the reference's over the same steps
  tokens-list OUT T1 T2 ...           a token file holding exactly these tokens
  bigram OUT V ROW:TARGET:LOSS ...    a bigram checkpoint ("table" [V,V]) whose row ROW gives
                                      TARGET the cross-entropy LOSS (the other rows are zero)
  ids-tokens IDS OUT                  a token file of the ids on the first line of IDS
  same-ids REF.json IDS               the first line of IDS holds REF.json's "ids"
                                      (the output of tpc-run generate --prompt-ids)
  greedy LOGITS.f32 V PROMPT IDS      every id IDS generated after a PROMPT-token prompt
                                      is an argmax (within 1e-5) of the logits [T,V] of
                                      the position before it
  patch FILE OFFSET BYTE              overwrite one byte (OFFSET < 0 counts from the end)
  set-token FILE POS ID               overwrite token POS of a version-1 token file
  replace-f64 FILE OLD NEW            replace every little-endian double OLD by NEW (then
                                      reseal a program file)
  edit-st FILE EDIT ...               rewrite a safetensors file: KEY=VALUE sets a metadata
                                      key, -KEY drops it, TENSOR:=X sets every f32 element of
                                      TENSOR to X (names with a * edit every match)
  cut FILE BYTES                      truncate FILE to BYTES bytes
  reseal FILE                         recompute a program file's checksum (after a patch,
                                      to reach the checks behind it)
  png-size A.png                      check the PNG signature and IHDR chunk; print WIDTHxHEIGHT
  screen OUT                          what a terminal shows of OUT (carriage return and
                                      erase-line applied), then the count of rewrites
  rss-ratio MAX A.err B.err           B's 'peak resident memory N MiB per rank' (tpc-run
                                      generate's line) is at most MAX times A's
  wait-for FILE REGEX SECONDS         wait until a line of FILE matches REGEX; fail after
                                      SECONDS (a bound for a loaded machine, not a delay)
"""
import json
import math
import random
import re
import struct
import sys
import time


def loss_of(path):
    with open(path) as f:
        lines = [l for l in f.read().splitlines() if l.startswith('{')]
    if len(lines) != 1:
        sys.exit('%s: expected one JSON line, found %d' % (path, len(lines)))
    return json.loads(lines[0])['loss']


def steps_of(path):
    with open(path) as f:
        return [json.loads(l) for l in f.read().splitlines() if l.startswith('{')]


def tensors_of(path):
    data = open(path, 'rb').read()
    (n,) = struct.unpack('<Q', data[:8])
    header = json.loads(data[8:8 + n])
    out = {}
    for name, info in header.items():
        if name == '__metadata__':
            continue
        begin, end = info['data_offsets']
        raw = data[8 + n + begin:8 + n + end]
        out[name] = struct.unpack('<%df' % (len(raw) // 4), raw)
    return out


def header_of(path):
    data = open(path, 'rb').read()
    (n,) = struct.unpack('<Q', data[:8])
    return json.loads(data[8:8 + n]), data[8 + n:]


def raw_tensors_of(path):
    header, body = header_of(path)
    return {name: body[info['data_offsets'][0]:info['data_offsets'][1]]
            for name, info in header.items() if name != '__metadata__'}


def compare_steps(rtol, ref, run, ref_name, run_name):
    """The largest relative loss difference; exits on a mismatch."""
    if len(run) != len(ref):
        sys.exit('%s: %d steps, %s has %d' % (run_name, len(run), ref_name, len(ref)))
    worst = 0.0
    for a, b in zip(ref, run):
        if a['step'] != b['step'] or a['tokens'] != b['tokens']:
            sys.exit('%s: step %d (%d tokens) differs from %s' % (run_name, b['step'], b['tokens'], ref_name))
        d = abs(a['loss'] - b['loss']) / abs(a['loss'])
        worst = max(worst, d)
        if not d <= rtol:
            sys.exit('%s: step %d loss %.9g differs from %.9g by more than relative %g'
                     % (run_name, b['step'], b['loss'], a['loss'], rtol))
    return worst


def write_tokens(out, tokens):
    data = struct.pack('<256i', *([20240520, 1, len(tokens)] + [0] * 253))
    data += struct.pack('<%dH' % len(tokens), *tokens)
    with open(out, 'wb') as f:
        f.write(data)


def ids_of(path):
    with open(path) as f:
        return [int(x) for x in f.readline().split()]


def value(text):
    return math.log(float(text[3:])) if text.startswith('ln:') else float(text)


def main(argv):
    cmd = argv[0]
    if cmd == 'tokens':
        out, count, vocab = argv[1], int(argv[2]), int(argv[3])
        seed = int(argv[argv.index('--seed') + 1]) if '--seed' in argv else 1
        magic = int(argv[argv.index('--magic') + 1]) if '--magic' in argv else 20240520
        version = int(argv[argv.index('--version') + 1]) if '--version' in argv else 1
        rng = random.Random(seed)
        tokens = [rng.randrange(vocab) for _ in range(count)]
        data = struct.pack('<256i', *([magic, version, count] + [0] * 253))
        data += struct.pack('<%d%s' % (count, 'I' if version == 2 else 'H'), *tokens)
        if '--truncate' in argv:
            data = data[:len(data) - count]
        with open(out, 'wb') as f:
            f.write(data)
    elif cmd == 'same-loss':
        rtol = float(argv[1])
        losses = [(p, loss_of(p)) for p in argv[2:]]
        ref = losses[0][1]
        for path, loss in losses[1:]:
            if not abs(loss - ref) <= rtol * abs(ref):
                sys.exit('%s: loss %.9g differs from %.9g (%s) by more than '
                         'relative %g' % (path, loss, ref, losses[0][0], rtol))
        print('same loss %.9g in %d runs' % (ref, len(losses)))
    elif cmd == 'loss-near':
        want, tol, loss = value(argv[1]), float(argv[2]), loss_of(argv[3])
        if not abs(loss - want) <= tol:
            sys.exit('loss %.9g is not within %g of %.9g' % (loss, tol, want))
        print('loss %.9g within %g of %.9g' % (loss, tol, want))
    elif cmd == 'rss-ratio':
        limit = float(argv[1])
        rss = []
        for p in argv[2:4]:
            m = re.search(r'peak resident memory ([0-9]+) MiB per rank', open(p).read())
            if not m:
                sys.exit('%s: no peak resident memory line' % p)
            rss.append(float(m.group(1)))
        if not rss[1] <= limit * rss[0]:
            sys.exit('%s: %g MiB is more than %g x the %g MiB of %s'
                     % (argv[3], rss[1], limit, rss[0], argv[2]))
        print('%g MiB is %.2f x %g MiB' % (rss[1], rss[1] / rss[0], rss[0]))
    elif cmd == 'same-f32':
        atol = float(argv[1])
        a, b = (open(p, 'rb').read() for p in argv[2:4])
        if len(a) != len(b) or len(a) % 4:
            sys.exit('sizes differ: %d and %d bytes' % (len(a), len(b)))
        x = struct.unpack('<%df' % (len(a) // 4), a)
        y = struct.unpack('<%df' % (len(b) // 4), b)
        worst = max((abs(p - q) for p, q in zip(x, y)), default=0.0)
        if not worst <= atol:
            sys.exit('largest difference %g exceeds %g' % (worst, atol))
        print('%d floats agree within %g' % (len(x), atol))
    elif cmd == 'rows-then-differ':
        atol, width, first = float(argv[1]), int(argv[2]), int(argv[3])
        a, b = (open(p, 'rb').read() for p in argv[4:6])
        if len(a) != len(b) or len(a) % (4 * width):
            sys.exit('sizes differ or are not rows of %d: %d and %d bytes' % (width, len(a), len(b)))
        x = struct.unpack('<%df' % (len(a) // 4), a)
        y = struct.unpack('<%df' % (len(b) // 4), b)
        if not all(math.isfinite(v) for v in x + y):
            sys.exit('a logit is not finite')
        split = first * width
        worst = max((abs(p - q) for p, q in zip(x[:split], y[:split])), default=0.0)
        if not worst <= atol:
            sys.exit('the first %d rows differ by %g > %g' % (first, worst, atol))
        later = max((abs(p - q) for p, q in zip(x[split:], y[split:])), default=0.0)
        if not later > atol:
            sys.exit('the rows after the first %d agree too (within %g)' % (first, later))
        print('the first %d rows agree within %g; later ones differ by up to %g'
              % (first, atol, later))
    elif cmd == 'same-steps':
        rtol = float(argv[1])
        ref = steps_of(argv[2])
        worst = 0.0
        for path in argv[3:]:
            worst = max(worst, compare_steps(rtol, ref, steps_of(path), argv[2], path))
        print('same %d step losses in %d runs (largest relative difference %.3g)'
              % (len(ref), len(argv) - 2, worst))
    elif cmd == 'joined-steps':
        rtol = float(argv[1])
        joined = [s for path in argv[3:] for s in steps_of(path)]
        worst = compare_steps(rtol, steps_of(argv[2]), joined, argv[2], ' + '.join(argv[3:]))
        print('%d steps in %d logs match (largest relative difference %.3g)'
              % (len(joined), len(argv) - 3, worst))
    elif cmd == 'same-bytes':
        ref = raw_tensors_of(argv[1])
        for path in argv[2:]:
            other = raw_tensors_of(path)
            if sorted(other) != sorted(ref):
                sys.exit('%s: tensors differ from %s' % (path, argv[1]))
            for name in ref:
                if ref[name] != other[name]:
                    sys.exit('%s: the bytes of %s differ from %s' % (path, name, argv[1]))
        print('%d tensors byte-identical in %d checkpoints' % (len(ref), len(argv) - 1))
    elif cmd == 'recompute-saves':
        plans = []
        for path in argv[1:3]:
            with open(path) as f:
                memory = json.load(f)['rank']['memory_bytes']
            if not (memory['activations_planned'] and
                    memory['activations_recompute_planned']):
                sys.exit('%s: the report does not plan both modes' % path)
            plans.append((memory['activations'], memory['activations_recompute']))
        if plans[0] != plans[1]:
            sys.exit('the two reports plan different arenas: %s and %s' % (plans[0], plans[1]))
        none, full = plans[0]
        if not full < none:
            sys.exit('full recompute plans %d bytes, not fewer than %d' % (full, none))
        print('train_step arena %d B without recompute, %d B with full recompute' % (none, full))
    elif cmd == 'mfu':
        flops, tokens, peak = float(argv[1]), float(argv[2]), float(argv[3])
        for s in steps_of(argv[4]):
            # tokens_per_s counts the targets; the step's seconds follow.
            seconds = s['tokens'] / s['tokens_per_s']
            want = flops * tokens / seconds / peak
            if not abs(s['mfu'] - want) <= 1e-4 * want:
                sys.exit('step %d: mfu %.9g, expected %.9g' % (s['step'], s['mfu'], want))
        print('mfu agrees with %g FLOPs per token' % flops)
    elif cmd == 'profile':
        # The --profile table of argv[1] against the log argv[2], whose
        # steps from 0-based step argv[3] on were profiled: the rows' ms per
        # step add up to the header's, their shares to 100%, and the header
        # is the mean of those steps' seconds in the log.
        text, first = open(argv[1]).read(), int(argv[3])
        m = re.search(r'^profile of steps? [0-9-]+: ([0-9.]+) ms per step', text, re.M)
        if not m:
            sys.exit('%s: no profile header' % argv[1])
        total = float(m.group(1))
        rows = re.findall(r'^\| ([a-z_]*) \| ([^|]+) \| ([0-9.e+]*) \| ([0-9.]+) \| ([0-9.]+)% \|$',
                          text[m.end():], re.M)
        if len(rows) < 2 or not rows[-1][1].startswith('outside ops'):
            sys.exit('%s: no op rows ending with the time outside ops' % argv[1])
        ms = sum(float(r[3]) for r in rows)
        if not abs(ms - total) <= 0.0005 * len(rows) + 1e-6 * total:
            sys.exit('rows add up to %.4f ms per step, the header says %.4f' % (ms, total))
        share = sum(float(r[4]) for r in rows)
        if not abs(share - 100.0) <= 0.05 * len(rows):
            sys.exit('shares add up to %.2f%%' % share)
        steps = [s for s in steps_of(argv[2]) if s['step'] >= first]
        logged = 1e3 * sum(s['tokens'] / s['tokens_per_s'] for s in steps) / len(steps)
        if not abs(logged - total) <= 1e-3 * total + 0.0005:
            sys.exit('the log gives %.4f ms per step from step %d on, the profile %.4f'
                     % (logged, first, total))
        print('%d rows add up to %.3f ms per step' % (len(rows), total))
    elif cmd == 'header':
        header, _ = header_of(argv[1])
        for key, val in sorted(header.get('__metadata__', {}).items()):
            print('%s=%s' % (key, val))
        for name in sorted(header):
            if name != '__metadata__':
                print(name)
    elif cmd == 'same-weights':
        atol = float(argv[1])
        ref = tensors_of(argv[2])
        worst = 0.0
        for path in argv[3:]:
            other = tensors_of(path)
            if sorted(other) != sorted(ref):
                sys.exit('%s: tensors differ from %s' % (path, argv[2]))
            for name, x in ref.items():
                y = other[name]
                if len(x) != len(y):
                    sys.exit('%s: %s has %d elements, not %d' % (path, name, len(y), len(x)))
                d = max((abs(p - q) for p, q in zip(x, y)), default=0.0)
                worst = max(worst, d)
                if not d <= atol:
                    sys.exit('%s: %s differs by %g > %g' % (path, name, d, atol))
        print('same weights in %d checkpoints (largest difference %.3g)' % (len(argv) - 2, worst))
    elif cmd == 'losses':
        for s in steps_of(argv[1]):
            print('step %d loss %.9g tokens %d' % (s['step'], s['loss'], s['tokens']))
    elif cmd == 'loss-below':
        step, bound = int(argv[1]), float(argv[2])
        loss = steps_of(argv[3])[step]['loss']
        if not loss < bound:
            sys.exit('loss %.9g of step %d is not below %g' % (loss, step, bound))
        print('loss %.9g below %g' % (loss, bound))
    elif cmd == 'markov':
        out, count, vocab = argv[1], int(argv[2]), int(argv[3])
        seed = int(argv[argv.index('--seed') + 1]) if '--seed' in argv else 1
        chain = random.Random(int(argv[argv.index('--chain') + 1]) if '--chain' in argv else 1)
        successors = [(chain.randrange(vocab), chain.randrange(vocab)) for _ in range(vocab)]
        rng = random.Random(seed)
        tokens = [rng.randrange(vocab)]
        while len(tokens) < count:
            u = rng.random()
            if u < 0.9:
                tokens.append(successors[tokens[-1]][u >= 0.45])
            else:
                tokens.append(rng.randrange(vocab))
        write_tokens(out, tokens)
    elif cmd == 'curve-band':
        rtol, window = float(argv[1]), int(argv[2])
        ref = [s['loss'] for s in steps_of(argv[3]) if 'loss' in s]
        if len(ref) < window:
            sys.exit('%s: %d steps, fewer than one window of %d' % (argv[3], len(ref), window))
        worst = 0.0
        for path in argv[4:]:
            run = [s['loss'] for s in steps_of(path) if 'loss' in s]
            if len(run) != len(ref):
                sys.exit('%s: %d steps, the reference %d' % (path, len(run), len(ref)))
            for start in range(0, len(ref) - window + 1, window):
                a = sum(ref[start:start + window]) / window
                b = sum(run[start:start + window]) / window
                d = abs(a - b) / abs(a)
                worst = max(worst, d)
                if not d <= rtol:
                    sys.exit('%s: mean loss of steps %d-%d is %.6g, the reference %.6g '
                             '(relative %.3g > %g)' % (path, start + 1, start + window, b, a, d, rtol))
        print('%d runs within %g of the reference curve (largest relative difference %.3g)'
              % (len(argv) - 4, rtol, worst))
    elif cmd == 'stream':
        out, vocab, period, count = argv[1], int(argv[2]), int(argv[3]), int(argv[4])
        if period > vocab:
            sys.exit('period exceeds the vocabulary')
        write_tokens(out, [i % period for i in range(count)])
    elif cmd == 'tokens-list':
        write_tokens(argv[1], [int(t) for t in argv[2:]])
    elif cmd == 'bigram':
        out, v = argv[1], int(argv[2])
        table = [0.0] * (v * v)
        for spec in argv[3:]:
            row, target, loss = spec.split(':')
            row, target, p = int(row), int(target), math.exp(-float(loss))
            # Logits are log-probabilities: the target gets p, the others
            # share 1 - p, so -log softmax[target] = LOSS.
            for j in range(v):
                table[row * v + j] = math.log(p if j == target else (1 - p) / (v - 1))
        header = json.dumps({'table': {'dtype': 'F32', 'shape': [v, v],
                                       'data_offsets': [0, 4 * v * v]}}).encode()
        header += b' ' * (-len(header) % 8)
        with open(out, 'wb') as f:
            f.write(struct.pack('<Q', len(header)) + header)
            f.write(struct.pack('<%df' % (v * v), *table))
    elif cmd == 'ids-tokens':
        write_tokens(argv[2], ids_of(argv[1]))
    elif cmd == 'same-ids':
        want = json.load(open(argv[1]))['ids']
        got = ids_of(argv[2])
        if want != got:
            sys.exit('%s: ids %s, but %s has %s' % (argv[2], got, argv[1], want))
    elif cmd == 'greedy':
        data = open(argv[1], 'rb').read()
        v, prompt, ids = int(argv[2]), int(argv[3]), ids_of(argv[4])
        logits = struct.unpack('<%df' % (len(data) // 4), data)
        if len(logits) < (len(ids) - 1) * v:
            sys.exit('%s holds %d rows of %d, fewer than the %d positions fed'
                     % (argv[1], len(logits) // v, v, len(ids) - 1))
        for t in range(prompt - 1, len(ids) - 1):
            row = logits[t * v:(t + 1) * v]
            top = max(row)
            if not row[ids[t + 1]] >= top - 1e-5:
                sys.exit('position %d: generated %d (logit %.9g) but the largest '
                         'logit is %.9g (id %d)' % (t, ids[t + 1], row[ids[t + 1]],
                                                    top, row.index(top)))
        print('%d generated ids are the argmax of their logits'
              % (len(ids) - prompt))
    elif cmd == 'patch':
        path, offset, byte = argv[1], int(argv[2]), int(argv[3], 0)
        data = bytearray(open(path, 'rb').read())
        data[offset] = byte
        open(path, 'wb').write(bytes(data))
    elif cmd == 'set-token':
        path, pos, token = argv[1], int(argv[2]), int(argv[3])
        data = bytearray(open(path, 'rb').read())
        data[1024 + 2 * pos:1026 + 2 * pos] = struct.pack('<H', token)
        open(path, 'wb').write(bytes(data))
    elif cmd == 'replace-f64':
        path, old, new = argv[1], float(argv[2]), float(argv[3])
        data = open(path, 'rb').read()
        if struct.pack('<d', old) not in data:
            sys.exit('%s: holds no double %r' % (path, old))
        open(path, 'wb').write(data.replace(struct.pack('<d', old), struct.pack('<d', new)))
    elif cmd == 'edit-st':
        path = argv[1]
        header, body = header_of(path)
        body = bytearray(body)
        meta = header.setdefault('__metadata__', {})
        for edit in argv[2:]:
            if ':=' in edit:
                pattern, x = edit.split(':=')
                names = [n for n in header if n != '__metadata__' and
                         re.fullmatch(re.escape(pattern).replace(r'\*', '.*'), n)]
                if not names:
                    sys.exit('%s: no tensor matches %s' % (path, pattern))
                for n in names:
                    begin, end = header[n]['data_offsets']
                    body[begin:end] = struct.pack('<f', float(x)) * ((end - begin) // 4)
            elif edit.startswith('-'):
                meta.pop(edit[1:], None)
            else:
                key, x = edit.split('=', 1)
                meta[key] = x
        raw = json.dumps(header).encode()
        raw += b' ' * (-len(raw) % 8)
        with open(path, 'wb') as f:
            f.write(struct.pack('<Q', len(raw)) + raw + bytes(body))
    elif cmd == 'reseal':
        path = argv[1]
        data = bytearray(open(path, 'rb').read())
        at = data.index(b'TPCPROG2') + 8
        checksum = 14695981039346656037
        for b in data[at + 16:]:
            checksum = ((checksum ^ b) * 1099511628211) % (1 << 64)
        data[at + 8:at + 16] = struct.pack('<Q', checksum)
        open(path, 'wb').write(bytes(data))
    elif cmd == 'cut':
        path, size = argv[1], int(argv[2])
        data = open(path, 'rb').read()
        open(path, 'wb').write(data[:size])
    elif cmd == 'png-size':
        data = open(argv[1], 'rb').read(33)
        if data[:8] != b'\x89PNG\r\n\x1a\n':
            sys.exit('%s: not a PNG (no PNG signature)' % argv[1])
        length, kind, width, height = struct.unpack('>I4sII', data[8:24])
        if kind != b'IHDR' or length != 13:
            sys.exit('%s: the first chunk is not IHDR' % argv[1])
        print('%dx%d' % (width, height))
    elif cmd == 'screen':
        # What a terminal shows after the output: "\r\033[K" clears the
        # line and starts it again; a line that was rewritten shows its last
        # text. Also counts the rewrites.
        data = open(argv[1], 'rb').read().decode('utf-8', 'replace')
        data = data.replace('\r\n', '\n')
        rewrites = data.count('\r\x1b[K')
        for line in data.split('\n'):
            print(line.split('\r\x1b[K')[-1].split('\r')[-1])
        print('rewrites: %d' % rewrites)
    elif cmd == 'wait-for':
        path, pattern, bound = argv[1], re.compile(argv[2]), float(argv[3])
        deadline = time.monotonic() + bound
        while True:
            try:
                with open(path, 'r', errors='replace') as f:
                    if any(pattern.search(line) for line in f):
                        return
            except FileNotFoundError:
                pass
            if time.monotonic() > deadline:
                sys.exit('%s: no line matched %r within %g s' % (path, argv[2], bound))
            time.sleep(0.02)
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv[1:])
