// The circuit breaker lives in ralph's ledger outside the project, the content ids seen in the
// run beside it; `.ralph/.circuit_breaker_state` is its view. The real `bin/ralph` with a fake agent that
// makes no progress opens the breaker; a process of the agent then closes it in `.ralph/` (or
// deletes it) between runs: the restarted ralph still sees the ledger's open breaker, says the view
// differs, writes the view again and calls the agent no more. `--reset-circuit` acts on the ledger.

import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { initialBreakerState } from '../../../lib/breaker/circuit-breaker.js';
import { ledgerPath, readLedger } from '../../../lib/state/ledger.js';
import { readContentMemory } from '../../../lib/state/content-memory-file.js';
import { withFakeClaude, type FakeCallScript, type FakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const idle: FakeCallScript = { resultText: 'Looked around, nothing changed.', statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } };
const work = (n: number): FakeCallScript => ({
  writeFiles: { [`src/f${n}.ts`]: `export const f${n} = ${n};\n` },
  statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
});
/** What the agent writes: a new breaker, CLOSED with every count at zero. */
const CLOSED = initialBreakerState(Date.parse('2026-12-01T00:00:00Z'));

const cleanups = useCleanups();

function setUp(calls: FakeCallScript[]): { project: TmpProject; fake: FakeClaude } {
  const project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}SESSION_CONTINUITY=false\n` }), { git: true });
  cleanups.push(() => project.cleanup());
  const fake = withFakeClaude({ calls });
  cleanups.push(() => fake.cleanup());
  return { project, fake };
}

const view = (project: TmpProject) => JSON.parse(readFileSync(project.path('.ralph/.circuit_breaker_state'), 'utf8')) as Record<string, unknown>;
const ledgerOf = (project: TmpProject) => readLedger(ledgerPath(project.dir, process.env, homedir()), () => undefined);
const contentMemoryOf = (project: TmpProject) => readContentMemory(ledgerPath(project.dir, process.env, homedir()), () => undefined);

async function openTheBreaker(project: TmpProject, fake: FakeClaude): Promise<void> {
  const first = await runCli('ralph', [], { cwd: project.dir, env: fake.env });
  expect(first.code, first.stderr.slice(-2000)).toBe(2);
  expect(fake.runs()).toHaveLength(4);
  expect(view(project)).toMatchObject({ state: 'OPEN', total_opens: 1 });
  expect(ledgerOf(project)?.breaker).toMatchObject({ state: 'OPEN', total_opens: 1 });
}

describe('the breaker in the ledger', () => {
  it.each([
    [
      'rewrites .circuit_breaker_state to CLOSED with zero counts',
      (project: TmpProject) => writeFileSync(project.path('.ralph/.circuit_breaker_state'), JSON.stringify(CLOSED)),
    ],
    ['deletes .circuit_breaker_state', (project: TmpProject) => rmSync(project.path('.ralph/.circuit_breaker_state'))],
  ])('the agent %s between runs: the restart still sees the open breaker and calls the agent no more', async (_what, tamper) => {
    const { project, fake } = setUp([work(1), idle, idle, idle, work(5), work(6)]);
    await openTheBreaker(project, fake);
    tamper(project);

    const second = await runCli('ralph', [], { cwd: project.dir, env: fake.env });
    expect(second.code, second.stderr.slice(-2000)).toBe(2);
    expect(fake.runs()).toHaveLength(4);
    expect(second.stderr).toContain("ralph's ledger holds OPEN, 3 loop(s) without progress, 1 open(s), and the ledger counts");
    // The view is written again from the ledger.
    expect(view(project)).toMatchObject({ state: 'OPEN', consecutive_no_progress: 3, total_opens: 1 });

    // --status reads the ledger's breaker too.
    tamper(project);
    const status = await runCli('ralph', ['--status', '--json', '--jq', '.circuit_breaker.state'], { cwd: project.dir, env: fake.env });
    expect(status.stdout).toBe('OPEN\n');
  });

  it("holds the content ids seen in the run, and --reset-circuit closes the ledger's breaker", async () => {
    const { project, fake } = setUp([work(1), idle, idle, idle, work(5)]);
    await openTheBreaker(project, fake);
    expect(contentMemoryOf(project)?.seen.length).toBeGreaterThan(0);

    const reset = await runCli('ralph', ['--reset-circuit'], { cwd: project.dir, env: fake.env });
    expect(reset.code).toBe(0);
    expect(ledgerOf(project)?.breaker).toMatchObject({ state: 'CLOSED', consecutive_no_progress: 0 });
    expect(contentMemoryOf(project)).toBeNull();
    expect(existsSync(project.path('.ralph/.circuit_breaker_state'))).toBe(true);

    const after = await runCli('ralph', ['--max-loops', '1'], { cwd: project.dir, env: fake.env });
    expect(after.code, after.stderr.slice(-2000)).toBe(3);
    expect(fake.runs()).toHaveLength(5);
    expect(after.stderr).not.toContain('the ledger counts');
  });
});
