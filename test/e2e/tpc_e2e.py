#!/usr/bin/env python3
"""Helpers of the end-to-end tests (standard library only).

  tokens OUT COUNT VOCAB [--seed S] [--magic M] [--truncate]  write an llm.c token file
  same-loss RTOL A.json B.json ...    every file's "loss" equals the first's within RTOL
  loss-near VALUE TOL A.json          |loss - VALUE| <= TOL (VALUE may be ln:V)
  same-f32 ATOL A.f32 B.f32           raw float32 files agree elementwise within ATOL
  patch FILE OFFSET BYTE              overwrite one byte (OFFSET < 0 counts from the end)
  cut FILE BYTES                      truncate FILE to BYTES bytes
"""
import json
import math
import random
import struct
import sys


def loss_of(path):
    with open(path) as f:
        lines = [l for l in f.read().splitlines() if l.startswith('{')]
    if len(lines) != 1:
        sys.exit('%s: expected one JSON line, found %d' % (path, len(lines)))
    return json.loads(lines[0])['loss']


def value(text):
    return math.log(float(text[3:])) if text.startswith('ln:') else float(text)


def main(argv):
    cmd = argv[0]
    if cmd == 'tokens':
        out, count, vocab = argv[1], int(argv[2]), int(argv[3])
        seed = int(argv[argv.index('--seed') + 1]) if '--seed' in argv else 1
        magic = int(argv[argv.index('--magic') + 1]) if '--magic' in argv else 20240520
        rng = random.Random(seed)
        tokens = [rng.randrange(vocab) for _ in range(count)]
        data = struct.pack('<256i', *([magic, 1, count] + [0] * 253))
        data += struct.pack('<%dH' % count, *tokens)
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
    elif cmd == 'patch':
        path, offset, byte = argv[1], int(argv[2]), int(argv[3], 0)
        data = bytearray(open(path, 'rb').read())
        data[offset] = byte
        open(path, 'wb').write(bytes(data))
    elif cmd == 'cut':
        path, size = argv[1], int(argv[2])
        data = open(path, 'rb').read()
        open(path, 'wb').write(data[:size])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv[1:])
