// What the fake agent really does to a project: tool edits under the permission model, and the
// call-level shortcuts loop tests rely on (fix_plan ticks, file writes, git commits, status block).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HAPPY_NOTES, parseJsonLines, withFakeClaude, type FakeClaude, type FakeScenario } from '../../helpers/fake-claude.js';

type Json = Record<string, unknown>;
let fake: FakeClaude | undefined;
let project = '';

function setup(scenario: FakeScenario): FakeClaude {
  fake = withFakeClaude(scenario);
  project = join(fake.root, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'notes.txt'), HAPPY_NOTES);
  return fake;
}
afterEach(() => {
  fake?.cleanup();
  fake = undefined;
});

const git = (...args: string[]) => spawnSync('git', args, { cwd: project, encoding: 'utf8', env: fake!.env });

describe('fake agent tools', () => {
  it('Edit and Write change real files under acceptEdits; Read sees the edited file', async () => {
    setup({ calls: [{ steps: [
      { tool: 'Edit', input: { file_path: 'notes.txt', old_string: 'TODO: fix', new_string: 'DONE: fixed' } },
      { tool: 'Write', input: { file_path: 'src/new.txt', content: 'fresh\n' } },
      { tool: 'Read', input: { file_path: 'notes.txt' } },
      { text: 'done' },
    ] }] });
    const run = await fake!.run(['-p', 'go', '--output-format', 'stream-json', '--verbose', '--permission-mode', 'acceptEdits'], { cwd: project });
    expect(run.code).toBe(0);
    expect(readFileSync(join(project, 'notes.txt'), 'utf8')).toBe('line one\nDONE: fixed\nline three\n');
    expect(readFileSync(join(project, 'src', 'new.txt'), 'utf8')).toBe('fresh\n');
    const readResult = parseJsonLines(run.stdout).filter((l) => l.type === 'user').at(-1) as { message: { content: Array<{ content: string }> } };
    expect(readResult.message.content[0]!.content).toBe('1\tline one\n2\tDONE: fixed\n3\tline three\n4\t');
    const result = parseJsonLines(run.stdout).at(-1) as Json;
    expect(result.permission_denials).toEqual([]);
    expect(result.num_turns).toBe(4);
  });

  it('a compound Bash command is denied unless every part is allowed, and Write outside the cwd is refused', async () => {
    setup({ calls: [{ steps: [
      { tool: 'Bash', input: { command: 'git status && npm test' }, stdout: 'ok' },
      { tool: 'Write', input: { file_path: '../outside.txt', content: 'x' } },
      { text: 'done' },
    ] }] });
    const run = await fake!.run(['-p', 'go', '--output-format', 'json', '--allowedTools', 'Bash(git *),Write'], { cwd: project });
    const result = JSON.parse(run.stdout) as { permission_denials: Array<{ tool_name: string; tool_input: Json }>; subtype: string };
    expect(run.code).toBe(0);
    expect(result.subtype).toBe('success');
    expect(result.permission_denials.map((d) => d.tool_name)).toEqual(['Bash', 'Write']);
    expect(existsSync(join(fake!.root, 'outside.txt'))).toBe(false);
  });

  it('"exec": true runs the Bash command for real in the cwd', async () => {
    setup({ calls: [{ steps: [{ tool: 'Bash', input: { command: 'echo made > made.txt && cat made.txt' }, exec: true }, { text: 'ok' }] }] });
    const run = await fake!.run(['-p', 'go', '--output-format', 'stream-json', '--verbose', '--dangerously-skip-permissions'], { cwd: project });
    expect(run.code).toBe(0);
    expect(readFileSync(join(project, 'made.txt'), 'utf8')).toBe('made\n');
    const toolResult = parseJsonLines(run.stdout).find((l) => l.type === 'user') as { tool_use_result: { stdout: string } };
    expect(toolResult.tool_use_result.stdout).toBe('made');
  });
});

describe('fake agent loop shortcuts', () => {
  beforeEach(() => {
    setup({ calls: [
      { tickFixPlan: 2, writeFiles: { 'src/a.ts': 'export const a = 1;\n' }, gitCommit: 'feat: a', resultText: 'Implemented a.', statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } },
      { tickFixPlan: 'all', statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true, RECOMMENDATION: 'All done' } },
    ] });
    mkdirSync(join(project, '.ralph'));
    writeFileSync(join(project, '.ralph', 'fix_plan.md'), '# Plan\n- [ ] one\n- [ ] two\n  - [ ] three\n- [x] old\n');
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'init');
  });

  it('ticks fix_plan items, writes files, commits them, and ends with a RALPH_STATUS block', async () => {
    const first = await fake!.run(['-p', 'work', '--output-format', 'json'], { cwd: project });
    expect(first.code).toBe(0);
    expect(readFileSync(join(project, '.ralph', 'fix_plan.md'), 'utf8')).toBe('# Plan\n- [x] one\n- [x] two\n  - [ ] three\n- [x] old\n');
    expect(git('log', '--format=%s').stdout.trim().split('\n')).toEqual(['feat: a', 'init']);
    expect(git('show', '--name-only', '--format=', 'HEAD').stdout.trim().split('\n').sort()).toEqual(['.ralph/fix_plan.md', 'src/a.ts']);
    const result = JSON.parse(first.stdout) as { result: string };
    expect(result.result).toBe('Implemented a.\n\n---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nEXIT_SIGNAL: false\n---END_RALPH_STATUS---');

    const second = await fake!.run(['-p', 'work'], { cwd: project });
    expect(readFileSync(join(project, '.ralph', 'fix_plan.md'), 'utf8')).toContain('  - [x] three');
    expect(second.stdout).toContain('STATUS: COMPLETE\nEXIT_SIGNAL: true\nRECOMMENDATION: All done\n---END_RALPH_STATUS---\n');
    expect(git('status', '--porcelain').stdout).toBe(' M .ralph/fix_plan.md\n'); // second call made no commit
  });
});
