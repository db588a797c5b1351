// A fleet job on Actions pushes with the token gh holds: git is given `gh auth git-credential` as
// its credential helper for the job. ralph's git gateway drops GIT_CONFIG_COUNT and its keys with
// git's other location variables, so the helper must come through GIT_CONFIG_PARAMETERS, which
// the gateway keeps as the run's own settings, or every push of the job fails for want of a login.

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withGitCredentials } from '../../../lib/fleet/job-git.js';
import { recordGitBaseline, resetGitBaselines } from '../../../lib/platform/git-gateway.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { GIT_TEST_ENV, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
let bin: string | undefined;
afterEach(() => {
  project?.cleanup();
  if (bin) rmSync(bin, { recursive: true, force: true });
  resetGitBaselines();
});

/** A `gh` that answers git's credential question with the token it was given. */
function fakeGh(): string {
  bin = mkdtempSync(join(tmpdir(), 'ralph-gh-bin-'));
  const gh = join(bin, 'gh');
  writeFileSync(gh, '#!/bin/sh\n[ "$1 $2 $3" = "auth git-credential get" ] || exit 1\nprintf \'username=x-access-token\\npassword=%s\\n\' "$GH_TOKEN"\n');
  chmodSync(gh, 0o755);
  return bin;
}

describe("a fleet job's git on Actions", () => {
  it("reaches gh's credential helper through ralph's git gateway", async () => {
    project = tmpProject({ 'a.txt': 'a\n' }, { git: true });
    const env = withGitCredentials({
      ...process.env,
      ...GIT_TEST_ENV,
      PATH: `${fakeGh()}${delimiter}${process.env.PATH ?? ''}`,
      GH_TOKEN: 'ghs_job_token',
      GITHUB_ACTIONS: 'true',
      GIT_TERMINAL_PROMPT: '0',
    });
    await recordGitBaseline(project.dir, env);
    const filled = await nodeProcessRunner.run('git', ['credential', 'fill'], {
      cwd: project.dir,
      env,
      input: 'protocol=https\nhost=github.com\npath=o/r.git\n\n',
    });
    expect(filled.code, filled.stderr).toBe(0);
    expect(filled.stdout).toContain('password=ghs_job_token');
  });

  it('gives git no helper off Actions or without a token', () => {
    expect(withGitCredentials({ GH_TOKEN: 't' }).GIT_CONFIG_PARAMETERS).toBeUndefined();
    expect(withGitCredentials({ GITHUB_ACTIONS: 'true' }).GIT_CONFIG_PARAMETERS).toBeUndefined();
  });
});
