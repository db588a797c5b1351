// `ralph --parallel` refuses, before any unit starts, a project it cannot branch units from:
// one outside git, one whose HEAD is detached, one with no commit yet, each with its own error;
// with tracked changes besides, the branch's refusal is the one given. (The start reads what it
// can from the git gateway's first look at the project, and asks git the branch checked out and
// the tracked changes side by side.)

import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { RalphError } from '../../../lib/errors.js';
import { runParallel } from '../../../lib/parallel/run-parallel.js';
import { systemClock } from '../../../lib/platform/clock.js';
import type { Deps } from '../../../lib/platform/deps.js';
import { resetGitBaselines } from '../../../lib/platform/git-gateway.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { createRedactor } from '../../../lib/text/redaction.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { captureOutput } from '../../helpers/loop-harness.js';
import { callsNaming, recordCallsInFlight } from '../../helpers/calls-in-flight.js';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

const cleanups = useCleanups();
afterEach(() => resetGitBaselines());

function project(options: { git: boolean; commit?: boolean }): TmpProject {
  const made = tmpProject(ralphProjectTree({ '.ralph/fix_plan.md': '# Plan\n- [ ] Add alpha\n- [ ] Add beta\n' }), options);
  cleanups.push(() => made.cleanup());
  return made;
}

function depsIn(dir: string, processRunner = nodeProcessRunner): Deps {
  const env: NodeJS.ProcessEnv = { ...process.env, ...GIT_TEST_ENV };
  return {
    clock: systemClock,
    env,
    cwd: dir,
    homeDir: env.HOME ?? homedir(),
    processRunner,
    logger: createMemoryLogger(),
    stdout: captureOutput(),
    stderr: captureOutput(),
    redact: createRedactor(env),
  };
}

/** The error `ralph --parallel 2` stops with in `dir`, before any unit starts. */
async function refusal(dir: string): Promise<RalphError> {
  const deps = depsIn(dir);
  const error: unknown = await runParallel({ projectDir: dir, flags: {}, deps, parallel: 2, haltOnFailure: false }).then(
    (code) => new Error(`ran to exit code ${code}`),
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof RalphError)) throw error;
  return error;
}

describe('ralph --parallel: a project it cannot branch units from', () => {
  it('outside git', async () => {
    const error = await refusal(project({ git: false }).dir);
    expect(error.code).toBe('parallel_not_git');
    expect(error.message).toBe('--parallel needs a git repository: each unit works in a git worktree');
  });

  it('with HEAD detached', async () => {
    const p = project({ git: true });
    p.git('checkout', '-q', '--detach');
    const error = await refusal(p.dir);
    expect(error.code).toBe('parallel_detached');
    expect(error.message).toBe('--parallel merges the units into the branch checked out, and HEAD is detached');
  });

  it('with no commit yet', async () => {
    const error = await refusal(project({ git: true, commit: false }).dir);
    expect(error.code).toBe('parallel_no_commit');
    expect(error.message).toBe('--parallel needs a first commit to branch the units from');
  });

  it('with HEAD detached and tracked changes besides: the detached HEAD is what it says', async () => {
    const p = project({ git: true });
    p.git('checkout', '-q', '--detach');
    writeFileSync(p.path('.gitignore'), 'changed\n');
    expect((await refusal(p.dir)).code).toBe('parallel_detached');
  });
});

describe('ralph --parallel: the checks of its start', () => {
  it('asks git the branch checked out and the tracked changes side by side', async () => {
    const p = project({ git: true });
    writeFileSync(p.path('.ralph/fix_plan.md'), '# Plan\n- [x] Add alpha\n');
    const { runner, calls } = recordCallsInFlight(nodeProcessRunner);
    const code = await runParallel({ projectDir: p.dir, flags: {}, deps: depsIn(p.dir, runner), parallel: 2, haltOnFailure: false });
    expect(code).toBe(0);
    const [branch] = callsNaming(calls, 'symbolic-ref');
    const [status] = callsNaming(calls, 'status');
    expect(branch).toBeDefined();
    expect(Math.max(branch!.running, status!.running)).toBe(2);
  });
});
