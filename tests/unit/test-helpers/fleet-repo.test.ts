// withFleetRepo()'s git on the job's PATH: the real git itself until a test asks for failing or
// recorded pushes (no sh started before each of ralph's git calls), then a git that refuses the
// pushes it was told to, as a flaky network would, and records each push's target.

import { execFileSync, spawnSync } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findExecutable } from '../../../lib/platform/find-executable.js';
import { withFleetRepo, type FleetRepo } from '../../helpers/fleet-repo.js';
import { GIT_TEST_ENV } from '../../helpers/tmp-project.js';

const made: FleetRepo[] = [];
afterEach(() => {
  for (const repo of made.splice(0)) repo.cleanup();
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
