// Gemini CLI and OpenCode drive ralph through a whole run (its loop in the test's process; a run
// that waits for a usage limit and --dry-run through the built bin/ralph), each with its fake
// modelled on the recordings: a 3-item plan ends in plan_complete, every later call resumes the
// first call's session with the agent's own flag, an unknown id falls back to a fresh session,
// a 401 stops with exit 1 and the fix, a usage limit is waited for, and the tokens (and
// OpenCode's cost) reach status.json, metrics.jsonl and ralph-stats. --dry-run shows the argv.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { geminiAdapter } from '../../../lib/agents/gemini.js';
import { openCodeAdapter } from '../../../lib/agents/opencode.js';
import { withFakeAgent, type FakeAgent, type FakeAgentCli, type FakeAgentScenario } from '../../helpers/fake-agent.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli, type CliResult, type RunCliOptions } from '../../helpers/run-cli.js';
import { runRalphInProcess } from '../../helpers/ralph-in-process.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

const PLAN = '# Fix Plan\n- [ ] one\n- [ ] two\n- [ ] three\n';

function project(plan = PLAN): TmpProject {
  const p = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\n`, '.ralph/fix_plan.md': plan }), { git: true });
  cleanups.push(() => p.cleanup());
  return p;
}

function fake(cli: FakeAgentCli, scenario: FakeAgentScenario): FakeAgent {
  const f = withFakeAgent(cli, scenario);
  cleanups.push(() => f.cleanup());
  return f;
}

/** A ralph that would sit in a wait is killed after 30 s (inside the test timeout). */
function ralph(cli: FakeAgentCli, p: TmpProject, f: FakeAgent, args: string[], extra: RunCliOptions = {}): Promise<CliResult> {
  // Gemini is chosen with --agent, OpenCode with AGENT_PROVIDER: both ways are covered.
  const chosen = cli === 'gemini' ? ['--agent', 'gemini', ...args] : args;
  const env = cli === 'gemini' ? f.env : { ...f.env, AGENT_PROVIDER: 'opencode' };
  return runCli('ralph', chosen, {
    cwd: p.dir,
    env,
    ...extra,
    onSpawn: (child) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.on('exit', () => clearTimeout(timer));
      extra.onSpawn?.(child);
    },
  });
}

/** A run's loop, in the test's process (tests/helpers/ralph-in-process.ts), with the agent chosen as ralph() chooses it. */
function loop(cli: FakeAgentCli, p: TmpProject, f: FakeAgent, args: string[]): Promise<CliResult> {
  const chosen = cli === 'gemini' ? ['--agent', 'gemini', ...args] : args;
  return runRalphInProcess(p.dir, chosen, cli === 'gemini' ? f.env : { ...f.env, AGENT_PROVIDER: 'opencode' });
}

const AGENTS = [
  {
    cli: 'gemini' as const,
    resumeFlag: '-r',
    unknownId: '99999999-2222-4333-8444-555555555555',
    authLabel: '401',
    limitLabel: 'gdaily',
    limitMessage: 'You have exhausted your daily quota on this model.',
    fix: /GEMINI_API_KEY/,
    costUsd: 0,
    dryRunArgv: "gemini -p 'Follow the instructions above.' -o stream-json --approval-mode yolo",
  },
  {
    cli: 'opencode' as const,
    resumeFlag: '-s',
    unknownId: 'ses_dce5000000ffeUnknownSession1',
    authLabel: '401',
    limitLabel: 'quota',
    limitMessage: 'You exceeded your current quota',
    fix: /opencode auth login/,
    costUsd: 0.0054,
    dryRunArgv: 'opencode run --format json',
  },
];

describe.each(AGENTS)('$cli', (agent) => {
  it('runs a 3-item plan to plan_complete, resuming the first session; tokens and cost reach status, metrics and ralph-stats', async () => {
    const p = project();
    const f = fake(agent.cli, { calls: [1, 2, 3].map((n) => ({ tickFixPlan: 1, writeFiles: { [`f${n}.txt`]: `${n}\n` } })) });
    const r = await loop(agent.cli, p, f, ['--max-loops', '6']);
    expect(r.code, r.stderr).toBe(0);
    // The program named once, its version, then the command found: "Gemini CLI 0.x (gemini)".
    expect(r.stdout + r.stderr).toMatch(new RegExp(`\\] (Gemini CLI|OpenCode CLI) \\S+ \\(\\S*${agent.cli}\\)`));
    expect(r.stdout + r.stderr).not.toContain('CLI CLI');

    const runs = f.runs();
    expect(runs).toHaveLength(3);
    const first = runs[0]!.sessionId!;
    expect(runs[0]!.argv).not.toContain(agent.resumeFlag);
    for (const later of runs.slice(1)) {
      const at = later.argv.indexOf(agent.resumeFlag);
      expect(later.argv[at + 1]).toBe(first);
    }
    // The prompt and the loop context come on stdin; argv has no project text.
    for (const run of runs) {
      expect(run.stdin).toContain('Work through fix_plan.md.');
      expect(run.stdin).toContain('## Ralph loop context');
      expect(run.argv.join(' ')).not.toContain('fix_plan');
    }

    const status = JSON.parse(readFileSync(p.path('.ralph/status.json'), 'utf8'));
    expect(status).toMatchObject({ status: 'completed', exit_reason: 'plan_complete', run_loops: 3, run_tokens: 3 * 1260 });
    expect(status.run_cost_usd).toBeCloseTo(agent.costUsd, 10);
    const metrics = readFileSync(p.path('.ralph/logs/metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(metrics).toHaveLength(3);
    for (const m of metrics) expect(m).toMatchObject({ success: true, input_tokens: 200, output_tokens: 60, cache_read_tokens: 1000 });
    expect(metrics.at(-1).cost_usd).toBeCloseTo(agent.costUsd, 10);

    const stats = await runCli('ralph-stats', ['--format', 'table'], { cwd: p.dir });
    expect(stats.code).toBe(0);
    expect(stats.stdout).toMatch(/Loops\s+3 · 3 successful/);
    expect(stats.stdout).toMatch(/Tokens\s+in 600 · out 180 · cache read 3\.0k/);
    expect(stats.stdout).toContain(`Cost         $${agent.costUsd.toFixed(4)} total`);
  });

  it('falls back to a fresh session when the stored id is unknown to the agent', async () => {
    const p = project('# Fix Plan\n- [ ] one\n');
    writeFileSync(p.path('.ralph/.claude_session_id'), JSON.stringify({ session_id: agent.unknownId, timestamp: new Date().toISOString(), agent: agent.cli }));
    const f = fake(agent.cli, { defaults: { tickFixPlan: 1, writeFiles: { 'done.txt': 'done\n' } } });
    const r = await loop(agent.cli, p, f, ['--max-loops', '3']);
    expect(r.code, r.stderr).toBe(0);
    const runs = f.runs();
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatchObject({ unknownSession: true, resumedFrom: agent.unknownId });
    expect(runs[1]!.argv).not.toContain(agent.resumeFlag);
    expect(r.stdout + r.stderr).toMatch(/retrying with a fresh session/);
    expect(JSON.parse(readFileSync(p.path('.ralph/status.json'), 'utf8')).exit_reason).toBe('plan_complete');
  });

  it('stops with exit 1 and the fix on a 401', async () => {
    const p = project();
    const f = fake(agent.cli, { defaults: { replay: agent.authLabel } });
    const r = await loop(agent.cli, p, f, ['--max-loops', '3']);
    expect(r.code).toBe(1);
    expect(f.runs()).toHaveLength(1);
    expect(r.stderr).toMatch(/To fix: /);
    expect(r.stderr).toMatch(agent.fix);
    expect(JSON.parse(readFileSync(p.path('.ralph/status.json'), 'utf8')).exit_reason).toBe('authentication_failed');
  });

  it('waits at a usage limit', async () => {
    const p = project();
    const f = fake(agent.cli, { defaults: { replay: agent.limitLabel } });
    let sawWait = false;
    const r = await ralph(agent.cli, p, f, ['--max-loops', '3'], {
      onSpawn: (child) => {
        // Once the wait is on disk ralph is waiting it out: stop it there.
        const timer = setInterval(() => {
          if (existsSync(p.path('.ralph/.usage_limit_wait'))) {
            sawWait = true;
            clearInterval(timer);
            child.kill('SIGTERM');
          }
        }, 50);
        child.on('exit', () => clearInterval(timer));
      },
    });
    expect(sawWait).toBe(true);
    expect(r.code).toBe(143);
    expect(f.runs()).toHaveLength(1);
    expect(r.stderr).toContain(`usage limit reached: ${agent.limitMessage}`);
  });

  it('--dry-run shows the exact argv and runs nothing', async () => {
    const p = project();
    const f = fake(agent.cli, {});
    const r = await ralph(agent.cli, p, f, ['--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`  ${agent.dryRunArgv}\n`);
    // OpenCode's permission config is named, never printed (the user's part may hold keys).
    if (agent.cli === 'opencode') expect(r.stdout).toContain('  env: OPENCODE_CONFIG_CONTENT (set for the agent)\n');
    else expect(r.stdout).not.toContain('  env: ');
    expect(f.runs()).toHaveLength(0);
  });
});

describe('one session file for every agent', () => {
  it("a stored Claude session id is not handed to OpenCode's -s: the run starts a fresh session", async () => {
    const p = project('# Fix Plan\n- [ ] one\n');
    writeFileSync(
      p.path('.ralph/.claude_session_id'),
      JSON.stringify({ session_id: '3a77612c-c8e8-4da6-aa0c-d375cfea3755', timestamp: new Date().toISOString() }),
    );
    const f = fake('opencode', { defaults: { tickFixPlan: 1, writeFiles: { 'done.txt': 'done\n' } } });
    const r = await loop('opencode', p, f, ['--max-loops', '3']);
    expect(r.code, r.stderr).toBe(0);
    expect(f.runs()).toHaveLength(1);
    expect(f.runs()[0]!.argv).not.toContain('-s');
  });
});

describe('what an agent cannot honour is said once at start', () => {
  it('Gemini: ALLOWED_TOOLS patterns are not enforced under --approval-mode yolo', async () => {
    const p = project('# Fix Plan\n- [ ] one\n');
    const f = fake('gemini', { defaults: { tickFixPlan: 1, writeFiles: { 'done.txt': 'done\n' } } });
    const r = await loop('gemini', p, f, ['--max-loops', '3']);
    expect(r.code, r.stderr).toBe(0);
    expect((r.stdout + r.stderr).match(/Gemini CLI cannot restrict tools to ALLOWED_TOOLS/g)).toHaveLength(1);
  });
});

describe("ralph --doctor checks the chosen agent's login", () => {
  const doctorLine = (stdout: string, name: string) => stdout.split('\n').find((l) => l.includes(` ${name}: `)) ?? `(no ${name} line)`;

  it('Gemini: GEMINI_API_KEY set is a login; none is a failure with the fix', async () => {
    const p = project();
    const f = fake('gemini', {});
    const ok = await runCli('ralph', ['--doctor', '--agent', 'gemini'], { cwd: p.dir, env: f.env });
    expect(doctorLine(ok.stdout, 'Gemini CLI login')).toBe('[OK]   Gemini CLI login: GEMINI_API_KEY is set');
    // Empty is unset: whatever the machine running the tests has exported does not count.
    const without = { ...f.env, ...Object.fromEntries(geminiAdapter.credentials!.envVars.map((k) => [k, ''])) };
    const missing = await runCli('ralph', ['--doctor', '--agent', 'gemini'], { cwd: p.dir, env: without });
    expect(missing.code).toBe(1);
    expect(doctorLine(missing.stdout, 'Gemini CLI login')).toMatch(/^\[FAIL\] Gemini CLI login: no GEMINI_API_KEY, .* — fix: export GEMINI_API_KEY/);
    expect(f.runs()).toHaveLength(0);
  });

  it("OpenCode: `opencode auth login`'s file is a login; none only warns (its config may hold a key)", async () => {
    const p = project();
    const f = fake('opencode', {});
    const env = { ...f.env, AGENT_PROVIDER: 'opencode', ...Object.fromEntries(openCodeAdapter.credentials!.envVars.map((k) => [k, ''])) };
    const warn = await runCli('ralph', ['--doctor'], { cwd: p.dir, env });
    expect(doctorLine(warn.stdout, 'OpenCode login')).toMatch(/^\[WARN\] OpenCode login: .* — fix: run `opencode auth login`/);
    mkdirSync(join(f.env.HOME!, '.local/share/opencode'), { recursive: true });
    writeFileSync(join(f.env.HOME!, '.local/share/opencode/auth.json'), '{}');
    const ok = await runCli('ralph', ['--doctor'], { cwd: p.dir, env });
    expect(doctorLine(ok.stdout, 'OpenCode login')).toMatch(/^\[OK\] {3}OpenCode login: credentials in .*auth\.json$/);
  });
});
