// A cost budget caps each Claude call: when --max-cost is set and the installed CLI lists
// `--max-budget-usd` in its `--help` (asked once per CLI version, the answer kept in the user's
// state directory, not in the project), each call gets what is left of the run's budget, so one
// runaway call cannot overshoot it. A CLI without the flag gets none (and ralph says so); without
// a cost budget the CLI is not asked at all. The real `bin/ralph` against the fake `claude`.

import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { cliFlagsFile } from '../../../lib/agents/cli-flags.js';
import { paidWorkCall, withFakeClaude, type FakeCallScript, type FakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const PLAN = `# Fix Plan\n${Array.from({ length: 6 }, (_, i) => `- [ ] item ${i + 1}`).join('\n')}\n`;
const CALLS = Array.from({ length: 6 }, (_, i) => paidWorkCall(i + 1));

const cleanups = useCleanups();

function project(): TmpProject {
  const p = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}SESSION_CONTINUITY=false\n`, '.ralph/fix_plan.md': PLAN }), { git: true });
  cleanups.push(() => p.cleanup());
  return p;
}

function fakeClaude(env: Record<string, string> = {}): FakeClaude {
  const fake = withFakeClaude({ calls: CALLS }, { env });
  cleanups.push(() => fake.cleanup());
  return fake;
}

const budgetsGiven = (fake: FakeClaude) =>
  fake.runs().map((call) => {
    const at = call.argv.indexOf('--max-budget-usd');
    return at >= 0 ? call.argv[at + 1] : null;
  });
const helpAsked = (fake: FakeClaude) => fake.calls().filter((call) => call.argv.includes('--help')).length;
const cached = () => JSON.parse(readFileSync(cliFlagsFile(process.env, homedir()), 'utf8')) as Record<string, Record<string, boolean>>;

describe('a per-call spending cap for Claude', () => {
  it('--max-cost 3: each call gets what is left of the budget; --help is asked once for that version', async () => {
    const fake = fakeClaude({ FAKE_CLAUDE_VERSION: '2.1.332' });
    const first = project();
    const run = await runCli('ralph', ['--max-cost', '3'], { cwd: first.dir, env: fake.env });
    expect(run.code, run.stderr.slice(-2000)).toBe(3);
    expect(run.stderr).toContain('Cost budget reached');
    expect(budgetsGiven(fake)).toEqual(['3', '2', '1']);
    expect(run.stderr).toContain('Each Claude call is capped at what is left of --max-cost (--max-budget-usd)');
    expect(helpAsked(fake)).toBe(1);
    expect(cached()['claude 2.1.332']).toEqual({ '--max-budget-usd': true });

    // Another run (another project) with the same CLI version: the answer is kept, not asked again.
    const second = project();
    const again = await runCli('ralph', ['--max-cost', '1.5'], { cwd: second.dir, env: fake.env });
    expect(again.code, again.stderr.slice(-2000)).toBe(3);
    expect(budgetsGiven(fake).slice(3)).toEqual(['1.5', '0.5']);
    expect(helpAsked(fake)).toBe(1);
  });

  it('a CLI whose --help has no --max-budget-usd: no call gets it, and ralph says the budget can be overshot', async () => {
    const fake = fakeClaude({ FAKE_CLAUDE_VERSION: '2.1.100', FAKE_CLAUDE_WITHOUT_FLAGS: '--max-budget-usd' });
    const p = project();
    const run = await runCli('ralph', ['--max-cost', '2'], { cwd: p.dir, env: fake.env });
    expect(run.code, run.stderr.slice(-2000)).toBe(3);
    expect(budgetsGiven(fake)).toEqual([null, null]);
    expect(run.stderr).toContain('This Claude CLI (2.1.100) has no --max-budget-usd: one call can overshoot --max-cost before ralph stops');
    expect(helpAsked(fake)).toBe(1);
    expect(cached()['claude 2.1.100']).toEqual({ '--max-budget-usd': false });
  });

  it('no cost budget: the CLI is not asked and no call is capped', async () => {
    const fake = fakeClaude({ FAKE_CLAUDE_VERSION: '2.1.200' });
    const p = project();
    const run = await runCli('ralph', ['--max-loops', '2'], { cwd: p.dir, env: fake.env });
    expect(run.code, run.stderr.slice(-2000)).toBe(3);
    expect(budgetsGiven(fake)).toEqual([null, null]);
    expect(helpAsked(fake)).toBe(0);
  });

  it('a runaway call is stopped by the CLI at what was left of the budget, not after it', async () => {
    // Seven rounds of $0.009 each: $0.063 uncapped; capped at $0.02 the CLI stops after the third.
    const runaway: FakeCallScript = {
      steps: [...Array.from({ length: 6 }, () => ({ tool: 'Read', input: { file_path: '.ralph/fix_plan.md' } })), { text: 'done' }],
    };
    const spent = async (env: Record<string, string>) => {
      const fake = withFakeClaude({ calls: [runaway] }, { env });
      cleanups.push(() => fake.cleanup());
      const run = await runCli('ralph', ['--max-cost', '0.02'], { cwd: project().dir, env: fake.env });
      expect(run.code, run.stderr.slice(-2000)).toBe(3);
      expect(fake.runs()).toHaveLength(1);
      return Number(/Cost budget reached: spent \$([\d.]+)/.exec(run.stderr)?.[1]);
    };
    expect(await spent({ FAKE_CLAUDE_VERSION: '2.1.332' })).toBeCloseTo(0.027, 6);
    expect(await spent({ FAKE_CLAUDE_VERSION: '2.1.101', FAKE_CLAUDE_WITHOUT_FLAGS: '--max-budget-usd' })).toBeCloseTo(0.063, 6);
  });
});
