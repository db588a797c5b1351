// `ralph --sandbox bwrap` run as root against an agent that tries every way it has to leave a
// setuid or setgid file in the project: chmod, fchmod, fchmodat, fchmodat2, open, openat and
// creat with such a mode, mknod, an O_TMPFILE linked in, openat2, io_uring, the 32-bit and x32
// entries, `cp -p` of a host setuid program, a hard link to one, a process left running that
// tries again and again, and in the first call a hard link and a rename of a setuid file the
// project already had. The sandbox's seccomp filter refuses each call inside (so no sweep is
// needed after the later calls), and the one sweep after the first call clears the bit the
// project had, under each of its names. Needs root, bubblewrap and an x86-64 machine.

import { chmodSync, copyFileSync, lstatSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readCallLog, withFakeClaude, type FakeCallScript } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject } from '../helpers/tmp-project.js';
import { bwrapFakeEnv, prepareSandboxProject, requireBwrap, requireRoot } from '../helpers/sandbox-tools.js';
import { useCleanups } from '../helpers/cleanups.js';

const ATTACK = join(import.meta.dirname, '..', 'fixtures', 'set-id-attack', 'attack.py');
const ATTACKS = [
  'chmod',
  'chmod-setgid',
  'fchmod',
  'fchmodat',
  'fchmodat2',
  'open',
  'openat',
  'creat',
  'mknod',
  'mknodat',
  'tmpfile',
  'openat2',
  'io_uring',
  'i386',
  'x32',
  'hardlink',
];

const cleanups = useCleanups();
beforeAll(() => {
  requireRoot('the agent runs as an ordinary user only when ralph is root');
  requireBwrap();
  if (process.arch !== 'x64') throw new Error('the attacks are written for x86-64 (the 32-bit entry is called by its machine code)');
}, 300_000);

const bash = (command: string) => ({ tool: 'Bash', input: { command }, exec: true }) as const;

/** The regular files under `dir` with a setuid or setgid bit (`.git` included). */
function setIdFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    const st = lstatSync(path);
    if (st.isFile() && (st.mode & 0o6000) !== 0) found.push(path.slice(dir.length + 1));
  }
  return found;
}

describe('ralph --sandbox bwrap as root: no setuid or setgid file survives an agent that tries', () => {
  it('refuses each way inside, and clears, after the first call, the bit of a file the project had under every name', async () => {
    const project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\nALLOWED_TOOLS="Bash"\n` }), { git: true });
    const first: FakeCallScript = {
      steps: [
        bash('ln had-setuid linked && mv had-setuid renamed && stat -c %a linked > .ralph/probe/linked-inside'),
        bash('python3 attack.py one .ralph/probe/one.json'),
      ],
      statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
    };
    const second: FakeCallScript = { steps: [bash('python3 attack.py two .ralph/probe/two.json')], statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } };
    const fake = withFakeClaude({ calls: [first, second] });
    cleanups.push(
      () => project.cleanup(),
      () => fake.cleanup(),
    );
    copyFileSync(ATTACK, project.path('attack.py'));
    // The user's own setuid program, there before the run.
    copyFileSync('/bin/sh', project.path('had-setuid'));
    mkdirSync(project.path('.ralph/probe'), { recursive: true });
    const env = {
      ...bwrapFakeEnv(project, fake),
      SANDBOX_DOCKER_NETWORK: 'bridge',
    };
    const finalEnv = { ...env, ...prepareSandboxProject(project, fake) };
    // The owner's chmod, after the project is given to them (chown clears the bit).
    chmodSync(project.path('had-setuid'), 0o4755);
    expect(lstatSync(project.path('had-setuid')).mode & 0o7777).toBe(0o4755);

    const r = await runCli('ralph', ['--sandbox', 'bwrap', '--max-loops', '2'], { cwd: project.dir, env: finalEnv });

    const calls = readCallLog(project.path('.ralph/fake-state/calls.jsonl')).filter((call) => call.prompt !== undefined);
    expect(calls, r.stderr).toHaveLength(2);
    // The file the project had kept its bit inside the first call, under both names ...
    expect(readFileSync(project.path('.ralph/probe/linked-inside'), 'utf8').trim(), r.stderr).toBe('4755');
    // ... and lost it after that call, under both.
    for (const name of ['linked', 'renamed']) expect(lstatSync(project.path(name)).mode & 0o7777, name).toBe(0o755);
    expect(r.stderr).toContain('Cleared the setuid/setgid bit of 1 file(s) made in the sandbox:');
    // Each attack failed inside, in both calls, and its file never carried a bit there.
    for (const label of ['one', 'two']) {
      const results = JSON.parse(readFileSync(project.path(`.ralph/probe/${label}.json`), 'utf8')) as Record<string, { error: string; mode: string }>;
      for (const attack of ATTACKS) expect(results[attack]?.error, `${label} ${attack}: ${JSON.stringify(results)}`).not.toBe('none');
      // (`cp -p` as the owner may drop the bit itself rather than fail.)
      for (const attack of [...ATTACKS, 'cp-p']) expect(results[attack]?.mode, `${label} ${attack}`).toMatch(/^(absent|0o[0-1]?[0-7]{3})$/);
      expect(results.racer?.mode, `${label} racer`).toBe('0o755');
    }
    // And none is on the host after the run.
    expect(setIdFiles(project.dir)).toEqual([]);
  }, 120_000);
});
