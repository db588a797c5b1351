// fix_plan.md as users write it, through ralph (its loop runs in the test's process,
// tests/helpers/ralph-in-process.ts; --dry-run and --status are the built bin/ralph) and the fake agent: fenced code
// and GitHub task-list markers read like GitHub shows them, one meaning of plan progress in the
// loop, `--dry-run`, `ralph --status --json` and `ralph-monitor --once` (with a custom
// OPTIONAL_SECTIONS), and FIX_PLAN_FILE / AGENT_FILE honoured end to end.

import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeCall, type FakeClaude, type FakeScenario } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { runRalphInProcess } from '../helpers/ralph-in-process.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

function project(files: Record<string, string | undefined>): TmpProject {
  const tree = ralphProjectTree({ '.ralphrc': FAST_LOOP_RC });
  for (const [path, text] of Object.entries(files)) {
    if (text === undefined) delete tree[path];
    else tree[path] = text;
  }
  const p = tmpProject(tree as Record<string, string>, { git: true });
  cleanups.push(() => p.cleanup());
  return p;
}

function fake(scenario: FakeScenario): FakeClaude {
  const f = withFakeClaude(scenario);
  cleanups.push(() => f.cleanup());
  return f;
}

const idle = { resultText: 'Looked around; nothing changed yet.', statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } };

function ralph(p: TmpProject, f: FakeClaude, args: string[]) {
  return runCli('ralph', args, { cwd: p.dir, env: { ...f.env, ...GIT_TEST_ENV } });
}

/** A loop run: ralph's loop in this process (tests/helpers/ralph-in-process.ts). */
function loop(p: TmpProject, f: FakeClaude, args: string[]) {
  return runRalphInProcess(p.dir, args, { ...f.env, ...GIT_TEST_ENV });
}

/** Everything the agent was given besides the prompt file (the loop context), wherever it goes. */
function agentInput(call: FakeCall): string {
  return [...call.argv, call.stdin ?? ''].join('\n');
}

describe('plans as users write them', () => {
  it('a `# Optional` comment in a bash fence does not make the real open items optional', async () => {
    const plan = [
      '# Plan',
      '- [x] scaffold',
      '## Setup',
      '```bash',
      '# Optional',
      'export PORT=3000',
      '```',
      '- [ ] Write the server',
      '- [ ] Write its tests',
      '',
    ].join('\n');
    const p = project({ '.ralph/fix_plan.md': plan });
    const f = fake({ calls: [idle] });
    const r = await loop(p, f, ['--max-loops', '1']);
    // Before: plan_complete at once, exit 0 with 0 calls.
    expect(f.runs(), r.stdout).toHaveLength(1);
    expect(r.code).toBe(3);
    expect(r.stdout + r.stderr).not.toContain('plan_complete');
  });

  it('four open `* [ ]` items and one `- [x]` are an open plan: the agent is called', async () => {
    const plan = '# Plan\n- [x] scaffold\n* [ ] one\n* [ ] two\n+ [ ] three\n1. [ ] four\n';
    const p = project({ '.ralph/fix_plan.md': plan });
    const f = fake({ calls: [idle] });
    const r = await loop(p, f, ['--max-loops', '1']);
    expect(f.runs(), r.stdout).toHaveLength(1);
    expect(r.code).toBe(3);
    expect(agentInput(f.runs()[0]!)).toContain('Remaining tasks: 4.');
  });

  it('a `- [ ]` example inside a fence does not block completion', async () => {
    const plan = '# Plan\n- [ ] the only task\n\nWrite items like this:\n~~~markdown\n- [ ] an example\n~~~\n';
    const p = project({ '.ralph/fix_plan.md': plan });
    const f = fake({ calls: [{ ...idle, tickFixPlan: 1, writeFiles: { 'done.txt': 'x' } }] });
    const r = await loop(p, f, ['--max-loops', '3']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toContain('plan_complete');
    expect(f.runs()).toHaveLength(1);
  });
});

describe('one meaning of plan progress, with a custom OPTIONAL_SECTIONS', () => {
  // With OPTIONAL_SECTIONS=Later: blocking a (done), b, c, f (open); optional d (open), e (done).
  const PLAN = ['# Plan', '- [x] a', '- [ ] b', '* [ ] c', '## Later', '- [ ] d', '- [x] e', '## Optional', '- [ ] f', ''].join('\n');
  const RC = `${FAST_LOOP_RC}OPTIONAL_SECTIONS=Later\n`;

  it('the loop, --dry-run, --status --json and ralph-monitor --once agree', async () => {
    const p = project({ '.ralph/fix_plan.md': PLAN, '.ralphrc': RC });
    const f = fake({ calls: [idle] });
    const env = { ...f.env, ...GIT_TEST_ENV, COLUMNS: '100' };

    const dry = await runCli('ralph', ['--dry-run', '--max-loops', '1'], { cwd: p.dir, env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('plan: .ralph/fix_plan.md: 1/4 done · 1 optional open, 3 remaining');
    expect(dry.stdout).toContain('Remaining tasks: 3 (+1 optional).');

    const run = await runCli('ralph', ['--max-loops', '1'], { cwd: p.dir, env });
    expect(run.code, run.stderr).toBe(3);
    expect(f.runs()).toHaveLength(1);
    expect(agentInput(f.runs()[0]!)).toContain('Remaining tasks: 3 (+1 optional).');

    const status = await runCli('ralph', ['--status', '--json'], { cwd: p.dir, env });
    const json = JSON.parse(status.stdout);
    expect(json.plan).toMatchObject({ file: '.ralph/fix_plan.md', done: 1, remaining: 3, total: 4, optional_open: 1, optional_done: 1, complete: false });
    expect(json.plan.open_items).toEqual(['b', 'c', 'f']);
    // The run record's gap counts the same open items (no test command: failing tests unknown).
    expect(json.session_record.gap.current).toBe(3);

    const monitor = await runCli('ralph-monitor', ['--once'], { cwd: p.dir, env: { ...env, NO_COLOR: '1' } });
    expect(monitor.code, monitor.stderr).toBe(0);
    expect(monitor.stdout).toMatch(/1\/4 done \(25%\) · 1 optional open/);
    expect(monitor.stdout).toContain('gap 3');
  });
});

describe('FIX_PLAN_FILE and AGENT_FILE', () => {
  const RC = `${FAST_LOOP_RC}FIX_PLAN_FILE=docs/plan.md\nAGENT_FILE=docs/AGENT.md\n`;

  it('moves the plan and AGENT.md for the loop, the integrity check, the context, status and monitor', async () => {
    const p = project({
      '.ralphrc': RC,
      '.ralph/fix_plan.md': undefined,
      '.ralph/AGENT.md': undefined,
      'docs/plan.md': '# Plan\n- [x] a\n- [ ] b\n',
      'docs/AGENT.md': '# Agent\n',
    });
    const f = fake({ calls: [{ ...idle, tickFixPlan: 'all', fixPlanPath: 'docs/plan.md', writeFiles: { 'b.txt': 'b' } }] });

    const dry = await ralph(p, f, ['--dry-run', '--max-loops', '1']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('plan: docs/plan.md: 1/2 done, 1 remaining');

    const r = await loop(p, f, ['--max-loops', '3']);
    // Before: integrity failure for the missing .ralph/fix_plan.md, exit 1.
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toContain('plan_complete');
    expect(f.runs()).toHaveLength(1);
    expect(agentInput(f.runs()[0]!)).toContain('Task list: docs/plan.md. Build and run notes: docs/AGENT.md.');
    expect(existsSync(p.path('.ralph/fix_plan.md'))).toBe(false);

    const status = JSON.parse((await ralph(p, f, ['--status', '--json'])).stdout);
    expect(status.plan).toMatchObject({ file: 'docs/plan.md', done: 2, remaining: 0, complete: true });
    const monitor = await runCli('ralph-monitor', ['--once'], { cwd: p.dir, env: { ...f.env, NO_COLOR: '1' } });
    expect(monitor.stdout).toContain('2/2 done (100%)');
  });

  it('the integrity check requires the AGENT_FILE it names', async () => {
    const p = project({ '.ralphrc': RC, 'docs/plan.md': '- [ ] b\n' });
    const f = fake({ calls: [idle] });
    const r = await loop(p, f, ['--max-loops', '1']);
    expect(r.code).toBe(1);
    expect(r.stderr + r.stdout).toContain('docs/AGENT.md');
    expect(f.runs()).toHaveLength(0);
  });

  it.each([
    ['FIX_PLAN_FILE=../plan.md', 'FIX_PLAN_FILE'],
    ['AGENT_FILE=/etc/passwd', 'AGENT_FILE'],
  ])('refuses %s outside the project with an error naming the key', async (line, key) => {
    const p = project({ '.ralphrc': `${FAST_LOOP_RC}${line}\n` });
    const f = fake({ calls: [idle] });
    const r = await loop(p, f, ['--max-loops', '1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Error: ${line} points outside the project`);
    expect(r.stderr).toContain(`set ${key} in .ralphrc to a path inside the project`);
    expect(f.runs()).toHaveLength(0);
  });

  it('the integrity check requires the FIX_PLAN_FILE it names, not .ralph/fix_plan.md', async () => {
    const p = project({ '.ralphrc': RC, 'docs/AGENT.md': '# Agent\n' });
    const f = fake({ calls: [idle] });
    const r = await loop(p, f, ['--max-loops', '1']);
    expect(r.code).toBe(1);
    expect(r.stderr + r.stdout).toContain('  - docs/plan.md');
    expect(r.stderr + r.stdout).not.toContain('  - .ralph/fix_plan.md');
    expect(f.runs()).toHaveLength(0);
  });
});

describe('a plan with no task', () => {
  it('is said as the run starts, before its first call, with what to write (as --doctor says it)', async () => {
    const p = project({ '.ralph/fix_plan.md': '# Fix Plan\n\n## Tasks\n' });
    const f = fake({ calls: [idle] });
    const r = await loop(p, f, ['--max-loops', '1']);
    expect(f.runs()).toHaveLength(1);
    const said = r.stderr + r.stdout;
    expect(said).toContain('fix_plan.md has no task yet: the agent works from PROMPT.md alone');
    expect(said).toContain('write one "- [ ] task" line per task under ## Tasks in .ralph/fix_plan.md');
    // Said before the call: the warning comes before the loop's first line.
    expect(said.indexOf('no task yet')).toBeLessThan(said.indexOf('Loop #1'));
  });

  it('is not said of a plan whose tasks are all done or open', async () => {
    const p = project({ '.ralph/fix_plan.md': '# Fix Plan\n\n## Tasks\n- [ ] Add the app file\n' });
    const f = fake({ calls: [idle] });
    const r = await loop(p, f, ['--max-loops', '1']);
    expect(r.stderr + r.stdout).not.toContain('no task yet');
  });
});
