// Realistic Claude stream-json for the analysis benchmark, built from the recorded run in
// tests/fixtures/claude-cli-2.1.332/happy_sj.stdout: its init line opens the stream, then
// "turns" repeat — assistant text, a tool_use, and the tool_result `user` line carrying file
// contents (the bulk of a real stream) — and its result line closes it.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RECORDED = readFileSync(`${ROOT}/tests/fixtures/claude-cli-2.1.332/happy_sj.stdout`, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line));
// Source text as tool output: what a Read of a real file returns.
const SOURCE = readFileSync(`${ROOT}/scripts/bench/stream-builder.mjs`, 'utf8');

const byType = (type, predicate = () => true) => RECORDED.find((m) => m.type === type && predicate(m));
const INIT = byType('system');
const RESULT = byType('result');
const TEXT = byType('assistant', (m) => m.message.content.some((b) => b.type === 'text'));
const TOOL = byType('assistant', (m) => m.message.content.some((b) => b.type === 'tool_use'));
const USER = byType('user');

function assistantText(i) {
  const m = structuredClone(TEXT);
  m.message.content[0].text = `Step ${i}: ${'I read the module, traced the failing branch and updated the parser accordingly. '.repeat(12)}`;
  return `${JSON.stringify(m)}\n`;
}

function toolUse(i) {
  const m = structuredClone(TOOL);
  m.message.content[0].input = { file_path: `/home/user/project/src/module-${i}.ts` };
  return `${JSON.stringify(m)}\n`;
}

function toolResult(i, bytes) {
  const m = structuredClone(USER);
  let content = '';
  while (content.length < bytes) content += SOURCE;
  m.message.content[0].content = content.slice(0, bytes);
  m.message.content[0].tool_use_id = `toolu_bench_${i}`;
  return `${JSON.stringify(m)}\n`;
}

/** One block of `turns` turns (no init/result), as a Buffer; tool results vary 4–64 KB. */
export function buildTurns(turns, { toolResults = true } = {}) {
  const parts = [];
  for (let i = 0; i < turns; i++) {
    parts.push(assistantText(i), toolUse(i));
    if (toolResults) parts.push(toolResult(i, 4096 + ((i * 7919) % 61440)));
  }
  return Buffer.from(parts.join(''));
}

export const initLine = () => Buffer.from(`${JSON.stringify(INIT)}\n`);
export const resultLine = () => Buffer.from(`${JSON.stringify(RESULT)}\n`);

/** A tool_result line of `bytes` bytes, as `chunk`-sized pieces (never whole in memory). */
export function* giantToolResult(bytes, chunk) {
  const head = Buffer.from(JSON.stringify(USER).replace(/"content":"[^"]*"/, '"content":"'));
  const headEnd = head.indexOf('"content":"') + '"content":"'.length;
  yield head.subarray(0, headEnd);
  const filler = Buffer.alloc(chunk, 'x');
  for (let sent = headEnd; sent < bytes; sent += chunk) yield filler.subarray(0, Math.min(chunk, bytes - sent));
  yield Buffer.from('"}]}}\n');
}
