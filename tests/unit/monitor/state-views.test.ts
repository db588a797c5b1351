// The dashboard reads the JSON state files without the loop's zod schemas (state-fields.ts,
// state-views.ts). Whatever a file holds, if the loop's schema accepts it, the dashboard shows
// the file as it is exactly as it shows the loop's reading of it (numbers written as text,
// nulls, absent fields and their defaults included). Each case starts from a whole file and
// puts one probe value into one field; .usage_limit_wait, which the loop either takes or
// ignores, is also shown as no wait whenever the loop's schema refuses it.

import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { assembleSnapshot, type AssembleOptions } from '../../../lib/monitor/assemble-snapshot.js';
import type { StateTexts } from '../../../lib/monitor/snapshot.js';
import { lifecycleStateSchema } from '../../../lib/lifecycle/lifecycle-state.js';
import { parallelFileSchema } from '../../../lib/parallel/run-state.js';
import { queueFileSchema } from '../../../lib/queue/queue-file.js';
import {
  breakerStates,
  circuitBreakerFileSchema,
  MAX_RUN_ALERTS,
  progressFileSchema,
  responseAnalysisFileSchema,
  runStateFileSchema,
  statusFileSchema,
  usageWaitFileSchema,
} from '../../../lib/state/schemas.js';
import { defaultViewSettings } from '../../helpers/project-view.js';
import { useTimeZone } from '../../helpers/time-zone.js';
import { ourStatus } from './fixture-state.js';

useTimeZone('UTC');

const NOW = Date.parse('2026-11-30T10:00:30Z');
const base: AssembleOptions = { projectDir: '/p/demo', now: NOW, ralphDirFound: true, ...defaultViewSettings() };
const RUN = 'run-20261130-100000';

type Json = Record<string, unknown>;

interface FileCase {
  key: keyof StateTexts;
  schema: z.ZodType;
  whole: Json;
  /** The nested objects whose fields are probed too, as paths from the top. */
  nested?: string[][];
}

const FILES: FileCase[] = [
  {
    key: 'status',
    schema: statusFileSchema,
    whole: {
      ...(JSON.parse(ourStatus()) as Json),
      pid: 4242,
      started_at: '2026-11-30T09:00:00Z',
      loops_run: 6,
      run_unknown_cost_calls: 1,
      run_alerts: ['a guard undid a change'],
      run_summary: { lines: ['Run ended'] },
      plan_note: 'the agent hid 1 open item',
      usage_limit_resets_at: '2026-11-30T11:00:00Z',
      sandbox: { provider: 'docker', container_id: 'c0ffee', status: 'running', estimated_cost: 0.5 },
    },
    nested: [['sandbox'], ['run_summary']],
  },
  {
    key: 'progress',
    schema: progressFileSchema,
    whole: {
      status: 'executing',
      indicator: '⠙',
      elapsed_seconds: 20,
      last_output: 'working',
      timestamp: '2026-11-30 10:00:20',
      files_changed: 2,
      error: 'none',
    },
  },
  {
    key: 'breaker',
    schema: circuitBreakerFileSchema,
    whole: {
      state: 'HALF_OPEN',
      last_change: '2026-11-30T10:00:00Z',
      consecutive_no_progress: 2,
      consecutive_same_error: 1,
      consecutive_permission_denials: 1,
      last_progress_loop: 4,
      total_opens: 1,
      reason: 'no progress',
      current_loop: 6,
    },
  },
  {
    key: 'analysis',
    schema: responseAnalysisFileSchema,
    whole: {
      loop_number: 6,
      timestamp: '2026-11-30T10:00:00Z',
      output_file: 'out.log',
      output_format: 'json',
      analysis: { exit_signal: true, files_modified: 3, confidence_score: 80, work_summary: 'did it', permission_denial_count: 1, asking_questions: true },
    },
    nested: [['analysis']],
  },
  {
    key: 'runState',
    schema: runStateFileSchema,
    whole: {
      run_id: RUN,
      started_at_ms: NOW - 60_000,
      spend: {
        run: { tokens: { input: 1, output: 2, cacheRead: 0, cacheCreation: 0 }, costUsd: 0.1, loops: 1 },
        hour: { key: '2026113010', tokens: 3, costUsd: 0.1 },
        lastCumulativeBySession: {},
      },
    },
  },
  {
    key: 'githubLifecycle',
    schema: lifecycleStateSchema,
    whole: {
      issue: { number: 12, repo: 'o/r', title: 'Fix it' },
      lifecycle: { progress_comments_posted: 2, pr_url: 'https://example.com/pr/1', issue_closed: true, followups_created: ['13'] },
      updated_at: '2026-11-30T10:00:00Z',
      run_id: RUN,
    },
    nested: [['issue'], ['lifecycle']],
  },
  {
    key: 'queue',
    schema: queueFileSchema,
    whole: {
      queue: [
        { source: 'github', id: 'gh-7', issue_number: 7, title: 'Seven', status: 'processing' },
        { source: 'prd', id: 'prd-1', issue_number: null, title: 'One', status: 'pending' },
      ],
    },
    nested: [['queue', '0']],
  },
  {
    key: 'parallel',
    schema: parallelFileSchema,
    whole: {
      run_id: 'par-1',
      base_commit: 'a'.repeat(40),
      run_branch: 'ralph/par-1',
      started_at: '2026-11-30T10:00:00Z',
      units: [
        { slug: 'one', item: 'do one', lines: [], branch: 'b', worktree: 'w', state: 'running', loops: 2, cost_usd: 0.5, exit_reason: 'done', pr_url: 'u' },
      ],
    },
    nested: [['units', '0']],
  },
  {
    key: 'usageWait',
    schema: usageWaitFileSchema,
    whole: {
      resume_at: '2026-11-30T11:00:00Z',
      resume_at_ms: Date.parse('2026-11-30T11:00:00Z'),
      reason: 'limit',
      source: 'rate_limit_event',
      detected_at: 'x',
    },
  },
];

const PROBES: unknown[] = [undefined, null, '', '7', ' 7 ', 7, 7.5, -1, 'abc', true, 'true', 'false', false, [], ['a'], [1], {}, 'OPEN', RUN];

/** `whole` with the field at `path` set to `value` (undefined: left out). */
function withField(whole: Json, path: string[], value: unknown): Json {
  const copy = structuredClone(whole);
  let holder: Json = copy;
  for (const step of path.slice(0, -1)) holder = holder[step] as Json;
  const last = path.at(-1)!;
  if (value === undefined) delete holder[last];
  else holder[last] = value;
  return copy;
}

/** Every file with one probe in one field (the top level's and the nested objects'). */
function variants(file: FileCase): Json[] {
  const paths: string[][] = [];
  for (const prefix of [[], ...(file.nested ?? [])]) {
    let holder: unknown = file.whole;
    for (const step of prefix) holder = (holder as Json)[step];
    for (const key of Object.keys(holder as Json)) paths.push([...prefix, key]);
  }
  return [file.whole, ...paths.flatMap((path) => PROBES.map((probe) => withField(file.whole, path, probe)))];
}

const assemble = (key: keyof StateTexts, text: string) => assembleSnapshot({ [key]: text }, { ...base, isProcessAlive: () => true });

describe('the dashboard reads a state file as the loop does, without zod', () => {
  it.each(FILES.map((file) => [file.key, file] as const))('%s: a file the loop accepts shows as the loop reads it', (_key, file) => {
    let accepted = 0;
    for (const doc of variants(file)) {
      const parsed = file.schema.safeParse(doc);
      if (!parsed.success) continue;
      accepted++;
      expect(assemble(file.key, JSON.stringify(doc)), JSON.stringify(doc)).toEqual(assemble(file.key, JSON.stringify(parsed.data)));
    }
    // The probes reach both sides: many variants the loop accepts.
    expect(accepted).toBeGreaterThan(10);
  });

  it('a .usage_limit_wait the loop refuses is no wait, with a warning', () => {
    const file = FILES.find((f) => f.key === 'usageWait')!;
    let refused = 0;
    for (const doc of variants(file)) {
      if (usageWaitFileSchema.safeParse(doc).success) continue;
      refused++;
      const snap = assemble('usageWait', JSON.stringify(doc));
      expect(snap.usageWait, JSON.stringify(doc)).toBeUndefined();
      expect(snap.warnings, JSON.stringify(doc)).toEqual([expect.stringMatching(/^\.usage_limit_wait is unreadable \(\w+: .*\); ignored$/)]);
    }
    expect(refused).toBeGreaterThan(10);
  });

  it('shows each section of the whole files', () => {
    const texts = Object.fromEntries(FILES.map((file) => [file.key, JSON.stringify(file.whole)]));
    const snap = assembleSnapshot(texts, { ...base, isProcessAlive: () => true });
    expect(snap.warnings).toEqual([]);
    expect(snap.status).toMatchObject({ loopCount: 6, sandbox: { provider: 'docker', id: 'c0ffee', estimatedCost: '0.5000' }, runSummary: ['Run ended'] });
    expect(snap.breaker).toMatchObject({ state: 'HALF_OPEN', consecutiveNoProgress: 2 });
    expect(snap.analysis).toMatchObject({ loopNumber: 6, exitSignal: true, confidence: 80 });
    expect(snap.issue).toMatchObject({ number: 12, commentsPosted: 2, closed: true, followups: 1 });
    expect(snap.queue).toMatchObject({ total: 2, processing: 1, current: '#7 Seven' });
    expect(snap.units).toEqual([{ slug: 'one', state: 'running', loops: 2, costUsd: 0.5, worktree: 'w', reason: 'done', prUrl: 'u' }]);
    expect(snap.usageWait).toEqual({ resumeAt: Date.parse('2026-11-30T11:00:00Z'), reason: 'limit', source: 'rate_limit_event' });
  });

  it('knows what the loop keeps: its newest run alerts, each breaker state', () => {
    const alerts = Array.from({ length: MAX_RUN_ALERTS + 2 }, (_, i) => `alert ${i}`);
    expect(assemble('status', JSON.stringify({ run_alerts: alerts })).status?.alerts).toEqual(alerts.slice(-MAX_RUN_ALERTS));
    for (const state of breakerStates) {
      const snap = assemble('breaker', JSON.stringify({ state }));
      expect(snap.breaker?.state).toBe(state);
      expect(snap.warnings).toEqual([]);
    }
  });

  it('names the first field of the wrong kind, by its kind only', () => {
    const snap = assemble('status', JSON.stringify({ status: 'running', loop_count: { evil: '\u001b[2J' }, calls_made_this_hour: [] }));
    expect(snap.status).toMatchObject({ status: 'running', loopCount: undefined, callsThisHour: undefined });
    expect(snap.warnings).toEqual(['status.json has an unexpected value (loop_count: expected a number, received an object); showing what could be read']);
  });
});
