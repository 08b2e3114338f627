#!/usr/bin/env node
// The token oracle of bindings/cli/tests/bench*.rs: js-tiktoken, independent of the Rust
// tokenizer toolwire uses. Reads a JSON array of strings (the text blocks of one response)
// on stdin and prints {"o200k": N, "cl100k": M}: each block encoded on its own (special
// tokens as plain text, as tiktoken's encode_ordinary), the counts summed.
import { Tiktoken } from 'js-tiktoken/lite';
import o200k_base from 'js-tiktoken/ranks/o200k_base';
import cl100k_base from 'js-tiktoken/ranks/cl100k_base';

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const blocks = JSON.parse(Buffer.concat(chunks).toString('utf8'));
if (!Array.isArray(blocks) || !blocks.every((b) => typeof b === 'string')) {
  process.stderr.write('count.mjs: expected a JSON array of strings on stdin\n');
  process.exit(2);
}
const out = {};
for (const [name, ranks] of [['o200k', o200k_base], ['cl100k', cl100k_base]]) {
  const enc = new Tiktoken(ranks);
  out[name] = blocks.reduce((n, b) => n + enc.encode(b, [], []).length, 0);
}
process.stdout.write(JSON.stringify(out) + '\n');
