// Every command the README and docs/ show is run by a test, or says why not, so the docs cannot
// drift from the program unnoticed: each block of commands (```sh, ```bash, ```shell, ```console,
// or a ```text transcript with `$ ` lines) has, on the line before it, one of
//   <!-- commands: tested by tests/…test.ts … -->   a test file that exists and reads this page
//   <!-- commands: run by CI, .ci/run … -->          the CI script, which exists
//   <!-- commands: untested, need(s) … -->           what it needs that a test cannot have (a real account)

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/run-cli.js';

const PAGES = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const COMMAND_FENCE = /^```(sh|bash|shell|console|text)\s*$/;
const MARKER = /^<!-- commands: (tested by (\S+)|run by CI, (\S+)|untested, needs? \S)(.*?) -->$/;

interface Block {
  page: string;
  line: number;
  marker: string | undefined;
}

/** The command blocks of a page, each with the line above it. */
export function commandBlocks(page: string, text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith('```'));
    const body = lines.slice(i + 1, end < 0 ? undefined : end);
    const fence = COMMAND_FENCE.exec(lines[i]!)?.[1];
    const isCommands = fence !== undefined && (fence !== 'text' || body.some((line) => line.startsWith('$ ')));
    if (isCommands) blocks.push({ page, line: i + 1, marker: lines[i - 1] });
    i = end < 0 ? lines.length : end;
  }
  return blocks;
}

/** Why a block's marker does not hold, or undefined when it does. */
function markerProblem(block: Block): string | undefined {
  const match = MARKER.exec(block.marker ?? '');
  if (!match) return 'no <!-- commands: … --> marker on the line before';
  const [, , testFile, ciFile] = match;
  if (testFile) {
    if (!existsSync(join(REPO_ROOT, testFile))) return `${testFile} does not exist`;
    const name = block.page === 'README.md' ? 'README.md' : basename(block.page);
    if (!readFileSync(join(REPO_ROOT, testFile), 'utf8').includes(name)) return `${testFile} never reads ${name}`;
  }
  if (ciFile && !existsSync(join(REPO_ROOT, ciFile))) return `${ciFile} does not exist`;
  return undefined;
}

describe('commands in the README and docs/', () => {
  it('are each run by a test, run by CI, or marked as needing what a test cannot have', () => {
    const problems = PAGES.flatMap((page) => commandBlocks(page, readFileSync(join(REPO_ROOT, page), 'utf8')))
      .map((block) => ({ block, problem: markerProblem(block) }))
      .filter(({ problem }) => problem !== undefined)
      .map(({ block, problem }) => `${block.page}:${block.line}: ${problem}`);
    expect(problems).toEqual([]);
  });

  it('finds the blocks it checks: a bare command block, a transcript, and not a diagram or a plan', () => {
    const page = [
      '<!-- commands: untested, needs an account -->',
      '```sh',
      'ralph',
      '```',
      '```text',
      '$ ralph --demo',
      '```',
      '```',
      'a ─▶ b',
      '```',
      '```markdown',
      '- [ ] x',
      '```',
    ].join('\n');
    const blocks = commandBlocks('docs/x.md', page);
    expect(blocks.map((b) => [b.line, markerProblem(b)])).toEqual([
      [2, undefined],
      [5, 'no <!-- commands: … --> marker on the line before'],
    ]);
  });
});
