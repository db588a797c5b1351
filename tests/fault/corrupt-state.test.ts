// Every state file type corrupted in turn (truncated as a killed in-place writer leaves it, binary
// garbage, valid JSON of the wrong shape): the next run does not crash. A file the run reads is
// recovered with a warning naming it and, for JSON files, set aside as `<name>.corrupt-<stamp>`
// holding the bad bytes; a file the run resets or only writes is simply replaced. Afterwards
// every state file parses again.

import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TmpProject } from '../helpers/tmp-project.js';
import { loopProject } from '../helpers/loop-harness.js';
import { checkStateFiles, createFastAgent, faultProject, type FastAgent } from './fast-agent.js';
import { runInProcess, warningsOf } from './in-process.js';

let agent: FastAgent;
let project: TmpProject;
const valid = new Map<string, string>();

beforeAll(async () => {
  agent = createFastAgent();
  project = faultProject();
  // One clean loop, so every state file exists with real content to corrupt.
  const first = await runInProcess(project.dir, agent);
  expect(first.exitCode).toBe(3);
  for (const name of readdirSync(project.path('.ralph'))) {
    const path = project.path(`.ralph/${name}`);
    if (name.startsWith('.') || name.endsWith('.json')) {
      try {
        valid.set(name, readFileSync(path, 'utf8'));
      } catch {
        // a directory
      }
    }
  }
});

// A case may finish the plan; every case starts with an open item.
beforeEach(() => {
  writeFileSync(project.path('.ralph/fix_plan.md'), '# Fix Plan\n- [ ] keep going\n');
});

afterAll(() => {
  project?.cleanup();
  agent?.cleanup();
});

type Corruption = 'truncated' | 'binary' | 'wrong-shape';
const CORRUPTIONS: Corruption[] = ['truncated', 'binary', 'wrong-shape'];

function corruptText(name: string, kind: Corruption): string {
  const good = valid.get(name) ?? '{"a": 1}\n';
  if (kind === 'truncated') return good.slice(0, Math.max(1, Math.floor(good.length / 2)));
  if (kind === 'binary') return '\u0000\u00ff\u00fe{{\u0007 not json';
  return good.trimStart().startsWith('[') ? '{"not": "an array"}\n' : '[1, 2, 3]\n';
}

function corrupt(name: string, kind: Corruption): string {
  const text = corruptText(name, kind);
  writeFileSync(project.path(`.ralph/${name}`), text);
  return text;
}

const setAsideCopies = (name: string) => readdirSync(project.path('.ralph')).filter((n) => n.startsWith(`${name}.corrupt-`));

/** The newest set-aside copy of `name` holds exactly the corrupt bytes. */
function expectSetAside(name: string, text: string, before: string[]): void {
  const added = setAsideCopies(name).filter((n) => !before.includes(n));
  expect(added, `a ${name}.corrupt-* copy`).toHaveLength(1);
  expect(readFileSync(project.path(`.ralph/${added[0]}`), 'utf8')).toBe(text);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function expectHealthy(): void {
  expect(checkStateFiles(project.dir)).toEqual([]);
}

const HALF_OPEN = JSON.stringify({
  state: 'HALF_OPEN',
  last_change: '2026-11-30T03:00:00+00:00',
  consecutive_no_progress: 2,
  consecutive_same_error: 0,
  consecutive_permission_denials: 0,
  last_progress_loop: 0,
  total_opens: 0,
  reason: 'Monitoring',
  current_loop: 2,
});

describe('a corrupt state file the run reads is set aside with a warning', () => {
  // [file, how the run comes to read it]
  const READ: Array<[string, 'loop' | 'breaker-transition' | 'session-reset']> = [
    ['.circuit_breaker_state', 'loop'],
    ['.claude_session_id', 'loop'],
    ['.ralph_session', 'loop'],
    ['.usage_limit_wait', 'loop'],
    ['.circuit_breaker_history', 'breaker-transition'],
    ['.ralph_session_history', 'session-reset'],
  ];
  const cases = READ.flatMap(([name, how]) => CORRUPTIONS.map((kind) => [name, how, kind] as const));

  it.each(cases)('%s (read on %s), %s', async (name, how, kind) => {
    if (!valid.has(name)) valid.set(name, name === '.usage_limit_wait' ? '{"resume_at":"2026-11-30T04:00:00+00:00","resume_at_ms":1796014800000}\n' : '[]\n');
    if (how === 'breaker-transition') writeFileSync(project.path('.ralph/.circuit_breaker_state'), HALF_OPEN);
    const before = setAsideCopies(name);
    const text = corrupt(name, kind);
    // The half-open breaker is the Bash tool's (no ledger yet): ralph's ledger would win over it.
    const noLedger = { XDG_STATE_HOME: join(process.env.XDG_STATE_HOME!, `bash-ran-${kind}`) };
    const run = await runInProcess(project.dir, agent, {
      flags: how === 'session-reset' ? { MAX_LOOPS: 3 } : {},
      env: how === 'session-reset' ? { FAST_AGENT_FINISH_PLAN: '1' } : how === 'breaker-transition' ? noLedger : {},
    });
    expect(run.error).toBeUndefined();
    expect(run.exitCode).toBe(how === 'session-reset' ? 0 : 3);
    const file = escapeRegExp(name);
    expect(warningsOf(run).join('\n')).toMatch(new RegExp(`State file ${file} is unreadable \\(.+\\); moved it to ${file}\\.corrupt-`));
    expectSetAside(name, text, before);
    expectHealthy();
    if (name === '.ralph_session') {
      const session = JSON.parse(readFileSync(project.path('.ralph/.ralph_session'), 'utf8')) as Record<string, string>;
      expect(session.reset_reason === 'corrupted_file_recovery' || session.reset_reason === 'project_complete').toBe(true);
    }
  });
});

describe('a corrupt counter or lock is recovered with a warning', () => {
  it.each(['.call_count', '.token_count'])('%s holding text is read as 0 with a warning, then rewritten', async (name) => {
    writeFileSync(project.path(`.ralph/${name}`), 'twelve\u0000');
    const run = await runInProcess(project.dir, agent);
    expect(run.exitCode).toBe(3);
    expect(warningsOf(run).join('\n')).toContain(`State file ${name} holds "twelve`);
    expectHealthy();
  });

  it.each(CORRUPTIONS)('.ralph.lock, %s, is taken over with a warning', async (kind) => {
    corrupt('.ralph.lock', kind);
    const run = await runInProcess(project.dir, agent);
    expect(run.exitCode).toBe(3);
    expect(warningsOf(run).join('\n')).toMatch(/Took over an unreadable lock file .*\.ralph\.lock/);
    expect(existsSync(project.path('.ralph/.ralph.lock'))).toBe(false);
    expectHealthy();
  });

  it('.last_reset holding garbage, and no ledger (a project the Bash tool ran): a new hourly window (counts from 0)', async () => {
    writeFileSync(project.path('.ralph/.last_reset'), 'yesterday?');
    writeFileSync(project.path('.ralph/.call_count'), '99\n');
    // Where ralph keeps a ledger, the ledger counts instead (tests/e2e/guards/ledger.test.ts).
    const run = await runInProcess(project.dir, agent, { env: { XDG_STATE_HOME: join(process.env.XDG_STATE_HOME!, 'no-ledger-yet') } });
    expect(run.exitCode).toBe(3);
    expect(readFileSync(project.path('.ralph/.call_count'), 'utf8')).toBe('1\n');
    expectHealthy();
  });
});

describe('a corrupt file the run resets or only writes is replaced', () => {
  const REPLACED = ['.exit_signals', '.response_analysis', 'status.json', 'progress.json', '.run_state'];
  it.each(REPLACED.flatMap((name) => CORRUPTIONS.map((kind) => [name, kind] as const)))('%s, %s', async (name, kind) => {
    corrupt(name, kind);
    const run = await runInProcess(project.dir, agent);
    expect(run.error).toBeUndefined();
    expect(run.exitCode).toBe(3);
    expectHealthy();
    expect(existsSync(project.path(`.ralph/${name}`)) || name === '.response_analysis').toBe(true);
  });

  it('metrics.jsonl ending in a torn line: the next record still starts on its own line', async () => {
    const metrics = project.path('.ralph/logs/metrics.jsonl');
    const before = readFileSync(metrics, 'utf8');
    writeFileSync(metrics, `${before}{"timestamp":"2026-11-30T03:0`);
    const run = await runInProcess(project.dir, agent);
    expect(run.exitCode).toBe(3);
    const lines = readFileSync(metrics, 'utf8').split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.at(-3)).toBe('{"timestamp":"2026-11-30T03:0');
    expect(JSON.parse(lines.at(-2)!)).toMatchObject({ success: true, calls: 1 });
  });

  it('every state file corrupt at once: the run still starts, works and leaves them all readable', async () => {
    // The history files are read only when appended to (covered above), so they stay out of this one.
    const names = [...valid.keys()].filter((n) => !n.endsWith('_history'));
    for (const name of names) corrupt(name, 'binary');
    const run = await runInProcess(project.dir, agent);
    expect(run.error).toBeUndefined();
    expect(run.exitCode).toBe(3);
    // The torn metrics line of the case above is kept as it was (ralph never rewrites metrics).
    expect(checkStateFiles(project.dir).filter((p) => !p.startsWith('metrics.jsonl'))).toEqual([]);
    expect(JSON.parse(readFileSync(project.path('.ralph/status.json'), 'utf8'))).toMatchObject({ exit_reason: 'max_loops_reached' });
    expect(names.length).toBeGreaterThanOrEqual(12);
  });
});

describe('a .claude_session_id that parses but names no usable session', () => {
  it('an id shaped like a flag is discarded before it reaches --resume, then the loop goes on', async () => {
    const p = loopProject(
      { calls: [{ writeFiles: { 'a.txt': 'a' }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } }] },
      { files: { '.ralph/fix_plan.md': '- [ ] go\n' } },
    );
    try {
      const file = p.project.path('.ralph/.claude_session_id');
      writeFileSync(file, JSON.stringify({ session_id: '--dangerously-skip-permissions', timestamp: new Date(p.clock.now()).toISOString() }));
      const result = await p.run({ MAX_LOOPS: 2 });
      expect(result.exitCode).toBe(3);
      const metrics = readFileSync(p.project.path('.ralph/logs/metrics.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { success: boolean });
      expect(metrics.map((m) => m.success)).toEqual([true, true]);
      expect(p.fake.runs()[0]!.argv).not.toContain('--resume');
      expect(p.fake.runs()[0]!.argv).not.toContain('--dangerously-skip-permissions');
      expect(JSON.parse(readFileSync(file, 'utf8')).session_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
    } finally {
      p.cleanup();
    }
  });
});
