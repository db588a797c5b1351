// Progress from git: files the loop changed — commits, staged, unstaged, untracked — counted
// between two snapshots; a tree that was already dirty does not count; ralph's own state never does.

import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { isRalphStatePath, listChangedFiles, takeGitSnapshot } from '../../../lib/loop/git-progress.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

function setup(): { p: TmpProject; changed: (act: () => void) => Promise<string[]> } {
  const p = tmpProject({ 'src/a.ts': 'a\n', 'README.md': '# r\n', '.ralph/fix_plan.md': '- [ ] x\n', '.gitignore': 'ignored/\n' }, { git: true });
  project = p;
  const options = { projectDir: p.dir, processRunner: nodeProcessRunner };
  return {
    p,
    changed: async (act) => {
      const before = await takeGitSnapshot(options);
      act();
      const after = await takeGitSnapshot(options);
      return listChangedFiles(before, after, options);
    },
  };
}

describe('git progress', () => {
  it('counts unstaged, staged, untracked and committed changes', async () => {
    const { p, changed } = setup();
    const files = await changed(() => {
      appendFileSync(p.path('src/a.ts'), 'more\n');
      writeFileSync(p.path('src/new file.ts'), 'new\n');
      writeFileSync(p.path('staged.ts'), 's\n');
      p.git('add', 'staged.ts');
      writeFileSync(p.path('README.md'), '# changed\n');
      p.git('commit', '-q', '-m', 'readme', '--', 'README.md');
    });
    expect(files).toEqual(['README.md', 'src/a.ts', 'src/new file.ts', 'staged.ts']);
  });

  it('ignores what was already dirty before the loop and did not change', async () => {
    const { p, changed } = setup();
    appendFileSync(p.path('src/a.ts'), 'dirty before\n');
    writeFileSync(p.path('untracked-before.txt'), 'x');
    expect(await changed(() => undefined)).toEqual([]);
  });

  it('counts a pre-dirty file that the loop changed again, or reverted', async () => {
    const { p, changed } = setup();
    appendFileSync(p.path('src/a.ts'), 'dirty before\n');
    expect(await changed(() => appendFileSync(p.path('src/a.ts'), 'and again, longer\n'))).toEqual(['src/a.ts']);
    expect(await changed(() => p.git('checkout', '--', 'src/a.ts'))).toEqual(['src/a.ts']);
  });

  it('never counts ralph state or ignored files; does count fix_plan.md ticks', async () => {
    const { p, changed } = setup();
    const files = await changed(() => {
      writeFileSync(p.path('.ralph/status.json'), '{}');
      writeFileSync(p.path('.ralph/.call_count'), '3');
      mkdirSync(p.path('ignored'));
      writeFileSync(p.path('ignored/build.log'), 'x');
    });
    expect(files).toEqual([]);
    expect(await changed(() => writeFileSync(p.path('.ralph/fix_plan.md'), '- [x] x\n'))).toEqual(['.ralph/fix_plan.md']);
  });

  it('handles a repository without commits, and a folder that is no repository', async () => {
    project = tmpProject({ 'a.txt': 'a' }, { git: true, commit: false });
    const options = { projectDir: project.dir, processRunner: nodeProcessRunner };
    const before = await takeGitSnapshot(options);
    expect(before).toMatchObject({ isRepo: true, head: '' });
    writeFileSync(project.path('b.txt'), 'b');
    expect(await listChangedFiles(before, await takeGitSnapshot(options), options)).toEqual(['b.txt']);
    rmSync(project.path('.git'), { recursive: true });
    expect(await takeGitSnapshot(options)).toMatchObject({ isRepo: false });
  });

  it('classifies ralph state paths', () => {
    expect(isRalphStatePath('.ralph/status.json')).toBe(true);
    expect(isRalphStatePath('.ralph/logs/ralph.log')).toBe(true);
    expect(isRalphStatePath('.ralph/.exit_signals')).toBe(true);
    expect(isRalphStatePath('.ralph/fix_plan.md')).toBe(false);
    expect(isRalphStatePath('.ralph/specs/a.md')).toBe(false);
    expect(isRalphStatePath('src/status.json')).toBe(false);
  });
});
