// Helpers for monitor tests: a temp project holding a copy of one of the Bash-written `.ralph/`
// fixtures (tests/fixtures/bash-state/), or hand-written state files of ours.

import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from '../../helpers/run-cli.js';

export type BashFixture = 'completed' | 'halted' | 'midrun';

export interface StateProject {
  dir: string;
  write(relative: string, content: string): void;
  cleanup(): void;
}

/** A temp project whose `.ralph/` is a writable copy of a Bash fixture, or empty. */
export function stateProject(fixture?: BashFixture): StateProject {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-mon-proj-'));
  const ralphDir = join(dir, '.ralph');
  if (fixture) cpSync(join(REPO_ROOT, 'tests/fixtures/bash-state', fixture), ralphDir, { recursive: true });
  else mkdirSync(ralphDir, { recursive: true });
  return {
    dir,
    write(relative, content) {
      const file = join(dir, relative);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** status.json as ours writes it (Bash fields plus run spend, pid and budgets). */
export function ourStatus(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    timestamp: '2026-11-30T10:00:00+00:00',
    loop_count: 7,
    calls_made_this_hour: 12,
    max_calls_per_hour: 100,
    tokens_used_this_hour: 45_000,
    max_tokens_per_hour: 200_000,
    last_action: 'executing',
    status: 'running',
    exit_reason: '',
    sandbox: { provider: 'none' },
    next_reset: '11:00:00',
    max_loops: 20,
    run_tokens: 123_456,
    run_cost_usd: 1.25,
    max_cost_usd: 5,
    ...extra,
  });
}

/** Visible text of a rendered line (escape sequences removed). */
export function plain(line: string): string {
  return line.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
}
