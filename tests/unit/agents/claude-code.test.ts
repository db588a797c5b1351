// buildInvocation(): the exact argv for one loop, as a table (changesets tests npm argv this way).

import { describe, expect, it } from 'vitest';
import { buildInvocation, isSessionNotFound, isValidSessionId } from '../../../lib/agents/claude-code.js';
import { parseVersion } from '../../../lib/text/version.js';
import { splitCommand } from '../../../lib/text/command-words.js';

const SESSION = '0be36961-1027-4798-ad92-cea55f3781b6';
const base = { command: 'claude', prompt: 'Do the work', outputFormat: 'json' as const, allowedTools: [] as string[] };

describe('buildInvocation', () => {
  it.each([
    ['minimal structured run', base, ['claude', '-p', '--output-format', 'stream-json', '--verbose']],
    ['text output has no --output-format (Bash parity)', { ...base, outputFormat: 'text' as const }, ['claude', '-p']],
    [
      'model and effort',
      { ...base, model: 'opus', effort: 'high' },
      ['claude', '-p', '--output-format', 'stream-json', '--verbose', '--model', 'opus', '--effort', 'high'],
    ],
    [
      'resume, then every allowed tool as its own element, last',
      { ...base, resumeSessionId: SESSION, allowedTools: ['Read', 'Bash(git commit *)'] },
      ['claude', '-p', '--output-format', 'stream-json', '--verbose', '--resume', SESSION, '--allowedTools', 'Read', 'Bash(git commit *)'],
    ],
    [
      'a spending cap for the call goes before the variadic --allowedTools; none at 0',
      { ...base, maxBudgetUsd: 1.25, allowedTools: ['Read'] },
      ['claude', '-p', '--output-format', 'stream-json', '--verbose', '--max-budget-usd', '1.25', '--allowedTools', 'Read'],
    ],
    ['no cap of 0 (the CLI refuses it)', { ...base, maxBudgetUsd: 0 }, ['claude', '-p', '--output-format', 'stream-json', '--verbose']],
    [
      'a multi-word command keeps its words ahead of the flags',
      { ...base, command: 'npx @anthropic-ai/claude-code' },
      ['npx', '@anthropic-ai/claude-code', '-p', '--output-format', 'stream-json', '--verbose'],
    ],
  ])('%s', (_name, options, argv) => {
    const invocation = buildInvocation(options);
    expect([invocation.cmd, ...invocation.args]).toEqual(argv);
    expect(invocation.stdin).toBe('Do the work');
  });

  it.each([
    ['a fresh call', undefined],
    ['a resumed call', SESSION],
  ])('puts the loop context on stdin after the prompt, never in argv (%s)', (_name, resumeSessionId) => {
    const loopContext = 'Loop #2. Previous: fixed the parser\n- test_add: assert -1 == 3';
    const invocation = buildInvocation({ ...base, resumeSessionId, loopContext, allowedTools: ['Read'] });
    expect(invocation.stdin).toBe(`Do the work\n\n---\n## Ralph loop context\n\n${loopContext}\n`);
    expect(invocation.args).not.toContain('--append-system-prompt');
    expect(invocation.args.join(' ')).not.toMatch(/Loop #2|test_add|parser/);
  });

  it('never passes --continue or --dangerously-skip-permissions, and keeps the prompt out of argv', () => {
    const invocation = buildInvocation({ ...base, prompt: 'SECRET PROMPT', resumeSessionId: SESSION, allowedTools: ['Write'] });
    expect(invocation.args).not.toContain('--continue');
    expect(invocation.args).not.toContain('--dangerously-skip-permissions');
    expect(invocation.args.join(' ')).not.toContain('SECRET PROMPT');
  });
});

describe('isValidSessionId', () => {
  it("accepts session tokens (UUIDs, the upstream suite's e2e-sess-abc123) and nothing that could pass as a flag", () => {
    for (const good of [SESSION, SESSION.toUpperCase(), 'e2e-sess-abc123', 'ses_4f1c2a', 'a']) {
      expect(isValidSessionId(good), JSON.stringify(good)).toBe(true);
    }
    for (const bad of [
      '--dangerously-skip-permissions',
      '-x',
      '',
      `${SESSION}\n--x`,
      ` ${SESSION}`,
      `${SESSION} `,
      '.hidden',
      'a/b',
      'a b',
      '$(id)',
      'x'.repeat(201),
    ]) {
      expect(isValidSessionId(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it('buildInvocation refuses an id of another shape rather than put it in argv', () => {
    expect(() => buildInvocation({ ...base, resumeSessionId: '--dangerously-skip-permissions' })).toThrow(/session id/);
  });
});

describe('splitCommand', () => {
  it('splits CLAUDE_CODE_CMD into argv words, honouring quotes and expanding nothing', () => {
    expect(splitCommand('npx @anthropic-ai/claude-code')).toEqual(['npx', '@anthropic-ai/claude-code']);
    expect(splitCommand(`  "/opt/my tools/claude"  --x 'a b' $(id) `)).toEqual(['/opt/my tools/claude', '--x', 'a b', '$(id)']);
    expect(splitCommand('')).toEqual([]);
    // The same quoting rules as TEST_COMMAND (one splitter): a backslash escapes, "…" keeps `$`.
    expect(splitCommand('/opt/my\\ tools/claude "--x=$HOME"')).toEqual(['/opt/my tools/claude', '--x=$HOME']);
    expect(() => splitCommand('claude "--model opus')).toThrow(/quote that is not closed/);
  });
});

describe('version helpers', () => {
  it('reads `2.1.332 (Claude Code)`', () => {
    expect(parseVersion('2.1.332 (Claude Code)\n')).toBe('2.1.332');
    expect(parseVersion('garbage')).toBeUndefined();
  });

  it('recognises the CLI answer for an unknown session', () => {
    expect(isSessionNotFound('No conversation found with session ID: 1234')).toBe(true);
    expect(isSessionNotFound('Error: something else')).toBe(false);
  });
});
