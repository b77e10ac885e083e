// Compares token files written by tpc-data with the ids the reference
// encoder (npm llama3-tokenizer-js, run by node) gives the same documents:
// <|begin_of_text|> before each, <|end_of_text|> between them.
//   node compare_llama3.js [--special-tokens] PACKAGE_DIR TEXT_FILE... -- TOKEN_FILE...
// Without --special-tokens the reference is told that no text is a special
// token, as tpc-data encodes by default. The token files
// are read in order and concatenated. Prints the counts and exits 1 at the
// first difference.
'use strict';
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { readTokenFiles, compareIds } = require('./token_ids');

async function main() {
  let args = process.argv.slice(2);
  const special = args[0] === '--special-tokens';
  if (special) args = args.slice(1);
  const dash = args.indexOf('--');
  const [packageDir, ...textFiles] = args.slice(0, dash);
  const binFiles = args.slice(dash + 1);
  const bundle = path.join(path.resolve(packageDir), 'bundle',
                           'llama3-tokenizer-with-baked-data.js');
  const tokenizer = (await import(pathToFileURL(bundle).href)).default;

  const options = {bos: true, eos: false};
  if (!special) options.specialTokenRegex = /(?!)/g; // matches nothing
  const expected = [];
  const start = performance.now();
  textFiles.forEach((f, i) => {
    if (i > 0) expected.push(tokenizer.getSpecialTokenId('<|end_of_text|>'));
    for (const id of tokenizer.encode(fs.readFileSync(f, 'utf-8'), options))
      expected.push(id);
  });
  const seconds = (performance.now() - start) / 1000;

  console.error(`reference encode: ${seconds.toFixed(3)} s`);
  compareIds(expected, readTokenFiles(binFiles));
}

main().catch(e => {
  console.error(e.message);
  process.exit(1);
});
