// What the reference comparisons share: reading tpc-data's token files and
// reporting the first difference from the reference's ids.
'use strict';
const fs = require('fs');

// The tokens of llm.c token files (version 1, uint16; version 2, uint32),
// concatenated in order.
function readTokenFiles(files) {
  const tokens = [];
  for (const f of files) {
    const buf = fs.readFileSync(f);
    const header = new Int32Array(buf.buffer, buf.byteOffset, 256);
    if (header[0] !== 20240520 || (header[1] !== 1 && header[1] !== 2))
      throw new Error(`${f}: not an llm.c token file`);
    const width = header[1] === 1 ? 2 : 4;
    const data = buf.buffer.slice(buf.byteOffset + 1024,
                                  buf.byteOffset + 1024 + width * header[2]);
    for (const t of width === 2 ? new Uint16Array(data) : new Uint32Array(data))
      tokens.push(t);
  }
  return tokens;
}

// Prints the counts and "identical", or the first difference and exits 1.
function compareIds(expected, actual) {
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
}

module.exports = { readTokenFiles, compareIds };
