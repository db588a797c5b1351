// Escape sequences and bidi controls the agent writes into state files (status.json's `status`
// and `exit_reason`, a metrics.jsonl line) reach no terminal: `ralph-monitor --once`,
// `ralph --status` and `ralph-stats --format table` print them removed.

import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HOSTILE_TEXT, UNSAFE_FOR_TERMINAL } from '../../fixtures/terminal/hostile-text.js';
import { runCli } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

const hostile = HOSTILE_TEXT.map(([, text]) => text).join(' ');

function hostileProject(): TmpProject {
  const p = tmpProject(ralphProjectTree());
  cleanups.push(() => p.cleanup());
  writeFileSync(
    p.path('.ralph/status.json'),
    JSON.stringify({
      timestamp: new Date().toISOString(),
      loop_count: 3,
      calls_made_this_hour: 2,
      max_calls_per_hour: 100,
      last_action: hostile,
      status: hostile,
      exit_reason: hostile,
    }),
  );
  const line = {
    timestamp: new Date().toISOString(),
    loop: 1,
    duration_seconds: 5,
    success: true,
    calls_made: 1,
    outcome: hostile,
    work_type: hostile,
    exit_reason: hostile,
  };
  mkdirSync(p.path('.ralph/logs'), { recursive: true });
  writeFileSync(p.path('.ralph/logs/metrics.jsonl'), `${JSON.stringify(line)}\n`);
  return p;
}

describe('hostile text in state files reaches no terminal', () => {
  it.each([
    ['ralph-monitor --once', 'ralph-monitor', ['--once']],
    ['ralph --status', 'ralph', ['--status']],
    ['ralph-stats --format table', 'ralph-stats', ['--format', 'table']],
  ])(
    '%s',
    async (_name, bin, args) => {
      const p = hostileProject();
      const r = await runCli(bin, args, { cwd: p.dir, env: { COLUMNS: '200' } });
      const out = r.stdout + r.stderr;
      expect(out.length).toBeGreaterThan(0);
      const bad = out.match(UNSAFE_FOR_TERMINAL);
      expect(bad, `${JSON.stringify(bad?.[0])} in ${JSON.stringify(out.slice(0, 400))}`).toBeNull();
    },
    30_000,
  );
});
