// What the upstream Bash tool's own end-to-end suite expects of a whole run, driven through
// ralph's loop (in the test's process, tests/helpers/ralph-in-process.ts; a bad flag's run
// through the built bin/ralph) with the fake `claude`: the flat JSON format's top-level work_type feeds
// test_saturation; the session log lines keep the Bash wording; and with
// EXIT_REQUIRES_PLAN_COMPLETE=false the exit reasons come in the Bash order, so repeated
// completion claims end the run as `completion_signals`. Uses the built dist/ (npm run build).

import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeCallScript, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { runRalphInProcess } from '../helpers/ralph-in-process.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

interface Ran {
  result: CliResult;
  project: TmpProject;
  fake: FakeClaude;
  status: Record<string, unknown>;
}

const OPEN_PLAN = '# Fix Plan\n- [ ] one\n- [ ] two\n- [ ] three\n';

async function run(calls: FakeCallScript[], options: { env?: NodeJS.ProcessEnv; rc?: string; setup?: (p: TmpProject) => void } = {}): Promise<Ran> {
  const project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}${options.rc ?? ''}`, '.ralph/fix_plan.md': OPEN_PLAN }), { git: true });
  cleanups.push(() => project.cleanup());
  options.setup?.(project);
  const fake = withFakeClaude({ calls });
  cleanups.push(() => fake.cleanup());
  const result = await runRalphInProcess(project.dir, ['--max-loops', '6'], { ...fake.env, ...options.env });
  const status = JSON.parse(readFileSync(project.path('.ralph/status.json'), 'utf8')) as Record<string, unknown>;
  return { result, project, fake, status };
}

/** A loop that really changes the project (new content every time). */
const productive = (n: number, extra: FakeCallScript = {}): FakeCallScript => ({
  resultText: `Worked on loop ${n}.`,
  writeFiles: { [`src/work_${n}.txt`]: `work ${n}\n` },
  ...extra,
});

describe('the flat JSON format', () => {
  it('a top-level work_type TEST_ONLY, three loops in a row, ends the run as test_saturation (EXIT_REQUIRES_PLAN_COMPLETE=false)', async () => {
    // The RALPH_STATUS block says IMPLEMENTATION: in JSON the Bash tool reads only the top level.
    // The plan is open: only the Bash order lets test-only loops end the run.
    const block = { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false, WORK_TYPE: 'IMPLEMENTATION', FILES_MODIFIED: 1 };
    const calls = [1, 2, 3].map((n) => productive(n, { statusBlock: block, resultFields: { work_type: 'TEST_ONLY' } }));
    const ran = await run(calls, { rc: 'EXIT_REQUIRES_PLAN_COMPLETE=false\n' });
    expect(ran.result.code).toBe(0);
    expect(ran.fake.runs()).toHaveLength(3);
    expect(ran.status).toMatchObject({ exit_reason: 'test_saturation', status: 'completed' });
  });
});

describe('session log lines keep the Bash wording', () => {
  it('a new session is started, saved after loop 1, resumed in loop 2 and reset at the exit', async () => {
    const sessionId = '7f3c1e2a-9b4d-4c6e-8a1f-2b3c4d5e6f70';
    const calls = [1, 2].map((n) => productive(n, { sessionId, tickFixPlan: n === 1 ? 1 : 'all' }));
    const ran = await run(calls, { env: { CLAUDE_USE_CONTINUE: 'true' } });
    expect(ran.result.code).toBe(0);
    const log = ran.result.stderr;
    expect(log).toContain('Starting new Claude session');
    expect(log).toContain(`Saved Claude session: ${sessionId.slice(0, 20)}...`);
    expect(log).toMatch(new RegExp(`Resuming Claude session: ${sessionId.slice(0, 20)}\\.\\.\\. \\(0h old\\)`));
    expect(log).toContain('Session reset: project_complete');
    expect(readFileSync(ran.project.path('.ralph/logs/ralph.log'), 'utf8')).toContain('Saved Claude session:');
    const argv = ran.fake.runs().map((r) => r.argv);
    expect(argv[0]).not.toContain('--resume');
    expect(argv[1]).toEqual(expect.arrayContaining(['--resume', sessionId]));
  });
  it("an id that is no UUID but a safe token (the upstream suite's e2e-sess-abc123) is saved and resumed", async () => {
    const sessionId = 'e2e-sess-abc123';
    const calls = [1, 2].map((n) => productive(n, { sessionId, tickFixPlan: n === 1 ? 1 : 'all' }));
    const ran = await run(calls, { env: { CLAUDE_USE_CONTINUE: 'true' } });
    expect(ran.result.code).toBe(0);
    expect(ran.result.stderr).toContain(`Saved Claude session: ${sessionId}...`);
    expect(ran.fake.runs()[1]!.argv).toEqual(expect.arrayContaining(['--resume', sessionId]));
  });
});

describe('EXIT_REQUIRES_PLAN_COMPLETE=false restores the Bash exit order', () => {
  const claim = (n: number) => productive(n, { statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } });

  it('two EXIT_SIGNAL true loops end the run as completion_signals, at the start of loop 3', async () => {
    const ran = await run([claim(1), claim(2), claim(3)], { env: { EXIT_REQUIRES_PLAN_COMPLETE: 'false' } });
    expect(ran.result.code).toBe(0);
    expect(ran.fake.runs()).toHaveLength(2);
    expect(ran.status).toMatchObject({ exit_reason: 'completion_signals', status: 'completed' });
    expect(ran.result.stderr.match(/Analyzing Claude Code response/g)).toHaveLength(2);
  });

  it('stale signals from a crashed run are reset: two fresh claims, then completion_signals', async () => {
    const ran = await run([claim(1), claim(2), claim(3)], {
      env: { EXIT_REQUIRES_PLAN_COMPLETE: 'false' },
      setup: (p) => writeFileSync(p.path('.ralph/.exit_signals'), '{"test_only_loops": [], "done_signals": [1, 2], "completion_indicators": [1, 2]}\n'),
    });
    expect(ran.result.code).toBe(0);
    expect(ran.fake.runs()).toHaveLength(2);
    expect(ran.status).toMatchObject({ exit_reason: 'completion_signals' });
  });
});

describe('EXIT_CODES=bash: every in-loop stop exits 0, as the Bash tool does', () => {
  /** A loop that changes nothing: three of them open the breaker. */
  const idle = (n: number): FakeCallScript => ({ resultText: `Looked around, loop ${n}.` });

  it('a breaker halt exits 2, and 0 with EXIT_CODES=bash, with the same halt recorded', async () => {
    const ours = await run([idle(1), idle(2), idle(3), idle(4)]);
    expect(ours.result.code).toBe(2);
    const bash = await run([idle(1), idle(2), idle(3), idle(4)], { env: { EXIT_CODES: 'bash' } });
    expect(bash.result.code).toBe(0);
    for (const ran of [ours, bash]) {
      expect(ran.fake.runs()).toHaveLength(3);
      expect(ran.status).toMatchObject({ status: 'halted' });
      expect(JSON.parse(readFileSync(ran.project.path('.ralph/.circuit_breaker_state'), 'utf8'))).toMatchObject({ state: 'OPEN' });
    }
  });

  it('a stop at the loop limit exits 3, and 0 with EXIT_CODES=bash in .ralphrc; a bad value is exit 1', async () => {
    const calls = [1, 2, 3, 4, 5, 6, 7].map((n) => productive(n));
    const ours = await run(calls);
    expect(ours.result.code).toBe(3);
    const bash = await run(calls, { rc: 'EXIT_CODES=bash\n' });
    expect(bash.result.code).toBe(0);
    expect(bash.status).toMatchObject({ exit_reason: ours.status.exit_reason });
    const bad = await runCli('ralph', ['--max-loops', '1'], { cwd: bash.project.dir, env: { ...bash.fake.env, EXIT_CODES: 'zero' } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('EXIT_CODES');
  });
});
