// ralph's own host tools (git, tmux, gh, …) are never taken from where the agent can write: a
// `git` or `tmux` planted in the project's node_modules/.bin or bin/, in a relative PATH entry
// (`.`, `bin`) or an empty one, with those entries ahead of the system's on PATH, is not run —
// whether ralph names the tool (the spawner) or looks it up first (tmux for --monitor). The
// project's own code (the gate's command, the agent) still finds what PATH gives it.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findHostTool, hostToolOnPath, isExecutableFile, markAgentWritable } from '../../../lib/platform/find-executable.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { runProcessSync } from '../../../lib/platform/start-process.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

/** A project with `git` and `tmux` planted in node_modules/.bin, bin/ and its top folder; each leaves a marker when run. */
function plantedProject(): { dir: string; marker: string; path: string } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-host-tools-')));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const marker = join(dir, 'planted-ran');
  for (const folder of ['node_modules/.bin', 'bin', '.']) {
    mkdirSync(join(dir, folder), { recursive: true });
    for (const tool of ['git', 'tmux', 'gh'])
      writeFileSync(join(dir, folder, tool), `#!/bin/sh\necho "${folder}/${tool}" >> '${marker}'\necho planted\n`, { mode: 0o755 });
  }
  const path = [join(dir, 'node_modules/.bin'), join(dir, 'bin'), '.', 'bin', '', process.env.PATH ?? ''].join(delimiter);
  return { dir, marker, path };
}

describe('host tools', () => {
  it('are looked up with each folder that can hold them resolved once: the untrusted roots, each PATH entry, the file found', () => {
    const { dir, path } = plantedProject();
    const resolved: string[] = [];
    const fs = { realpath: (p: string) => (resolved.push(p), realpathSync.native(p)), isExecutableFile };
    const found = hostToolOnPath('git', path, [dir], fs);
    const absolute = path.split(delimiter).filter((entry) => entry.startsWith('/'));
    expect(found?.file).toBe(
      join(
        found!.path.split(delimiter).find((entry) => existsSync(join(entry, 'git')))!,
        'git',
      ),
    );
    expect(found?.path.split(delimiter).some((entry) => entry.startsWith(dir))).toBe(false);
    expect(resolved).toEqual([dir, ...absolute, found!.file]);
    // A folder beside the project whose name begins with the project's is not inside it.
    const beside = `${dir}-tools`;
    mkdirSync(beside);
    cleanups.push(() => rmSync(beside, { recursive: true, force: true }));
    writeFileSync(join(beside, 'git'), '#!/bin/sh\n', { mode: 0o755 });
    expect(hostToolOnPath('git', [join(dir, 'bin'), beside].join(delimiter), [dir])).toEqual({ file: join(beside, 'git'), path: beside });
  });

  it('are run from outside the project, whatever the project planted on PATH ahead of them', async () => {
    const { dir, marker, path } = plantedProject();
    const env = { ...process.env, PATH: path };
    const git = await nodeProcessRunner.run('git', ['--version'], { cwd: dir, env });
    expect(git.stdout).toMatch(/^git version \d/);
    const tmux = await nodeProcessRunner.run('tmux', ['-V'], { cwd: dir, env });
    expect(tmux.stdout).toMatch(/^tmux \d/);
    expect(runProcessSync('git', ['--version'], { cwd: dir, env }).stdout).toMatch(/^git version \d/);
    expect(existsSync(marker) ? readMarker(marker) : 'nothing planted ran').toBe('nothing planted ran');
  });

  it('are not found at all when only the project has them (gh here), instead of running its copy', async () => {
    const { dir, marker, path } = plantedProject();
    const systemDirs = (process.env.PATH ?? '').split(delimiter).filter((entry) => entry !== '' && !existsSync(join(entry, 'gh')));
    const env = { ...process.env, PATH: [...path.split(delimiter).slice(0, 5), ...systemDirs].join(delimiter) };
    const gh = await nodeProcessRunner.run('gh', ['--version'], { cwd: dir, env });
    expect(gh.spawnError?.code).toBe('ENOENT');
    expect(existsSync(marker)).toBe(false);
  });

  it("the tools' own PATH leaves the project out too (what git or tmux start in turn)", async () => {
    const { dir, path } = plantedProject();
    const env = { ...process.env, PATH: path };
    const printed = await nodeProcessRunner.run('sh', ['-c', 'echo "$PATH"'], { cwd: dir, env });
    const entries = printed.stdout.trim().split(delimiter);
    expect(entries.filter((entry) => entry === '' || !entry.startsWith('/') || entry.startsWith(dir))).toEqual([]);
    expect(entries.length).toBeGreaterThan(0);
  });

  it("leave out a marked project's PATH entries even when the call runs elsewhere (a --parallel unit's worktree)", async () => {
    const { dir, marker, path } = plantedProject();
    const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-host-tools-cwd-')));
    cleanups.push(() => rmSync(elsewhere, { recursive: true, force: true }));
    const unmark = markAgentWritable([dir]);
    cleanups.push(unmark);
    const git = await nodeProcessRunner.run('git', ['--version'], { cwd: elsewhere, env: { ...process.env, PATH: path } });
    expect(git.stdout).toMatch(/^git version \d/);
    expect(findHostTool('tmux', { PATH: path })).not.toContain(dir);
    expect(existsSync(marker)).toBe(false);
  });

  it('are found as usual for a call run from `/`, which is no project', async () => {
    const git = await nodeProcessRunner.run('git', ['--version'], { cwd: '/', env: process.env });
    expect(git.stdout).toMatch(/^git version \d/);
  });

  it("run the project's own code (the gate, the agent) with the PATH it was given", async () => {
    const { dir, marker, path } = plantedProject();
    const run = await nodeProcessRunner.run('gh', ['--version'], { cwd: dir, env: { ...process.env, PATH: path }, projectCode: true });
    expect(run.stdout.trim()).toBe('planted');
    expect(readMarker(marker)).toBe('node_modules/.bin/gh');
  });
});

function readMarker(marker: string): string {
  return readFileSync(marker, 'utf8').trim();
}
