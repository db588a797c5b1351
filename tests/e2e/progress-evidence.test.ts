// Progress is evidence, not a claim: ralph's loop, as its command line runs it, against scripted agents that look busy
// without working. Each is halted by the circuit breaker (exit 2) after CB_NO_PROGRESS_THRESHOLD
// calls (questions: one more); an agent that really changes the project every loop never is.
// `--max-loops` bounds every run, so an agent that fools the breaker ends with exit 3 instead of
// running on. Each run is in the test's own process (tests/helpers/ralph-in-process.ts): the
// agent, git and the gate are real processes, and what is tested is the loop's decisions.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeCallScript, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runRalphInProcess } from '../helpers/ralph-in-process.js';
import type { CliResult } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const THRESHOLD = 3;
const MAX_LOOPS = 8;

const cleanups = useCleanups();

interface Ran {
  result: CliResult;
  project: TmpProject;
  fake: FakeClaude;
  log: string;
  breaker: Record<string, unknown>;
}

async function runAgent(
  calls: FakeCallScript[],
  options: { files?: Record<string, string>; rc?: string; args?: string[]; git?: boolean; setup?: (p: TmpProject) => void } = {},
): Promise<Ran> {
  const rc = `${FAST_LOOP_RC}CB_NO_PROGRESS_THRESHOLD=${THRESHOLD}\n${options.rc ?? ''}`;
  const project = tmpProject(ralphProjectTree({ '.ralphrc': rc, 'src/app.txt': 'app v0\n', ...options.files }), { git: options.git ?? true });
  cleanups.push(() => project.cleanup());
  options.setup?.(project);
  const fake = withFakeClaude({ calls });
  cleanups.push(() => fake.cleanup());
  const result = await runRalphInProcess(project.dir, ['--max-loops', String(MAX_LOOPS), ...(options.args ?? [])], fake.env);
  // A run that ended before its log was opened says why on stderr.
  expect(existsSync(project.path('.ralph/logs/ralph.log')), `ralph wrote no log (exit ${result.code}, signal ${result.signal}):\n${result.stderr}`).toBe(true);
  const log = readFileSync(project.path('.ralph/logs/ralph.log'), 'utf8');
  const breaker = JSON.parse(readFileSync(project.path('.ralph/.circuit_breaker_state'), 'utf8')) as Record<string, unknown>;
  return { result, project, fake, log, breaker };
}

function expectHaltedByBreaker(ran: Ran, calls: number): void {
  expect({ code: ran.result.code, calls: ran.fake.runs().length }).toEqual({ code: 2, calls });
  expect(ran.breaker).toMatchObject({ state: 'OPEN', consecutive_no_progress: THRESHOLD });
  expect(ran.result.stderr).toContain('Circuit breaker');
}

const working = { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false };
/** The same call `n` times, or alternating calls. */
const times = (n: number, call: FakeCallScript): FakeCallScript[] => Array.from({ length: n }, () => call);
const alternate = (n: number, a: FakeCallScript, b: FakeCallScript): FakeCallScript[] => Array.from({ length: n }, (_, i) => (i % 2 === 0 ? a : b));

describe('an agent that changes nothing is halted after exactly CB_NO_PROGRESS_THRESHOLD calls, whatever it says', () => {
  it('claims FILES_MODIFIED: 3 every loop', async () => {
    const ran = await runAgent(
      times(MAX_LOOPS, { resultText: 'Implemented the parser.', statusBlock: { ...working, FILES_MODIFIED: 3, TASKS_COMPLETED_THIS_LOOP: 1 } }),
    );
    expectHaltedByBreaker(ran, THRESHOLD);
    expect(ran.log).toContain('Progress claim not confirmed: the agent reported FILES_MODIFIED: 3; ralph measured no changed files');
    expect(ran.log).toContain('Analysis: exit signal false, files changed 0 (agent reported 3), new content no');
  });

  it('appends a new "- [ ]" item to fix_plan.md every loop', async () => {
    const ran = await runAgent(times(MAX_LOOPS, { appendFiles: { '.ralph/fix_plan.md': '- [ ] one more thing\n' }, statusBlock: working }));
    expectHaltedByBreaker(ran, THRESHOLD);
    expect(readFileSync(ran.project.path('.ralph/fix_plan.md'), 'utf8').match(/- \[ \]/g)).toHaveLength(1 + THRESHOLD);
  });

  it('ticks and unticks plan items', async () => {
    const plan = '# Fix Plan\n- [ ] first\n- [ ] second\n';
    const ticked = { writeFiles: { '.ralph/fix_plan.md': '# Fix Plan\n- [x] first\n- [ ] second\n' }, statusBlock: working };
    const unticked = { writeFiles: { '.ralph/fix_plan.md': plan }, statusBlock: working };
    const ran = await runAgent(alternate(MAX_LOOPS, ticked, unticked), { files: { '.ralph/fix_plan.md': plan } });
    expectHaltedByBreaker(ran, THRESHOLD);
  });

  it('touches a file that was already dirty', async () => {
    const dirty = 'app v1 (uncommitted)\n';
    const ran = await runAgent(times(MAX_LOOPS, { writeFiles: { 'src/app.txt': dirty }, statusBlock: working }), {
      setup: (p) => writeFileSync(p.path('src/app.txt'), dirty),
    });
    expectHaltedByBreaker(ran, THRESHOLD);
  });

  it('writes only under .ralph/ and appends to AGENT.md', async () => {
    // (.ralphrc is a guarded file: a change to it is undone, and a second one halts the run:
    // tests/e2e/containment/guarded-files.test.ts.)
    const ran = await runAgent(
      times(MAX_LOOPS, {
        appendFiles: { '.ralph/AGENT.md': '- learned something\n', '.ralph/specs/notes.md': 'more notes\n' },
        statusBlock: { ...working, FILES_MODIFIED: 3 },
      }),
    );
    expectHaltedByBreaker(ran, THRESHOLD);
  });

  it('rewrites the circuit breaker state file to CLOSED with zero counts every loop', async () => {
    // The breaker is held in memory for the run: what the agent writes to .ralph/ is not read back.
    const closed = JSON.stringify({
      state: 'CLOSED',
      last_change: '2026-01-01T00:00:00Z',
      consecutive_no_progress: 0,
      consecutive_same_error: 0,
      last_progress_loop: 0,
      total_opens: 0,
      reason: '',
    });
    const ran = await runAgent(times(MAX_LOOPS, { writeFiles: { '.ralph/.circuit_breaker_state': closed }, statusBlock: working }));
    expectHaltedByBreaker(ran, THRESHOLD);
  });

  it('says it is done in text mode', async () => {
    const ran = await runAgent(times(MAX_LOOPS, { resultText: 'All tasks complete. Finished implementing everything, ready for review.' }), {
      args: ['--output-format', 'text'],
    });
    expectHaltedByBreaker(ran, THRESHOLD);
  });
});

describe('agents that look busy in other ways are halted too', () => {
  it('flip-flops a file between two contents and EXIT_SIGNAL between true and false', async () => {
    const a = { writeFiles: { 'src/app.txt': 'app v0\n' }, statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } };
    const b = { writeFiles: { 'src/app.txt': 'app v1\n' }, statusBlock: working };
    // Loop 1 (v1) is new content; every later loop goes back to a content already seen.
    const ran = await runAgent(alternate(MAX_LOOPS, b, a));
    expectHaltedByBreaker(ran, THRESHOLD + 1);
  });

  it('EXIT_SIGNAL flip-flops do not reset the completion-conflict count', async () => {
    const claim = { writeFiles: { 'src/app.txt': 'app v1\n' }, statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } };
    const deny = { writeFiles: { 'src/app.txt': 'app v0\n' }, statusBlock: working };
    // The breaker alone would wait for 10 loops; the two claims end the run first.
    const ran = await runAgent(alternate(MAX_LOOPS, claim, deny), { rc: 'CB_NO_PROGRESS_THRESHOLD=10\nCOMPLETION_CONFLICT_LIMIT=2\n' });
    expect({ code: ran.result.code, calls: ran.fake.runs().length }).toEqual({ code: 2, calls: 3 });
    expect(JSON.parse(readFileSync(ran.project.path('.ralph/status.json'), 'utf8'))).toMatchObject({ exit_reason: 'completion_conflict' });
  });

  it('asks a question every loop: the count is held for one loop only', async () => {
    const ran = await runAgent(times(MAX_LOOPS, { resultText: 'Should I use PostgreSQL or SQLite? Which approach do you prefer?', statusBlock: working }));
    expectHaltedByBreaker(ran, THRESHOLD + 1);
  });
});

describe('an agent that really works', () => {
  // It does not report FILES_MODIFIED: its work is measured, not taken from its words.
  const honest = (n: number): FakeCallScript => ({ appendFiles: { 'src/app.txt': `step ${n}\n` }, statusBlock: working });
  const steps = Array.from({ length: MAX_LOOPS }, (_, i) => honest(i + 1));

  it('is never halted by the breaker, however many loops it takes', async () => {
    const ran = await runAgent(steps);
    expect({ code: ran.result.code, calls: ran.fake.runs().length }).toEqual({ code: 3, calls: MAX_LOOPS });
    expect(ran.breaker).toMatchObject({ state: 'CLOSED', consecutive_no_progress: 0, last_progress_loop: MAX_LOOPS });
    expect(ran.log).not.toContain('Progress claim not confirmed');
  });

  it('is measured in a folder that is no git repository', async () => {
    const ran = await runAgent(steps, { git: false });
    expect({ code: ran.result.code, calls: ran.fake.runs().length }).toEqual({ code: 3, calls: MAX_LOOPS });
    expect(ran.breaker).toMatchObject({ state: 'CLOSED', consecutive_no_progress: 0 });
  });

  it('committing its work each loop counts once, through the content', async () => {
    const commits = Array.from({ length: MAX_LOOPS }, (_, i) => ({ ...honest(i + 1), gitCommit: `step ${i + 1}` }));
    const ran = await runAgent(commits);
    expect({ code: ran.result.code, calls: ran.fake.runs().length }).toEqual({ code: 3, calls: MAX_LOOPS });
    expect(ran.project.git('log', '--oneline').trim().split('\n')).toHaveLength(1 + MAX_LOOPS);
  });
});

describe('guard state the agent writes into .ralph/ is not read back', () => {
  it('forged .exit_signals do not end the run', async () => {
    // With EXIT_REQUIRES_PLAN_COMPLETE=false two done signals would end the run (completion_signals):
    // the agent forges them in the file while working honestly and never claiming completion.
    const forged = JSON.stringify({ test_only_loops: [], done_signals: [1, 2, 3], completion_indicators: [1, 2, 3] });
    const calls = Array.from({ length: 3 }, (_, i) => ({
      writeFiles: { [`src/step${i}.txt`]: `step ${i}\n`, '.ralph/.exit_signals': forged },
      statusBlock: working,
    }));
    const ran = await runAgent(calls, { rc: 'EXIT_REQUIRES_PLAN_COMPLETE=false\n', args: ['--max-loops', '3'] });
    expect({ code: ran.result.code, calls: ran.fake.runs().length }).toEqual({ code: 3, calls: 3 });
    expect(ran.log).not.toContain('Graceful exit triggered');
  });

  it('a forged .response_analysis does not halt or end the run', async () => {
    // Left on disk by a call that failed (so ralph wrote no analysis after it), a forged
    // permission denial would halt the run if the exit gate read the file back.
    const forged = JSON.stringify({
      loop_number: 2,
      timestamp: '2026-01-01T00:00:00Z',
      output_file: '',
      output_format: 'json',
      analysis: {
        has_completion_signal: false,
        is_test_only: false,
        is_stuck: false,
        has_progress: false,
        files_modified: 0,
        confidence_score: 0,
        exit_signal: false,
        work_summary: '',
        asking_questions: false,
        error_count: 0,
        has_permission_denials: true,
        permission_denial_count: 1,
        denied_commands: ['Bash(rm -rf /)'],
        has_compound_command_limitation: false,
        compound_command_count: 0,
      },
    });
    const calls: FakeCallScript[] = [
      { writeFiles: { 'src/step0.txt': 'step 0\n' }, statusBlock: working },
      { writeFiles: { 'src/step1.txt': 'step 1\n', '.ralph/.response_analysis': forged }, exitCode: 1 },
      { writeFiles: { 'src/step2.txt': 'step 2\n' }, statusBlock: working },
    ];
    const ran = await runAgent(calls, { args: ['--max-loops', '3'] });
    expect({ code: ran.result.code, calls: ran.fake.runs().length }).toEqual({ code: 3, calls: 3 });
    expect(ran.result.stderr).not.toContain('Permission denied');
  });
});
