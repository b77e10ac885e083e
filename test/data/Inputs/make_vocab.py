#!/usr/bin/env python3
"""Writes a byte-level BPE vocabulary of SIZE tokens to DIR (encoder.json and
vocab.bpe): the 256 bytes (ids 0..255), <|endoftext|> (256), fillers, and one
merge, "h" + "i", whose token "hi" takes the last id, SIZE - 1.

  make_vocab.py DIR SIZE
"""
import json
import os
import sys


def byte_to_unicode():
    # GPT-2's table: printable Latin-1 bytes stand for themselves, the rest
    # map, in byte order, to U+0100 onwards.
    printable = (list(range(ord('!'), ord('~') + 1)) + list(range(0xA1, 0xAD))
                 + list(range(0xAE, 0x100)))
    table, n = {}, 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + n)
            n += 1
    return table


def main(out, size):
    if size < 258:
        sys.exit('SIZE must be at least 258')
    encoder = {ch: b for b, ch in byte_to_unicode().items()}
    encoder['<|endoftext|>'] = 256
    for i in range(257, size - 1):
        encoder['f%d' % i] = i
    encoder['hi'] = size - 1
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, 'encoder.json'), 'w') as f:
        json.dump(encoder, f)
    with open(os.path.join(out, 'vocab.bpe'), 'w') as f:
        f.write('#version: 0.2\nh i\n')


if __name__ == '__main__':
    main(sys.argv[1], int(sys.argv[2]))
