import { describe, expect, it } from 'vitest';
import { assembleSnapshot, type AssembleOptions } from '../../../lib/monitor/assemble-snapshot.js';
import type { StateTexts } from '../../../lib/monitor/snapshot.js';
import { ourStatus } from './fixture-state.js';
import { defaultViewSettings } from '../../helpers/project-view.js';
import { useTimeZone } from '../../helpers/time-zone.js';

useTimeZone('UTC');

const NOW = Date.parse('2026-11-30T10:00:30Z');
const base: AssembleOptions = { projectDir: '/p/demo', now: NOW, ralphDirFound: true, ...defaultViewSettings() };
const assemble = (texts: StateTexts, options: Partial<AssembleOptions> = {}) => assembleSnapshot(texts, { ...base, ...options });

// progress.json exactly as the Bash tool writes it mid-run: `last_output` unescaped.
const BASH_PROGRESS = `{
    "status": "executing",
    "indicator": "⠙",
    "elapsed_seconds": 20,
    "last_output": "{"type":"system","subtype":"init","session_id":"abc",
    "timestamp": "2026-11-30 10:00:20"
}`;

describe('assembleSnapshot', () => {
  it('shows the agent the loop calls (a fallback while the primary is limited), and only a name', async () => {
    const { renderLoopSection } = await import('../../../lib/monitor/render-sections.js');
    const snap = assemble({ status: ourStatus({ agent: 'codex' }) });
    expect(snap.status?.agent).toBe('codex');
    const text = renderLoopSection(snap, { now: NOW, columns: 100 })
      .map((line) => line.map((seg) => seg.text).join(''))
      .join('\n');
    expect(text).toContain('Agent: codex');
    expect(assemble({ status: ourStatus({ agent: '\u001b[2Jcodex' }) }).status?.agent).toBeUndefined();
  });

  it('salvages the fields of a Bash progress.json that is not valid JSON, without a warning', () => {
    const snap = assemble({ progress: BASH_PROGRESS });
    expect(snap.progress).toMatchObject({ status: 'executing', indicator: '⠙', lastOutput: '{"type":"system","subtype":"init","session_id":"abc' });
    // 20 s at the last write plus the 10 s since it.
    expect(snap.progress?.workingSeconds).toBe(30);
    expect(snap.warnings).toEqual([]);
  });

  it('flags a Bash progress.json that has not been rewritten for over a minute', () => {
    const snap = assemble({ progress: BASH_PROGRESS }, { now: Date.parse('2026-11-30T10:05:20Z') });
    expect(snap.progress?.staleSeconds).toBe(300);
    expect(snap.progress?.workingSeconds).toBe(20);
  });

  it('turns a corrupt status.json into a warning and no status section', () => {
    const snap = assemble({ status: '{"loop_count": 3, "status": "runn' });
    expect(snap.status?.loopCount).toBe(3);
    const broken = assemble({ status: '\x00\x01 garbage ]]' });
    expect(broken.status).toBeUndefined();
    expect(broken.warnings).toEqual(['status.json is corrupt (not a JSON object); ignored']);
  });

  it('keeps the well-typed fields of a status.json with one wrong value, and says which', () => {
    const snap = assemble({ status: JSON.stringify({ loop_count: 'many', status: 'running', calls_made_this_hour: 4 }) });
    expect(snap.status).toMatchObject({ status: 'running', callsThisHour: 4, loopCount: undefined });
    expect(snap.warnings[0]).toMatch(/^status\.json has an unexpected value \(loop_count: /);
  });

  it('reads our spend fields, budgets and the pid, and warns when that loop is gone', () => {
    const texts = { status: ourStatus({ pid: 4242 }) };
    const alive = assemble(texts, { isProcessAlive: () => true });
    expect(alive.status).toMatchObject({ costUsdRun: 1.25, maxCostUsd: 5, tokensRun: 123_456, maxLoops: 20 });
    expect(alive.warnings).toEqual([]);
    const dead = assemble(texts, { isProcessAlive: (pid) => pid !== 4242 });
    expect(dead.warnings).toEqual(['the loop (pid 4242) is no longer running; the state shown is from when it stopped']);
  });

  it('prefers the call counter file over status.json and warns about a corrupt counter', () => {
    const snap = assemble({ status: ourStatus(), callCount: '13\n', tokenCount: 'lots', lastReset: '2026113010' });
    expect(snap.rate).toEqual({ calls: 13, tokens: undefined, hourKey: '2026113010' });
    expect(snap.warnings).toEqual(['.token_count is corrupt (not an integer); ignored']);
  });

  it('reads a usage-limit wait from .usage_limit_wait, or from status.json while it is ahead', () => {
    const fromFile = assemble({
      usageWait: JSON.stringify({
        resume_at: '2026-11-30T11:00:00Z',
        resume_at_ms: Date.parse('2026-11-30T11:00:00Z'),
        reason: '5-hour limit',
        source: 'rate_limit_event',
      }),
    });
    expect(fromFile.usageWait).toEqual({ resumeAt: Date.parse('2026-11-30T11:00:00Z'), reason: '5-hour limit', source: 'rate_limit_event' });
    const fromStatus = assemble({ status: ourStatus({ status: 'paused', usage_limit_resets_at: '2026-11-30T12:00:00Z' }) });
    expect(fromStatus.usageWait?.resumeAt).toBe(Date.parse('2026-11-30T12:00:00Z'));
    const past = assemble({ status: ourStatus({ usage_limit_resets_at: '2026-11-30T09:00:00Z' }) });
    expect(past.usageWait).toBeUndefined();
    const bad = assemble({ usageWait: '{"resume_at": "soon"}' });
    expect(bad.usageWait).toBeUndefined();
    expect(bad.warnings).toEqual([expect.stringMatching(/^\.usage_limit_wait is unreadable \(resume_at_ms: .*\); ignored$/)]);
  });

  it('ignores guard values ralph could not have written: a negative count, a wait until 2099', () => {
    const snap = assemble({
      callCount: '-1000000\n',
      usageWait: JSON.stringify({ resume_at: '2099-01-01T00:00:00Z', resume_at_ms: Date.parse('2099-01-01T00:00:00Z'), reason: 'limit' }),
    });
    expect(snap.rate.calls).toBeUndefined();
    expect(snap.usageWait).toBeUndefined();
    expect(snap.warnings).toEqual([
      '.call_count is corrupt (-1000000 is below 0); ignored',
      expect.stringMatching(/^\.usage_limit_wait: resume_at 2099-01-01T00:00:00\.000Z is further away than the longest wait ralph chooses \(\d+ h\); ignored$/),
    ]);
  });

  it('counts fix_plan.md blocking items as done / total, with optional sections apart', () => {
    const snap = assemble({ fixPlan: '# Plan\n- [x] a\n- [X] b\n  - [ ] c\n## Optional\n- [ ] d\n* [ ] e\n- [x] f\n' });
    expect(snap.plan).toEqual({ done: 2, total: 3, optionalOpen: 2, optionalDone: 1 });
  });

  it('warns about a code fence that is never closed (its items still count)', () => {
    const snap = assemble({ fixPlan: '- [x] a\n```\n- [ ] b\n' }, { planFile: 'docs/plan.md' });
    expect(snap.plan).toMatchObject({ done: 1, total: 2 });
    expect(snap.warnings).toEqual(['docs/plan.md line 2 opens a code fence that is never closed; its items count as blocking']);
  });

  it('reads the plan with the OPTIONAL_SECTIONS it is given', () => {
    const snap = assemble({ fixPlan: '- [x] a\n## Later\n- [ ] b\n## Optional\n- [ ] c\n' }, { optionalSections: ['Later'] });
    expect(snap.plan).toEqual({ done: 1, total: 2, optionalOpen: 1, optionalDone: 0 });
  });

  it('finds the last tool in the live output while the agent works', () => {
    const snap = assemble({
      progress: JSON.stringify({ status: 'executing', elapsed_seconds: 5, timestamp: '2026-11-30 10:00:25' }),
      liveLogTail: 'thinking\n⚡ [Read]\nmore\n⚡ [Edit] src/a.ts\nwriting\n',
    });
    expect(snap.progress?.lastTool).toBe('Edit');
    expect(snap.liveTail.at(-1)).toBe('writing');
  });

  it('reads the last analysis and the breaker counters', () => {
    const snap = assemble({
      analysis: JSON.stringify({ loop_number: 6, analysis: { exit_signal: true, files_modified: 3, work_summary: 'Did it', confidence_score: 90 } }),
      breaker: JSON.stringify({ state: 'HALF_OPEN', consecutive_no_progress: 2, total_opens: 1, reason: 'Monitoring: 2 loops without progress' }),
    });
    expect(snap.analysis).toMatchObject({ loopNumber: 6, exitSignal: true, filesModified: 3, workSummary: 'Did it', confidence: 90 });
    expect(snap.breaker).toMatchObject({ state: 'HALF_OPEN', consecutiveNoProgress: 2, totalOpens: 1 });
  });

  it('summarises an issue queue', () => {
    const queue = {
      queue: [
        { id: 'github-1', status: 'completed', title: 'one' },
        { id: 'github-2', issue_number: 2, status: 'processing', title: 'two' },
        { id: 'prd-x', status: 'pending', title: 'x' },
      ],
    };
    expect(assemble({ queue: JSON.stringify(queue) }).queue).toEqual({
      total: 3,
      completed: 1,
      pending: 1,
      processing: 1,
      failed: 0,
      current: '#2 two',
    });
  });

  it('passes read problems through as warnings and shows nothing for absent files', () => {
    const snap = assemble({}, { readWarnings: ['cannot read status.json (EACCES)'] });
    expect(snap.warnings).toEqual(['cannot read status.json (EACCES)']);
    expect(snap.status).toBeUndefined();
    expect(snap.progress).toBeUndefined();
    expect(snap.plan).toBeUndefined();
  });
});
