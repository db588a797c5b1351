// `ralph --parallel N --sandbox bwrap`: each unit's agent runs in the sandbox in its worktree
// and can commit there (the worktree's git admin folder, the objects and the run's branch
// folder are writable to it; the repository's config and hooks stay read-only), and the
// units merge. ralph runs as an ordinary user (uid 1000), as on a workstation. Needs root (to
// hand the project to that user) and bubblewrap.

import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { readablePackageCopy, requireBwrap, requireRoot } from '../../helpers/sandbox-tools.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { doesItem, parallelProject } from '../../e2e/parallel/parallel-helpers.js';

const USER = 1000;
const cleanups = useCleanups();
let packageCopy: ReturnType<typeof readablePackageCopy> | undefined;
beforeAll(() => {
  requireRoot('the project is handed to an ordinary user, who runs ralph');
  requireBwrap();
  packageCopy = readablePackageCopy();
}, 300_000);
afterAll(() => packageCopy?.cleanup());

function chownTree(path: string): void {
  chownSync(path, USER, USER);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) chownTree(child);
    else if (!entry.isSymbolicLink()) chownSync(child, USER, USER);
  }
}

describe('ralph --parallel --sandbox bwrap', () => {
  it("lets each unit's agent commit in its worktree, keeps the repository config read-only, and merges both units", async () => {
    const commits = (item: string, file: string) => doesItem(item, { [file]: `${file}\n` }, { gitCommit: `agent: ${item}` });
    // Beta's agent also tries to plant a setting in the repository's config, a hook, and a
    // commit on the run branch (each may fail: the call goes on).
    const plant = [
      'printf \'[core]\\n\\tfsmonitor = /bin/true\\n\' >> "$(git rev-parse --git-common-dir)/config"',
      'mkdir -p "$(git rev-parse --git-common-dir)/hooks" && touch "$(git rev-parse --git-common-dir)/hooks/pre-commit"',
      'git update-ref refs/heads/main HEAD',
    ].map((command) => ({ tool: 'Bash', input: { command: `${command} || true` }, exec: true }));
    const hook = { ...commits('Add beta', 'b.txt'), steps: plant };
    const p = parallelProject(['Add alpha', 'Add beta'], { calls: [commits('Add alpha', 'a.txt'), hook] }, { rc: 'ALLOWED_TOOLS="Write,Read,Edit,Bash"\n' });
    cleanups.push(() => p.cleanup());
    const env = {
      ...p.env,
      // Relative: each unit's agent keeps its state in its own worktree, where it can write.
      FAKE_CLAUDE_STATE_DIR: '.ralph/fake-state',
      FAKE_CLAUDE_LOG: '.ralph/fake-state/calls.jsonl',
      SANDBOX_BWRAP_BIND: [p.claude.binDir, p.claude.scenarioPath].join(','),
      XDG_STATE_HOME: join(p.claude.root, 'state-home'),
      // The sandbox passes the fake's own settings only when asked to.
      SANDBOX_ENV: 'FAKE_CLAUDE_*',
    };
    mkdirSync(env.XDG_STATE_HOME, { recursive: true });
    chownTree(p.project.dir);
    chownTree(p.claude.root);
    const git = (...args: string[]) => p.project.git('-c', 'safe.directory=*', ...args);
    const config = readFileSync(p.project.path('.git/config'), 'utf8');
    const run = await runCli('ralph', ['--parallel', '2', '--sandbox', 'bwrap'], {
      cwd: p.project.dir,
      env,
      uid: USER,
      gid: USER,
      packageRoot: packageCopy!.root,
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const log = git('log', '--format=%s');
    expect(log).toContain('agent: Add alpha');
    expect(log).toContain('agent: Add beta');
    expect(git('show', 'HEAD:a.txt')).toBe('a.txt\n');
    expect(git('show', 'HEAD:b.txt')).toBe('b.txt\n');
    // What the agent wrote to the repository's config from inside the sandbox did not land.
    expect(readFileSync(p.project.path('.git/config'), 'utf8')).toBe(config);
    expect(existsSync(join(p.project.dir, '.git', 'hooks', 'pre-commit'))).toBe(false);
  }, 180_000);
});
