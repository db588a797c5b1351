// `ralph --parallel N --sandbox bwrap|docker` run as root (CI, a container) on a project that
// belongs to an ordinary user: the sandbox runs each unit's agent as the project's owner, so
// each unit's worktree, its git admin folder and what its commit writes in the repository
// (objects, its branch's ref and log) must be that user's too. The agents commit, the units
// merge, and nothing ralph made in the repository is left root's. Needs root, bubblewrap, and
// a Docker daemon for the Docker case.

import { chownSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { docker, ensureTestImage, readablePackageCopy, requireBwrap, requireDockerDaemon, requireRoot } from '../../helpers/sandbox-tools.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { doesItem, parallelProject, type ParallelProject } from '../../e2e/parallel/parallel-helpers.js';

const OWNER = { uid: 1000, gid: 1000 };
const cleanups = useCleanups();
let packageCopy: ReturnType<typeof readablePackageCopy> | undefined;
beforeAll(() => {
  requireRoot('ralph runs as root on a project an ordinary user owns');
  packageCopy = readablePackageCopy();
}, 300_000);
afterAll(() => packageCopy?.cleanup());

function chownTreeTo(path: string, owner: { uid: number; gid: number }): void {
  chownSync(path, owner.uid, owner.gid);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) chownTreeTo(child, owner);
    else if (!entry.isSymbolicLink()) chownSync(child, owner.uid, owner.gid);
  }
}

/** Paths under `dir` (links aside) that root owns. */
function rootOwned(dir: string): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return;
    if (st.uid === 0) found.push(path);
    if (st.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  return found;
}

const commits = (item: string, file: string) => doesItem(item, { [file]: `${file}\n` }, { gitCommit: `agent: ${item}` });

// ralph (root) asks the fake agent for its version on the host, in the unit's worktree: the
// fake's state folders are in the tree, so that they are the owner's there and not made by root.
const FAKE_STATE = { '.ralph/fake-state/call.d/.keep': '', '.ralph/fake-state/seq.d/.keep': '', '.ralph/fake-state/calls.jsonl': '' };

/** Two items whose agents commit, the project and the fake agent handed to OWNER. */
function ownedProject(
  extraRc = '',
  files: Record<string, string> = {},
  scenario = { calls: [commits('Add alpha', 'a.txt'), commits('Add beta', 'b.txt')] },
): ParallelProject {
  const p = parallelProject(['Add alpha', 'Add beta'], scenario, {
    rc: `ALLOWED_TOOLS="Write,Read,Edit,Bash"\n${extraRc}`,
    files: { ...FAKE_STATE, ...files },
  });
  cleanups.push(() => p.cleanup());
  mkdirSync(join(p.claude.root, 'state-home'), { recursive: true });
  chownTreeTo(p.project.dir, OWNER);
  chownTreeTo(p.claude.root, OWNER);
  return p;
}

function expectMergedAndOwned(p: ParallelProject, run: { code: number | null; stdout: string; stderr: string }): void {
  expect(run.code, run.stdout + run.stderr).toBe(0);
  const git = (...args: string[]) => p.project.git('-c', 'safe.directory=*', ...args);
  const log = git('log', '--format=%s');
  expect(log).toContain('agent: Add alpha');
  expect(log).toContain('agent: Add beta');
  expect(git('show', 'HEAD:a.txt')).toBe('a.txt\n');
  expect(git('show', 'HEAD:b.txt')).toBe('b.txt\n');
  // Nothing ralph made in the project or its repository is left to root (the owner can go on
  // with git, and with ralph, as themselves).
  expect(rootOwned(p.project.dir)).toEqual([]);
}

describe('ralph --parallel as root on a project an ordinary user owns', () => {
  it('--sandbox bwrap: each agent runs as the owner and commits in its worktree; both units merge', async () => {
    requireBwrap();
    const p = ownedProject();
    const env = {
      ...p.env,
      FAKE_CLAUDE_STATE_DIR: '.ralph/fake-state',
      FAKE_CLAUDE_LOG: '.ralph/fake-state/calls.jsonl',
      SANDBOX_BWRAP_BIND: [p.claude.binDir, p.claude.scenarioPath].join(','),
      XDG_STATE_HOME: join(p.claude.root, 'state-home'),
      SANDBOX_ENV: 'FAKE_CLAUDE_*',
    };
    const run = await runCli('ralph', ['--parallel', '2', '--sandbox', 'bwrap'], { cwd: p.project.dir, env, packageRoot: packageCopy!.root });
    expectMergedAndOwned(p, run);
  }, 240_000);

  it('--sandbox docker: each agent runs as the owner in its container and commits in its worktree; both units merge', async () => {
    requireDockerDaemon();
    const image = ensureTestImage();
    cleanups.push(() => docker('image', 'rm', '-f', image));
    const scenario = { calls: [commits('Add alpha', 'a.txt'), commits('Add beta', 'b.txt')] };
    const p = ownedProject(
      'TEST_COMMAND="node gate.js"\n',
      { '.ralph/fake-state/scenario.json': JSON.stringify(scenario), 'gate.js': "console.log('TAP version 13\\nok 1 - probe\\n1..1');\n" },
      { calls: [] },
    );
    const env = { ...p.env, SANDBOX_DOCKER_IMAGE: image, XDG_STATE_HOME: join(p.claude.root, 'state-home') };
    const run = await runCli('ralph', ['--parallel', '2', '--sandbox', 'docker', '--sandbox-memory', '512m'], {
      cwd: p.project.dir,
      env,
      packageRoot: packageCopy!.root,
    });
    expectMergedAndOwned(p, run);
  }, 600_000);
});
