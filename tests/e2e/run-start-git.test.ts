// What a run asks git, counted through GIT_TRACE (git writes a line per process it starts to that
// file): where the repository is is asked once, by the gateway as it fixes the repository, the
// configuration is listed once, and the run reads whether the project is in git from that answer
// instead of asking again; the closing summary walks the history only when HEAD moved.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCleanups } from '../helpers/cleanups.js';
import { withFakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject } from '../helpers/tmp-project.js';

const cleanups = useCleanups();

/** A one-loop run of `ralph` in a new project; the git commands it ran, as `git <args>` lines. */
async function oneLoop(git: boolean) {
  const project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC }), { git });
  cleanups.push(() => project.cleanup());
  const fake = withFakeClaude({ calls: [{ writeFiles: { 'src/a.txt': 'a\n' }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } }] });
  cleanups.push(() => fake.cleanup());
  const trace = join(fake.root, 'git-trace.log');
  writeFileSync(trace, '');
  const result = await runCli('ralph', ['--max-loops', '1'], { cwd: project.dir, env: { ...fake.env, GIT_TRACE: trace } });
  const gitCalls = readFileSync(trace, 'utf8')
    .split('\n')
    .flatMap((line) => (/built-in: git /.test(line) ? [line.replace(/.*built-in: /, '')] : []));
  return { result, fake, gitCalls, log: readFileSync(project.path('.ralph/logs/ralph.log'), 'utf8') };
}

describe('the git calls of a one-loop run', () => {
  it('in a git project: where the repository is is asked once, and nothing asks whether it is a work tree', async () => {
    const { result, fake, gitCalls, log } = await oneLoop(true);
    expect(fake.runs().length, result.stderr).toBe(1);
    expect(gitCalls.filter((call) => call.includes('--absolute-git-dir') || call.includes('--show-toplevel'))).toEqual([
      "git rev-parse --absolute-git-dir --git-common-dir --is-bare-repository --show-toplevel --verify -q 'HEAD^{commit}'",
    ]);
    // That look also told where HEAD stood: HEAD is asked again only at the end, for the closing summary.
    expect(gitCalls.filter((call) => call.startsWith('git rev-parse -q --verify'))).toEqual(["git rev-parse -q --verify 'HEAD^{commit}'"]);
    expect(gitCalls.filter((call) => call.includes('--is-inside-work-tree'))).toEqual([]);
    // The configuration is listed once: the user's snapshot and the repository's settings and remotes come from it.
    expect(gitCalls.filter((call) => call.startsWith('git config '))).toEqual(['git config -z --list --show-scope --includes']);
    expect(log).not.toContain('not a git repository');
  });

  it('a run whose HEAD did not move counts its commits without asking git to walk the history', async () => {
    const { result, fake, gitCalls, log } = await oneLoop(true);
    expect(fake.runs().length, result.stderr).toBe(1);
    expect(log).toMatch(/Commits: +0\b/);
    expect(gitCalls.filter((call) => call.startsWith('git rev-list'))).toEqual([]);
  });

  it('in a folder outside git: the run warns that it is no repository, and still makes its call', async () => {
    const { result, fake, log } = await oneLoop(false);
    expect(fake.runs().length, result.stderr).toBe(1);
    expect(log).toContain('This folder is not a git repository: ralph still runs');
  });
});
