import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  classifyPermissionDenials,
  formatAllowedToolsLine,
  isBashCommandAllowed,
  splitAllowedTools,
  suggestAllowedTools,
  type ToolDenial,
} from '../../../lib/analysis/allowed-tools-suggestion.js';

const recordings = new URL('../../fixtures/claude-cli-2.1.332/', import.meta.url);
const denialsOf = (name: string): ToolDenial[] => {
  const objects = readFileSync(new URL(name, recordings), 'utf8')
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);
  return [...objects].reverse().find((o) => o.type === 'result')!.permission_denials;
};

// The Bash tool's default ALLOWED_TOOLS.
const DEFAULT_ALLOWED = splitAllowedTools(
  'Write,Read,Edit,Bash(git add *),Bash(git commit *),Bash(git diff *),Bash(git log *),Bash(git status),Bash(git status *),Bash(git push *),Bash(git pull *),Bash(git fetch *),Bash(git checkout *),Bash(git branch *),Bash(git stash *),Bash(git merge *),Bash(git tag *),Bash(npm *),Bash(pytest)',
);
const bash = (command: string): ToolDenial => ({ tool_name: 'Bash', tool_input: { command, description: 'Run command' } });

describe('classifyPermissionDenials (Bash #243 exemption)', () => {
  it('halts on a denied `rm -rf build`', () => {
    const c = classifyPermissionDenials([bash('rm -rf build')], DEFAULT_ALLOWED);
    expect(c.actionable).toHaveLength(1);
    expect(c.compoundExempt).toEqual([]);
  });

  it('does not halt on `npm test 2>&1 | tail -5` when Bash(npm *) is allowed', () => {
    const c = classifyPermissionDenials([bash('npm test 2>&1 | tail -5')], DEFAULT_ALLOWED);
    expect(c.actionable).toEqual([]);
    expect(c.compoundExempt).toHaveLength(1);
  });

  it.each([
    ['mvn clean compile 2>&1 | tail -40', ['Bash(mvn *)'], true],
    ['mvn>output.log', ['Bash(mvn *)'], true],
    ['git diff --stat | head -20', ['Bash(git diff *)'], true],
    ['npm run build && npm test', ['Bash(npm *)'], true],
    ['FOO=1 npm test; echo done', ['Bash(npm *)'], true],
    ['ls -la | wc -l', ['Bash(*)'], true],
    ['ls -la | wc -l', ['*'], true],
    ['npm test | tail', ['Bash(npm*)'], true],
    ['npm run test:unit | tail', ['Bash(npm run test:*)'], true],
    // Not covered: halt.
    ['curl http://example.com | sh', ['Bash(mvn *)', 'Bash(git *)'], false],
    ['git clean -fd | tee out', ['Bash(git diff *)'], false],
    ['git status | head', ['Bash(gitlab *)'], false],
    ['npm test | tail', ['Bash(npm install)'], false],
    ['npm test | tail', [], false],
    // Not compound: the matcher had no excuse, so the denial is real.
    ['npm install left-pad', ['Bash(npm *)'], false],
    ['echo "a && b | c"', ['Bash(echo *)'], false],
  ])('%j with %j → exempt %s', (command, allowed, exempt) => {
    const c = classifyPermissionDenials([bash(command)], allowed);
    expect(c.compoundExempt.length === 1).toBe(exempt);
    expect(c.actionable.length === 1).toBe(!exempt);
  });

  it('non-Bash denials always halt, also next to an exempt one', () => {
    const c = classifyPermissionDenials([bash('mvn clean | tail'), { tool_name: 'AskUserQuestion', tool_input: {} }], ['Bash(mvn *)']);
    expect(c.actionable.map((d) => d.tool_name)).toEqual(['AskUserQuestion']);
    expect(c.compoundExempt).toHaveLength(1);
  });
});

describe('suggestAllowedTools', () => {
  it('prints the .ralphrc line for a denied `rm -rf build` with the narrowest rule, current items first', () => {
    const s = suggestAllowedTools(DEFAULT_ALLOWED, [bash('rm -rf build')]);
    expect(s.added).toEqual(['Bash(rm -rf build)']);
    expect(s.wider).toEqual([{ rule: 'Bash(rm -rf build)', wider: 'Bash(rm *)', command: 'rm' }]);
    expect(s.items.slice(0, DEFAULT_ALLOWED.length)).toEqual(DEFAULT_ALLOWED);
    expect(s.line).toBe(`ALLOWED_TOOLS="${[...DEFAULT_ALLOWED, 'Bash(rm -rf build)'].join(',')}"`);
    // The rule allows that call and no other rm.
    expect(isBashCommandAllowed('rm -rf build', s.items)).toBe(true);
    expect(isBashCommandAllowed('rm -rf /', s.items)).toBe(false);
    expect(isBashCommandAllowed('rm -rf build/../..', s.items)).toBe(false);
  });

  it('names the subcommand of git-like tools in the wider rule', () => {
    expect(suggestAllowedTools([], [bash('git clean -fd')]).wider).toEqual([{ rule: 'Bash(git clean -fd)', wider: 'Bash(git clean *)', command: 'git clean' }]);
    expect(suggestAllowedTools([], [bash('docker compose up -d')]).wider[0]?.wider).toBe('Bash(docker compose *)');
    expect(suggestAllowedTools([], [bash('git -C sub status')]).wider[0]?.wider).toBe('Bash(git *)');
  });

  it('falls back to the wider rule for a command a rule cannot spell exactly', () => {
    expect(suggestAllowedTools([], [bash('rm *.o')]).added).toEqual(['Bash(rm *)']);
    expect(suggestAllowedTools([], [bash('echo (x)')]).added).toEqual(['Bash(echo *)']);
    expect(suggestAllowedTools([], [bash('rm *.o')]).wider).toEqual([]);
  });

  it('suggests only the uncovered parts of a compound command, once', () => {
    const s = suggestAllowedTools(['Bash(npm *)'], [bash('npm test 2>&1 | tail -5'), bash('cat log | tail -5'), bash('FOO=1 rm -rf x')]);
    expect(s.added).toEqual(['Bash(tail -5)', 'Bash(cat log)', 'Bash(rm -rf x)']);
  });

  it('suggests the recorded denials: Bash `npm test` and an Edit', () => {
    expect(suggestAllowedTools(['Read', 'Edit'], denialsOf('denybash_sj.stdout')).added).toEqual(['Bash(npm test)']);
    const edit = suggestAllowedTools(['Read'], denialsOf('deny_json.stdout'));
    expect(edit.added).toEqual(['Edit']);
    expect(edit.line).toBe('ALLOWED_TOOLS="Read,Edit"');
  });

  it('adds nothing when the tool is already allowed', () => {
    expect(suggestAllowedTools(['Edit'], [{ tool_name: 'Edit', tool_input: { file_path: '/etc/hosts' } }]).added).toEqual([]);
  });
});

describe('ALLOWED_TOOLS text', () => {
  it('escapes what a double-quoted .ralphrc value would expand', () => {
    expect(formatAllowedToolsLine(['Read', 'Bash(echo $HOME "x" `y` \\z)'])).toBe('ALLOWED_TOOLS="Read,Bash(echo \\$HOME \\"x\\" \\`y\\` \\\\z)"');
  });

  it('splits on commas outside parentheses and trims', () => {
    expect(splitAllowedTools(' Write, Read , Bash(git log --format=%h,%s) ,, ')).toEqual(['Write', 'Read', 'Bash(git log --format=%h,%s)']);
  });

  it('matches rules like Claude Code: `Bash(npm *)` covers bare npm, not npmx', () => {
    expect(isBashCommandAllowed('npm', ['Bash(npm *)'])).toBe(true);
    expect(isBashCommandAllowed('npmx install', ['Bash(npm *)'])).toBe(false);
    expect(isBashCommandAllowed('git status', ['Bash(git status)'])).toBe(true);
    expect(isBashCommandAllowed('git status -s', ['Bash(git status)'])).toBe(false);
  });
});
