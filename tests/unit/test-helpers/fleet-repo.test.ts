// withFleetRepo()'s git on the job's PATH: the real git itself until a test asks for failing or
// recorded pushes (no sh started before each of ralph's git calls), then a git that refuses the
// pushes it was told to, as a flaky network would, and records each push's target. Its origin:
// made by git the first time, copied after for the same project, each repo's its own.

import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { findExecutable } from '../../../lib/platform/find-executable.js';
import { withFleetRepo, type FleetRepo } from '../../helpers/fleet-repo.js';
import { PROJECT_TEMPLATES_ENV } from '../../helpers/project-templates.js';
import { GIT_TEST_ENV } from '../../helpers/tmp-project.js';

const made: FleetRepo[] = [];
const scratch: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const repo of made.splice(0)) repo.cleanup();
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fleetRepo(): { r: FleetRepo; env: NodeJS.ProcessEnv } {
  const r = withFleetRepo({ gh: {} });
  made.push(r);
  return { r, env: { ...process.env, ...GIT_TEST_ENV, PATH: [r.ghBinDir, process.env.PATH].join(delimiter) } };
}

/** A commit on the work branch of a clone, pushed to origin with the git the job's PATH finds. */
function pushWork(r: FleetRepo, env: NodeJS.ProcessEnv): number | null {
  const dir = r.cloneJob();
  execFileSync('git', ['checkout', '-q', '-b', 'ralph/issue-7'], { cwd: dir, env });
  execFileSync('git', ['commit', '-q', '--allow-empty', '-m', 'work'], { cwd: dir, env });
  return spawnSync('git', ['push', '-q', 'origin', 'ralph/issue-7'], { cwd: dir, env, stdio: 'ignore' }).status;
}

describe("withFleetRepo's git", () => {
  it('is the real git on the PATH a job gets, with no push recorded, until a test asks for pushes', () => {
    const { r, env } = fleetRepo();
    expect(findExecutable('git', env)).toBe(findExecutable('git', process.env));
    expect(pushWork(r, env)).toBe(0);
    expect(r.pushes()).toEqual([]);
  });

  it('refuses the pushes it was told to and records every push from then on', () => {
    const { r, env } = fleetRepo();
    r.failPushes(1);
    expect(findExecutable('git', env)).toBe(join(r.ghBinDir, 'git'));
    expect(pushWork(r, env)).toBe(128);
    expect(pushWork(r, env)).toBe(0);
    expect(r.pushes()).toEqual(['refs/heads/ralph/issue-7', 'refs/heads/ralph/issue-7']);
    expect(execFileSync('git', ['--git-dir', r.origin, 'branch', '--list', 'ralph/issue-7'], { encoding: 'utf8' }).trim()).toBe('ralph/issue-7');
  });

  it('records pushes without refusing any when asked to', () => {
    const { r, env } = fleetRepo();
    r.recordPushes();
    expect(pushWork(r, env)).toBe(0);
    expect(r.pushes()).toEqual(['refs/heads/ralph/issue-7']);
  });
});

describe("withFleetRepo's origin", () => {
  /** A git that counts its calls first on PATH (so the test's projects are new to the run), and templates of the test's own. */
  function countingGit(): () => number {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-counting-git-'));
    const templates = mkdtempSync(join(tmpdir(), 'ralph-templates-test-'));
    scratch.push(dir, templates);
    writeFileSync(join(dir, 'git'), `#!/bin/sh\necho "$*" >> '${dir}/calls'\nexec '${findExecutable('git', process.env)}' "$@"\n`);
    chmodSync(join(dir, 'git'), 0o755);
    vi.stubEnv('PATH', `${dir}${delimiter}${process.env.PATH}`);
    vi.stubEnv(PROJECT_TEMPLATES_ENV, templates);
    return () => readFileSync(join(dir, 'calls'), 'utf8').split('\n').filter(Boolean).length;
  }
  const mainTree = (r: FleetRepo) => execFileSync('git', ['--git-dir', r.origin, 'rev-parse', 'main^{tree}'], { encoding: 'utf8' }).trim();

  it('is made by git once for a project, then copied: the same main, and each repo its own', () => {
    const calls = countingGit();
    const first = withFleetRepo({ rc: 'MAX_LOOPS=4\n', gh: {} });
    made.push(first);
    const byGit = calls();
    expect(byGit).toBeGreaterThan(0);
    const second = withFleetRepo({ rc: 'MAX_LOOPS=4\n', gh: {} });
    made.push(second);
    expect(calls()).toBe(byGit);
    expect(mainTree(second)).toBe(mainTree(first));
    expect(execFileSync('git', ['show', 'main:.ralphrc'], { cwd: second.origin, encoding: 'utf8' })).toContain('MAX_LOOPS=4');

    // A push to one origin leaves the other as it was.
    const before = mainTree(first);
    const dir = second.cloneJob();
    const env = { ...process.env, ...GIT_TEST_ENV };
    writeFileSync(join(dir, 'work.txt'), 'work\n');
    execFileSync('git', ['add', 'work.txt'], { cwd: dir, env });
    execFileSync('git', ['commit', '-qm', 'work'], { cwd: dir, env });
    execFileSync('git', ['push', '-q', 'origin', 'main'], { cwd: dir, env });
    expect(mainTree(second)).not.toBe(before);
    expect(mainTree(first)).toBe(before);

    // Another project: made by git again.
    const counted = calls();
    made.push(withFleetRepo({ rc: 'MAX_LOOPS=5\n', gh: {} }));
    expect(calls()).toBeGreaterThan(counted);
  });
});
