#!/usr/bin/python3
"""BERT's uncased WordPiece tokenizer in plain Python, the reference that
tpc-data --tokenizer bert-uncased is checked against.

It follows the published algorithm of BERT's tokenization.py as Hugging
Face's BertTokenizer (transformers, the Python tokenizer) runs it for
bert-base-uncased, with Python's own unicodedata and str.lower():
  lower:     every character lower-cased on its own (the tokenizer lowers
             the text outside special tokens one character at a time before
             the basic tokenizer sees it: no final sigma);
  basic:     drop U+0000, U+FFFD and control characters (categories C*, but
             not \\t \\n \\r), turn white space (those three, space, Zs) into
             spaces, put spaces around CJK ideographs, NFC, split on white
             space (str.split); each word lower-cased, NFD, marks (Mn)
             dropped, and split into runs of non-punctuation and single
             punctuation characters (ASCII 33-47, 58-64, 91-96, 123-126 and
             categories P*);
  wordpiece: a word of more than 100 characters is [UNK]; else greedy
             longest-match-first from the left, pieces after the first
             looked up as "##" + piece, [UNK] for the whole word when some
             position has no piece.
With --special-tokens the text of [PAD] [UNK] [CLS] [SEP] [MASK] encodes as
those tokens (the tokenizer's special tokens are split out first); without,
it is plain text. Documents are separated by [SEP], as tpc-data writes them.

Usage:
  wordpiece_reference.py [--special-tokens] VOCAB_TXT TEXT_FILE...
      prints the ids, one line per document
  wordpiece_reference.py [--special-tokens] VOCAB_TXT TEXT_FILE... -- TOKEN_FILE...
      compares with llm.c token files (concatenated in order): prints the
      counts and "identical", or the first difference and exits 1
Text files are read as UTF-8, a malformed byte becoming U+FFFD (which
cleaning drops).
"""
import struct
import sys
import time
import unicodedata

SPECIAL = ('[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]')
MAX_CHARS_PER_WORD = 100


def load_vocab(path):
    vocab = {}
    with open(path, encoding='utf-8') as f:
        for index, line in enumerate(f):
            vocab[line.rstrip('\n')] = index
    return vocab


def is_whitespace(ch):
    if ch in (' ', '\t', '\n', '\r'):
        return True
    return unicodedata.category(ch) == 'Zs'


def is_control(ch):
    if ch in ('\t', '\n', '\r'):
        return False
    return unicodedata.category(ch).startswith('C')


def is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith('P')


def is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF
            or 0x20000 <= cp <= 0x2A6DF or 0x2A700 <= cp <= 0x2B73F
            or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def clean_text(text):
    out = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or is_control(ch):
            continue
        out.append(' ' if is_whitespace(ch) else ch)
    return ''.join(out)


def tokenize_cjk(text):
    return ''.join(' %s ' % ch if is_cjk(ord(ch)) else ch for ch in text)


def strip_accents(word):
    return ''.join(ch for ch in unicodedata.normalize('NFD', word)
                   if unicodedata.category(ch) != 'Mn')


def split_on_punctuation(word):
    pieces = []
    start_new = True
    for ch in word:
        if is_punctuation(ch):
            pieces.append([ch])
            start_new = True
        else:
            if start_new:
                pieces.append([])
            start_new = False
            pieces[-1].append(ch)
    return [''.join(p) for p in pieces]


def basic_tokenize(text):
    text = tokenize_cjk(clean_text(text))
    words = []
    for word in unicodedata.normalize('NFC', text).split():
        word = strip_accents(word.lower())
        words.extend(split_on_punctuation(word))
    return ' '.join(words).split()


def wordpiece(word, vocab):
    if len(word) > MAX_CHARS_PER_WORD:
        return [vocab['[UNK]']]
    ids = []
    start = 0
    while start < len(word):
        end = len(word)
        found = None
        while start < end:
            piece = word[start:end]
            if start > 0:
                piece = '##' + piece
            if piece in vocab:
                found = vocab[piece]
                break
            end -= 1
        if found is None:
            return [vocab['[UNK]']]
        ids.append(found)
        start = end
    return ids


class Tokenizer:
    def __init__(self, vocab, special_tokens):
        self.vocab = vocab
        self.special_tokens = special_tokens
        self.pieces = {}  # word -> ids: the corpus repeats its words

    def encode_plain(self, text):
        ids = []
        text = ''.join(ch.lower() for ch in text)
        for word in basic_tokenize(text):
            got = self.pieces.get(word)
            if got is None:
                got = self.pieces[word] = wordpiece(word, self.vocab)
            ids.extend(got)
        return ids

    def encode(self, text):
        if not self.special_tokens:
            return self.encode_plain(text)
        ids = []
        while text:
            # The leftmost special token, the longest at a tie.
            hits = [(text.find(s), -len(s), s) for s in SPECIAL if s in text]
            if not hits:
                break
            at, _, token = min(hits)
            ids.extend(self.encode_plain(text[:at]))
            ids.append(self.vocab[token])
            text = text[at + len(token):]
        ids.extend(self.encode_plain(text))
        return ids


def read_token_files(paths):
    tokens = []
    for path in paths:
        with open(path, 'rb') as f:
            data = f.read()
        magic, version, count = struct.unpack_from('<3i', data)
        if magic != 20240520 or version not in (1, 2):
            sys.exit('%s: not an llm.c token file' % path)
        fmt = '<%d%s' % (count, 'H' if version == 1 else 'I')
        tokens.extend(struct.unpack_from(fmt, data, 1024))
    return tokens


def compare(expected, actual):
    print('reference: %d tokens' % len(expected))
    print('tpc-data: %d tokens' % len(actual))
    for i, (e, a) in enumerate(zip(expected, actual)):
        if e != a:
            print('first difference at token %d: reference %d, tpc-data %d' % (i, e, a))
            print('reference around it: %s' % expected[max(0, i - 5):i + 5])
            print('tpc-data around it:  %s' % actual[max(0, i - 5):i + 5])
            return 1
    if len(expected) != len(actual):
        return 1
    print('identical')
    return 0


def main(argv):
    special = bool(argv) and argv[0] == '--special-tokens'
    if special:
        argv = argv[1:]
    dash = argv.index('--') if '--' in argv else len(argv)
    if dash < 2:
        sys.exit(__doc__)
    vocab_path, texts, token_files = argv[0], argv[1:dash], argv[dash + 1:]
    tokenizer = Tokenizer(load_vocab(vocab_path), special)
    start = time.perf_counter()
    documents = []
    for path in texts:
        with open(path, encoding='utf-8', errors='replace', newline='') as f:
            documents.append(tokenizer.encode(f.read()))
    seconds = time.perf_counter() - start
    if dash == len(argv):
        for ids in documents:
            print(' '.join(map(str, ids)))
        return 0
    print('reference encode: %.3f s' % seconds, file=sys.stderr)
    expected = []
    for i, ids in enumerate(documents):
        if i > 0:
            expected.append(tokenizer.vocab['[SEP]'])
        expected.extend(ids)
    return compare(expected, read_token_files(token_files))


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
