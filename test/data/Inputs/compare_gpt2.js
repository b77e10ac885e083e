// Compares token files written by tpc-data with the ids the reference
// encoder (npm gpt-3-encoder) gives the same text.
//   node compare_gpt2.js GPT3_ENCODER_DIR TEXT_FILE TOKEN_FILE...
// The token files are read in order and concatenated. Prints the counts and
// exits 1 at the first difference.
//
// The reference encode() re-concatenates its whole result for every piece,
// which is quadratic; encoding each piece of the reference's own pattern on
// its own gives the same ids (a piece matched alone is matched whole) in
// linear time.
'use strict';
const fs = require('fs');
const path = require('path');
const { readTokenFiles, compareIds } = require('./token_ids');

const [encoderDir, textFile, ...binFiles] = process.argv.slice(2);
const { encode } = require(path.resolve(encoderDir));
const pat = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

const text = fs.readFileSync(textFile, 'utf-8');
const expected = [];
for (const m of text.matchAll(pat))
  for (const id of encode(m[0])) expected.push(id);

// On a small text, check that piecewise encoding is the reference's own.
if (text.length <= 20000) {
  const whole = encode(text);
  if (whole.length !== expected.length || whole.some((id, i) => id !== expected[i])) {
    console.log('piecewise encoding differs from encode() of the whole text');
    process.exit(1);
  }
}

compareIds(expected, readTokenFiles(binFiles));
