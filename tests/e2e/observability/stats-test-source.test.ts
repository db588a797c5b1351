// What ralph-stats says about tests, through the real `bin/ralph` and `bin/ralph-stats`: a test
// status the agent only claimed (no test command to run) is marked as a claim, one the gate
// measured as run by the gate; and a loop's time includes its gate, not only the agent call.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withFakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();
const claim = { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false, TESTS_STATUS: 'PASSING' };
// A test suite that takes a while (1.5 s, at the least), then reports one passing test in TAP.
const SLOW_SUITE = "setTimeout(() => { console.log('TAP version 13\\n1..1\\nok 1 - works'); }, 1500);\n";

function run(rc: string, files: Record<string, string> = {}) {
  const p = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}${rc}`, '.ralph/fix_plan.md': '- [ ] a\n- [ ] b\n', ...files }), { git: true });
  const f = withFakeClaude({ calls: [1, 2].map((n) => ({ writeFiles: { 'work.txt': `${n}\n` }, statusBlock: claim })) });
  cleanups.push(
    () => p.cleanup(),
    () => f.cleanup(),
  );
  return { p, done: runCli('ralph', ['--max-loops', '2'], { cwd: p.dir, env: f.env }) };
}

describe('ralph-stats and the source of the test status', () => {
  it("marks the agent's TESTS_STATUS as claimed, not run, when no gate ran", async () => {
    const { p, done } = run('');
    expect((await done).code).toBe(3);
    const table = await runCli('ralph-stats', ['--format', 'table'], { cwd: p.dir });
    expect(table.stdout).toMatch(/^Tests {8}claimed by the agent, not run: PASSING 2$/m);
    expect(table.stdout).not.toContain('run by the gate');
    const full = JSON.parse((await runCli('ralph-stats', ['--full'], { cwd: p.dir })).stdout) as { tests_by_source: unknown };
    expect(full.tests_by_source).toEqual({ gate: {}, agent: { PASSING: 2 }, unrecorded: {}, none: 0 });
  });

  it("marks a status the gate measured as run by the gate, and counts the gate's time in the loop's", async () => {
    const { p, done } = run('TEST_COMMAND="node slow-suite.js"\n', { 'slow-suite.js': SLOW_SUITE });
    expect((await done).code).toBe(3);
    const lines = readFileSync(p.path('.ralph/logs/metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, number>);
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      // The fake agent answers at once; the gate cannot take less than its 1.5 s.
      expect(line.gate_duration).toBeGreaterThanOrEqual(1.5);
      expect(line.duration).toBeGreaterThanOrEqual(2);
      expect(line.agent_duration).toBeGreaterThanOrEqual(0);
      // Rounded to whole seconds, the sum of its two parts (each to a tenth).
      expect(Math.abs(line.duration! - (line.agent_duration! + line.gate_duration!))).toBeLessThanOrEqual(0.6);
    }
    const table = await runCli('ralph-stats', ['--format', 'table'], { cwd: p.dir });
    expect(table.stdout).toMatch(/^Tests {8}run by the gate: PASSING 2$/m);
    expect(table.stdout).not.toMatch(/^Loop time +p50 0s/m);
  }, 60_000);
});
