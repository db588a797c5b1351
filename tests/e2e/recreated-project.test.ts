// A project deleted and created again at the same path with ralph-setup starts afresh: the run
// state ralph keeps outside the project (keyed by its path) is moved aside, not inherited — a
// new project never halts on the circuit breaker its predecessor left OPEN. Set up again over a
// project that still exists, nothing moves: that state is the project's own.
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ledgerPath } from '../../lib/state/ledger-path.js';
import { useCleanups } from '../helpers/cleanups.js';
import { withFakeClaude } from '../helpers/fake-claude.js';
import { runCli } from '../helpers/run-cli.js';
import { GIT_TEST_ENV, tmpProject } from '../helpers/tmp-project.js';

const cleanups = useCleanups();

async function projectWithOpenBreaker() {
  const ws = tmpProject({}, { git: false });
  cleanups.push(() => ws.cleanup());
  // Three calls that change nothing: the breaker opens (no progress in 3 loops).
  const f = withFakeClaude({ calls: [{ resultText: 'Looked around' }, { resultText: 'Looked again' }, { resultText: 'Still looking' }] });
  cleanups.push(() => f.cleanup());
  const env = { ...f.env, ...GIT_TEST_ENV, XDG_STATE_HOME: ws.path('state'), CLAUDE_AUTO_UPDATE: 'false' };
  const demo = ws.path('demo');
  const setUp = async () => {
    const setup = await runCli('ralph-setup', ['demo'], { cwd: ws.dir, env });
    expect(setup.code, setup.stderr).toBe(0);
    writeFileSync(join(demo, '.ralph/fix_plan.md'), '# Fix Plan\n\n## Tasks\n- [ ] Add the app file\n');
    return setup;
  };
  await setUp();
  const run = await runCli('ralph', ['--max-loops', '5'], { cwd: demo, env });
  expect(run.code, run.stdout + run.stderr).not.toBe(0);
  const circuit = await runCli('ralph', ['--circuit-status'], { cwd: demo, env });
  expect(circuit.stdout).toMatch(/OPEN/);
  const stateDir = dirname(ledgerPath(demo, env, f.env.HOME ?? ws.dir));
  expect(existsSync(join(stateDir, 'ledger.json'))).toBe(true);
  return { ws, env, demo, stateDir, setUp };
}

describe('ralph-setup at the path of a deleted project', () => {
  it('moves the old run state aside and the new project starts with a closed breaker', async () => {
    const { env, demo, stateDir, setUp } = await projectWithOpenBreaker();
    rmSync(demo, { recursive: true, force: true });

    const setup = await setUp();
    expect(setup.stdout).toMatch(/A deleted project had run at this path: .*moved aside to .*\.replaced-/);
    const circuit = await runCli('ralph', ['--circuit-status'], { cwd: demo, env });
    expect(circuit.stdout).toMatch(/CLOSED/);
    expect(circuit.stdout).not.toMatch(/OPEN/);
    // Kept for the user beside where it was, never deleted.
    const parent = dirname(stateDir);
    const aside = readdirSync(parent).filter((name) => name.startsWith(`${stateDir.slice(parent.length + 1)}.replaced-`));
    expect(aside).toHaveLength(1);
    expect(existsSync(join(parent, aside[0]!, 'ledger.json'))).toBe(true);
  });

  it('leaves the state of a project that still exists where it is', async () => {
    const { env, demo, stateDir, setUp } = await projectWithOpenBreaker();
    const setup = await setUp();
    expect(setup.stdout).not.toMatch(/deleted project/);
    expect(existsSync(join(stateDir, 'ledger.json'))).toBe(true);
    const circuit = await runCli('ralph', ['--circuit-status'], { cwd: demo, env });
    expect(circuit.stdout).toMatch(/OPEN/);
  });
});
