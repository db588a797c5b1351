import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { movedControlFiles, projectPaths, ralphPaths } from '../../../lib/state/paths.js';
import { RalphError } from '../../../lib/errors.js';

const DEFAULTS = { PROMPT_FILE: '.ralph/PROMPT.md', FIX_PLAN_FILE: '.ralph/fix_plan.md', AGENT_FILE: '.ralph/AGENT.md' };
const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

function tmp(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-paths-')));
  dirs.push(dir);
  return dir;
}

describe('projectPaths: the control files the configuration names', () => {
  it('resolves FIX_PLAN_FILE and AGENT_FILE against the project; empty means the default', () => {
    const dir = tmp();
    const paths = projectPaths(dir, { ...DEFAULTS, FIX_PLAN_FILE: 'docs/plan.md', AGENT_FILE: '' });
    expect(paths.fixPlan).toBe(join(dir, 'docs/plan.md'));
    expect(paths.agent).toBe(join(dir, '.ralph/AGENT.md'));
    expect(movedControlFiles(paths)).toEqual({ plan: 'docs/plan.md', agent: undefined });
    expect(movedControlFiles(ralphPaths(dir))).toEqual({ plan: undefined, agent: undefined });
  });

  it('uses PROMPT_FILE as the prompt path (absolute allowed, as in the Bash tool)', () => {
    const dir = tmp();
    expect(projectPaths(dir, { ...DEFAULTS, PROMPT_FILE: 'prompts/p.md' }).prompt).toBe(join(dir, 'prompts/p.md'));
    expect(projectPaths(dir, { ...DEFAULTS, PROMPT_FILE: '/elsewhere/p.md' }).prompt).toBe('/elsewhere/p.md');
  });

  it.each([
    ['FIX_PLAN_FILE', '../plan.md'],
    ['FIX_PLAN_FILE', '/etc/plan.md'],
    ['FIX_PLAN_FILE', '.'],
    ['AGENT_FILE', 'docs/../../AGENT.md'],
  ])('refuses %s=%s outside the project, naming the key', (key, value) => {
    const dir = tmp();
    expect(() => projectPaths(dir, { ...DEFAULTS, [key]: value })).toThrow(`${key}=${value} points outside the project`);
  });

  it('refuses a path that a symlinked folder leads out of the project', () => {
    const dir = tmp();
    const outside = tmp();
    mkdirSync(join(outside, 'real'));
    symlinkSync(join(outside, 'real'), join(dir, 'docs'));
    expect(() => projectPaths(dir, { ...DEFAULTS, FIX_PLAN_FILE: 'docs/plan.md' })).toThrow('FIX_PLAN_FILE=docs/plan.md leads outside the project');
    expect(() => projectPaths(dir, { ...DEFAULTS, AGENT_FILE: 'docs/AGENT.md' })).toThrow('AGENT_FILE=docs/AGENT.md leads outside');
  });

  it('names the symlinked folder a default path leads out through (a moved .ralph), and says to put the folder back', () => {
    const dir = tmp();
    const outside = tmp();
    mkdirSync(join(outside, 'ralph-state'));
    symlinkSync(join(outside, 'ralph-state'), join(dir, '.ralph'));
    let error: unknown;
    try {
      projectPaths(dir, DEFAULTS);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RalphError);
    expect((error as RalphError).message).toBe(
      `FIX_PLAN_FILE=.ralph/fix_plan.md leads outside the project (${dir}) through .ralph, a symlink to ${join(outside, 'ralph-state')}`,
    );
    expect((error as RalphError).hint).toMatch(/^replace the link \.ralph with the folder it points to, or set FIX_PLAN_FILE in \.ralphrc/);
  });
});
