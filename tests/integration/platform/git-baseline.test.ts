// The settings a run starts with, as the git gateway records them (lib/platform/git-gateway.ts):
// the program-running keys of the user's own configuration are the ones ralph's git calls keep
// (a credential helper, an ssh command), not ralph's own harmless stand-ins; and the start asks
// git for the configuration once: the listing the user's snapshot is taken from also gives the
// project repository's settings and remotes.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareGitRun, recordGitBaseline, resetGitBaselines } from '../../../lib/platform/git-gateway.js';
import { GIT_TEST_ENV, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject;
let home: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  project = tmpProject({ 'a.txt': 'a\n' }, { git: true });
  home = mkdtempSync(join(tmpdir(), 'ralph-baseline-home-'));
  writeFileSync(join(home, '.gitconfig'), '[credential]\n\thelper = store\n[core]\n\tsshCommand = ssh -i ~/.ssh/deploy_key\n');
  // Each test's own user configuration: a snapshot of its own.
  env = { ...process.env, ...GIT_TEST_ENV, HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
  delete env.GIT_CONFIG_GLOBAL;
});
afterEach(() => {
  resetGitBaselines();
  project.cleanup();
  rmSync(home, { recursive: true, force: true });
});

/** The last value each key gets from the overrides of a git call (GIT_CONFIG_PARAMETERS: `'key=value'` words, the last one wins). */
function finalOverrides(parameters: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const [, key, value] of (parameters ?? '').matchAll(/'([^'=]+)=([^']*)'/g)) out.set(key!, value!);
  return out;
}

describe('the baseline of the run-start settings', () => {
  it("keeps the user's credential helper and ssh command for ralph's git calls", async () => {
    project.git('remote', 'add', 'origin', 'https://example.invalid/project.git');
    await recordGitBaseline(project.dir, env);
    const push = await prepareGitRun(['push', 'origin', 'HEAD'], { cwd: project.dir, env });
    const final = finalOverrides(push.env.GIT_CONFIG_PARAMETERS);
    expect(final.get('credential.helper')).toBe('store');
    expect(final.get('core.sshcommand')).toBe('ssh -i ~/.ssh/deploy_key');
    // Hooks and fsmonitor stay off whatever the user set.
    expect(final.get('core.hookspath')).toBe('/dev/null');
  });

  it('asks git for the configuration once at the start: the user snapshot and the repository settings come from one listing', async () => {
    project.git('remote', 'add', 'origin', 'https://example.invalid/project.git');
    const trace = join(home, 'git.trace');
    writeFileSync(trace, '');
    await recordGitBaseline(project.dir, { ...env, GIT_TRACE: trace });
    const calls = readFileSync(trace, 'utf8')
      .split('\n')
      .flatMap((line) => (/built-in: git /.test(line) ? [line.replace(/.*built-in: /, '')] : []));
    expect(calls.filter((call) => call.startsWith('git config '))).toEqual(['git config -z --list --show-scope --includes']);
    // The remotes are still found in it, and their push and fetch URLs recorded with one call.
    expect(calls.filter((call) => call.startsWith('git remote '))).toEqual(['git remote -v']);
  });
});
