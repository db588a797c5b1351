import { describe, expect, it } from 'vitest';
import type { PermissionDenial } from '../../../lib/agents/claude-output.js';
import { baseCommand, isBaseCommandAllowed, summarizePermissionDenials } from '../../../lib/analysis/permission-denials.js';

const bash = (command: string): PermissionDenial => ({ toolName: 'Bash', toolUseId: 't', input: { command } });

describe('summarizePermissionDenials: compound-command exemption (#243)', () => {
  it.each([
    ['npm test 2>&1 | tail -5', ['Bash(npm *)'], true],
    ['rm -rf build', ['Bash(npm *)'], false],
    ['git status | head', ['Bash(git *)'], true],
    ['gitlab ci lint', ['Bash(git *)'], false],
    ['git status', ['Bash(gitlab *)'], false],
    ['gitlab ci lint', ['Bash(git*)'], false],
    ['npm install && npm run build', ['Bash(npm install)'], false],
    ['npm test > out.txt', ['Bash(npm:*)'], true],
    ['npm test; echo done', ['Bash(npm*)'], true],
    ['make -j4 | tee log', ['Bash(*)'], true],
    ['make -j4 | tee log', ['*'], true],
    ['make -j4 | tee log', ['Bash'], true],
    ['  cargo build|tail', ['Read', 'Bash(cargo build *)'], true],
    ['npm test', [], false],
    // A denial without a command is malformed: treated as a real denial, not exempted.
    ['', ['Bash(*)'], false],
  ])('%j with %j → limitation %s', (command, allowed, limitation) => {
    const summary = summarizePermissionDenials([bash(command)], allowed);
    expect(summary.hasCompoundCommandLimitation).toBe(limitation);
    expect(summary.hasPermissionDenials).toBe(!limitation);
    expect(summary.count).toBe(1);
    expect(summary.compoundCommandCount).toBe(limitation ? 1 : 0);
  });

  it('needs every denial to be a covered Bash command', () => {
    const edit: PermissionDenial = { toolName: 'Edit', toolUseId: 'e', input: { file_path: 'a' } };
    const mixed = summarizePermissionDenials([bash('npm test | tail'), edit], ['Bash(npm *)']);
    expect(mixed).toMatchObject({ hasPermissionDenials: true, hasCompoundCommandLimitation: false, count: 2 });
    const oneUncovered = summarizePermissionDenials([bash('npm test | tail'), bash('rm -rf x')], ['Bash(npm *)']);
    expect(oneUncovered.hasPermissionDenials).toBe(true);
  });

  it('describes denied commands as the Bash tool did (#143)', () => {
    const long = `echo ${'x'.repeat(100)}\nsecond line`;
    const summary = summarizePermissionDenials(
      [bash('npm test\nmore'), bash(long), { toolName: 'Write', toolUseId: null, input: {} }, { toolName: '', toolUseId: null, input: {} }],
      [],
    );
    expect(summary.deniedCommands).toEqual(['Bash(npm test)', `Bash(${long.slice(0, 60)})`, 'Write', 'unknown']);
  });

  it('has nothing to report without denials', () => {
    expect(summarizePermissionDenials([], ['Bash(*)'])).toEqual({
      hasPermissionDenials: false,
      count: 0,
      deniedCommands: [],
      hasCompoundCommandLimitation: false,
      compoundCommandCount: 0,
    });
  });
});

describe('baseCommand / isBaseCommandAllowed', () => {
  it.each([
    ['npm test', 'npm'],
    ['  git\tstatus', 'git'],
    ['ls|wc', 'ls'],
    ['a;b', 'a'],
    ['a&&b', 'a'],
    ['cat<in', 'cat'],
    ['echo>out', 'echo'],
  ])('%j → %j', (command, base) => {
    expect(baseCommand(command)).toBe(base);
  });

  it('never covers an empty command', () => {
    expect(isBaseCommandAllowed('', ['Bash(npm *)', 'Bash(*)', '*'])).toBe(false);
    expect(isBaseCommandAllowed('npm ci', ['Bash(npm *)'])).toBe(true);
  });
});
