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

const actual = [];
for (const f of binFiles) {
  const buf = fs.readFileSync(f);
  const header = new Int32Array(buf.buffer, buf.byteOffset, 256);
  if (header[0] !== 20240520 || header[1] !== 1)
    throw new Error(`${f}: not an llm.c token file`);
  const tokens = new Uint16Array(buf.buffer.slice(buf.byteOffset + 1024,
                                                  buf.byteOffset + 1024 + 2 * header[2]));
  for (const t of tokens) actual.push(t);
}

console.log(`reference: ${expected.length} tokens`);
console.log(`tpc-data: ${actual.length} tokens`);
const n = Math.min(expected.length, actual.length);
for (let i = 0; i < n; i++) {
  if (expected[i] !== actual[i]) {
    console.log(`first difference at token ${i}: reference ${expected[i]}, ` +
                `tpc-data ${actual[i]}`);
    console.log(`reference around it: ${JSON.stringify(expected.slice(Math.max(0, i - 5), i + 5))}`);
    console.log(`tpc-data around it:  ${JSON.stringify(actual.slice(Math.max(0, i - 5), i + 5))}`);
    process.exit(1);
  }
}
if (expected.length !== actual.length) process.exit(1);
console.log('identical');
