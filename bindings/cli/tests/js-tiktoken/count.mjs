#!/usr/bin/env node
// The token oracle of bindings/cli/tests/bench*.rs: js-tiktoken, independent of the Rust
// tokenizer toolwire uses. Reads a JSON array of strings (the text blocks of one response)
// on stdin and prints {"o200k": N, "cl100k": M}: each block encoded on its own (special
// tokens as plain text, as tiktoken's encode_ordinary), the counts summed.
//
// `count.mjs --lines`: one response per line instead, for tests that count thousands of
// responses (the serve token-budget tests): each stdin line is a JSON array of strings, and
// each gets one output line {"o200k": N, "blocks": [n1, n2, …]} (o200k only; every block's
// count, summed in N), written as soon as its line is read.
import { createInterface } from 'node:readline';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k_base from 'js-tiktoken/ranks/o200k_base';
import cl100k_base from 'js-tiktoken/ranks/cl100k_base';

function blocksOf(text) {
  const blocks = JSON.parse(text);
  if (!Array.isArray(blocks) || !blocks.every((b) => typeof b === 'string')) {
    process.stderr.write('count.mjs: expected a JSON array of strings\n');
    process.exit(2);
  }
  return blocks;
}

if (process.argv.includes('--lines')) {
  const enc = new Tiktoken(o200k_base);
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    const counts = blocksOf(line).map((b) => enc.encode(b, [], []).length);
    process.stdout.write(JSON.stringify({ o200k: counts.reduce((a, b) => a + b, 0), blocks: counts }) + '\n');
  }
} else {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  const blocks = blocksOf(Buffer.concat(chunks).toString('utf8'));
  const out = {};
  for (const [name, ranks] of [['o200k', o200k_base], ['cl100k', cl100k_base]]) {
    const enc = new Tiktoken(ranks);
    out[name] = blocks.reduce((n, b) => n + enc.encode(b, [], []).length, 0);
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}
