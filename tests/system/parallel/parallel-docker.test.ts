// `ralph --parallel N --sandbox docker` with a real daemon and the test image (the host's node,
// git and the fake agent, tests/helpers/sandbox-tools.ts): each unit gets a container of its
// own (no name collides), its agent commits in its worktree inside it, and the units merge.
// ralph runs as an ordinary user in the docker group. The fake in the image reads its scenario
// from the worktree (.ralph/fake-state/, committed so every worktree has it).

import { chownSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { docker, ensureTestImage, readablePackageCopy, requireDockerDaemon, requireRoot } from '../../helpers/sandbox-tools.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { doesItem, parallelProject } from '../../e2e/parallel/parallel-helpers.js';

const USER = 1000;
let image = '';
let dockerGid = 0;
let packageCopy: ReturnType<typeof readablePackageCopy> | undefined;
beforeAll(() => {
  requireRoot('they run ralph as an ordinary user in the docker group');
  requireDockerDaemon();
  packageCopy = readablePackageCopy();
  image = ensureTestImage();
  const group = readFileSync('/etc/group', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[0] === 'docker');
  dockerGid = Number(group?.[2] ?? 0);
}, 600_000);
afterAll(() => {
  if (image) docker('image', 'rm', '-f', image);
  packageCopy?.cleanup();
});

const cleanups = useCleanups();

function chownTree(path: string): void {
  chownSync(path, USER, dockerGid);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) chownTree(child);
    else if (!entry.isSymbolicLink()) chownSync(child, USER, dockerGid);
  }
}

describe('ralph --parallel --sandbox docker', () => {
  it('runs three units in three containers started together, whose agents commit in their worktrees; all merge, no container is left', async () => {
    const commits = (item: string, file: string) => doesItem(item, { [file]: `${file}\n` }, { gitCommit: `agent: ${item}` });
    const scenario = { calls: [commits('Add alpha', 'a.txt'), commits('Add beta', 'b.txt'), commits('Add gamma', 'c.txt')] };
    const p = parallelProject(
      ['Add alpha', 'Add beta', 'Add gamma'],
      { calls: [] },
      {
        // The image has node and git only: the test command is a node script that reports one test.
        rc: 'TEST_COMMAND="node gate.js"\nALLOWED_TOOLS="Read,Write,Bash"\n',
        files: { '.ralph/fake-state/scenario.json': JSON.stringify(scenario), 'gate.js': "console.log('TAP version 13\\nok 1 - probe\\n1..1');\n" },
      },
    );
    cleanups.push(() => p.cleanup());
    const stateHome = join(p.claude.root, 'state-home');
    mkdirSync(stateHome, { recursive: true });
    chownTree(p.project.dir);
    chownTree(p.claude.root);
    const env = { ...p.env, SANDBOX_DOCKER_IMAGE: image, XDG_STATE_HOME: stateHome };
    let pid = 0;
    const run = await runCli('ralph', ['--parallel', '3', '--sandbox', 'docker', '--sandbox-memory', '512m'], {
      cwd: p.project.dir,
      env,
      uid: USER,
      gid: dockerGid,
      packageRoot: packageCopy!.root,
      onSpawn: (child) => (pid = child.pid!),
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // The project belongs to USER: the test's own git, as root, is told it is safe.
    const git = (...args: string[]) => p.project.git('-c', 'safe.directory=*', ...args);
    const log = git('log', '--format=%s');
    for (const item of ['Add alpha', 'Add beta', 'Add gamma']) expect(log).toContain(`agent: ${item}`);
    for (const file of ['a.txt', 'b.txt', 'c.txt']) expect(git('show', `HEAD:${file}`)).toBe(`${file}\n`);
    // Three containers started in the same second (one per unit, no name collided), all removed at the end.
    expect(docker('ps', '-a', '--filter', `name=ralph-sandbox-${pid}-`, '--format', '{{.Names}}').stdout.trim()).toBe('');
  }, 300_000);
});
