import { afterEach, describe, expect, it } from 'vitest';
import { assembleSnapshot } from '../../../lib/monitor/assemble-snapshot.js';
import { visibleWidth } from '../../../lib/monitor/ansi.js';
import { renderFrame } from '../../../lib/monitor/render.js';
import type { DashboardSnapshot } from '../../../lib/monitor/snapshot.js';
import { loadSnapshot } from '../../../lib/monitor/snapshot-loader.js';
import { ourStatus, plain, stateProject, type BashFixture, type StateProject } from './fixture-state.js';
import { defaultViewSettings, projectView } from '../../helpers/project-view.js';
import { useTimeZone } from '../../helpers/time-zone.js';

useTimeZone('UTC');

const NOW = Date.parse('2026-11-30T10:15:30Z');
let project: StateProject | undefined;
afterEach(() => project?.cleanup());

async function bashSnapshot(fixture: BashFixture): Promise<DashboardSnapshot> {
  project?.cleanup();
  project = stateProject(fixture);
  return loadSnapshot(project.dir, projectView(project.dir), Date.parse('2026-11-30T04:49:10Z'));
}

/** A busy run of ours: every section has something to show. */
function richSnapshot(overrides: Partial<Parameters<typeof assembleSnapshot>[0]> = {}): DashboardSnapshot {
  return assembleSnapshot(
    {
      status: ourStatus(),
      progress: JSON.stringify({ status: 'executing', indicator: '⠹', elapsed_seconds: 95, timestamp: '2026-11-30 10:15:25', last_output: 'Edit' }),
      breaker: JSON.stringify({
        state: 'HALF_OPEN',
        consecutive_no_progress: 2,
        consecutive_same_error: 1,
        total_opens: 1,
        last_progress_loop: 5,
        reason: 'Monitoring: 2 loops without progress',
      }),
      callCount: '12',
      tokenCount: '45000',
      lastReset: '2026113010',
      analysis: JSON.stringify({
        loop_number: 6,
        analysis: {
          exit_signal: false,
          files_modified: 2,
          confidence_score: 70,
          work_summary: 'Implemented the parser and its tests; the CLI wiring is next and will need a second loop to finish',
          permission_denial_count: 1,
        },
      }),
      fixPlan: '- [x] a\n- [x] b\n- [x] c\n- [ ] d\n- [ ] e\n## Optional\n- [ ] f\n',
      usageWait: JSON.stringify({
        resume_at: '2026-11-30T11:17:33Z',
        resume_at_ms: Date.parse('2026-11-30T11:17:33Z'),
        reason: 'You have hit your 5-hour limit',
        source: 'result text',
      }),
      ralphLogTail: Array.from(
        { length: 12 },
        (_, i) =>
          `[2026-11-30 10:15:${String(i).padStart(2, '0')}] [${i % 4 === 0 ? 'WARN' : 'INFO'}] ✅ step ${i} of a fairly long log line that goes on and on`,
      ).join('\n'),
      liveLogTail: '=== Loop #7 ===\nReading the file\n⚡ [Read] src/parser.ts\nNow editing 日本語 text\n⚡ [Edit] src/parser.ts\n',
      ...overrides,
    },
    { projectDir: '/home/user/demo', now: NOW, ralphDirFound: true, readWarnings: ['cannot read queue.json (EACCES)'], ...defaultViewSettings() },
  );
}

const text = (lines: string[]) => lines.map(plain).join('\n');

describe('renderFrame on Bash-written state', () => {
  it.each(['completed', 'halted', 'midrun'] as const)('shows loop count, status and calls for %s', async (fixture) => {
    const frame = text(renderFrame(await bashSnapshot(fixture), { columns: 80, color: false, now: NOW }));
    const expected = {
      completed: ['Loop #6', 'completed', 'Calls  5/100'],
      halted: ['Loop #3', 'halted', 'OPEN', 'Calls  3/100'],
      midrun: ['Loop #3', 'running', 'Working', 'Calls  3/100'],
    }[fixture];
    for (const piece of expected) expect(frame).toContain(piece);
  });

  it('shows the Bash dashboard sections: recent activity from ralph.log and the plan', async () => {
    const frame = text(renderFrame(await bashSnapshot('halted'), { columns: 100, color: false, now: NOW }));
    expect(frame).toContain('── Recent activity');
    expect(frame).toContain('[ERROR] 🛑 Circuit breaker has opened - halting loop');
    expect(frame).toContain('0/2 done (0%)');
    expect(frame).toContain('Reason: No recovery, opening circuit after 3 loops');
    expect(frame).toContain('OPEN no progress 3');
  });

  it('shows a corrupt status.json as a warning line', async () => {
    const snap = await bashSnapshot('completed');
    project!.write('.ralph/status.json', '{"loop_count": ');
    const frame = text(renderFrame(await loadSnapshot(project!.dir, projectView(project!.dir), NOW), { columns: 80, color: false, now: NOW }));
    expect(frame).toContain('! status.json is corrupt (not a JSON object); ignored');
    expect(frame).toContain('Status file not found');
    expect(snap.status?.loopCount).toBe(6);
  });
});

describe('renderFrame after the loop is gone (kill -9)', () => {
  const gone = (progress: Record<string, unknown>) =>
    assembleSnapshot(
      { status: ourStatus({ pid: 4242, started_at: '2026-11-30T10:00:00+00:00', timestamp: '2026-11-30T10:05:04+00:00' }), progress: JSON.stringify(progress) },
      { projectDir: '/p', now: NOW, ralphDirFound: true, isProcessAlive: () => false, ...defaultViewSettings() },
    );

  it('does not show the loop running or the agent working beside the warning', () => {
    const frame = text(
      renderFrame(gone({ status: 'executing', indicator: '⠋', elapsed_seconds: 3, timestamp: '2026-11-30 10:05:04', last_output: 'Edit' }), {
        columns: 100,
        color: false,
        now: NOW,
      }),
    );
    expect(frame).toContain('the loop (pid 4242) is no longer running');
    expect(frame).toContain('Status: not running  (recorded: running)');
    expect(frame).not.toContain('Working');
    expect(frame).toContain('Last agent run: cut short when the loop stopped (last: Edit)');
    // The run time ends at its last status write, not at the dashboard's clock.
    expect(frame).toContain('· run 5m 04s');
  });
});

describe('renderFrame after the verification gate', () => {
  it('says "not verified" for a gate whose test command ran no test, never "passed"', () => {
    const snap = (status: string) =>
      assembleSnapshot(
        { status: ourStatus({ pid: 4242 }), progress: JSON.stringify({ status, timestamp: '2026-11-30 10:15:25', last_output: 'x' }) },
        { projectDir: '/p', now: NOW, ralphDirFound: true, isProcessAlive: () => true, ...defaultViewSettings() },
      );
    const frame = text(renderFrame(snap('gate_not_verified'), { columns: 100, color: false, now: NOW }));
    expect(frame).toContain('Last agent run: finished; verification gate NOT VERIFIED (ran no test)');
    expect(frame).not.toContain('gate passed');
  });
});

describe('renderFrame over time', () => {
  it('turns the spinner from one frame to the next while the agent works', () => {
    const snap = richSnapshot();
    const glyph = (now: number) => /([⠋⠙⠹⠸]) Working/.exec(text(renderFrame(snap, { columns: 100, color: false, now })))?.[1];
    const glyphs = new Set([NOW, NOW + 1000, NOW + 2000, NOW + 3000].map(glyph));
    expect(glyphs.size).toBe(4);
  });

  it('shows how long the run has been going', () => {
    const snap = richSnapshot({ status: ourStatus({ started_at: '2026-11-30T09:00:00+00:00' }) });
    expect(text(renderFrame(snap, { columns: 100, color: false, now: NOW }))).toContain('· run 1h 15m 30s');
  });

  it('shows the summary without a RALPH_STATUS block the agent put in it', () => {
    const analysis = JSON.stringify({
      loop_number: 6,
      analysis: { exit_signal: false, work_summary: 'Wrote the parser. ---RALPH_STATUS--- STATUS: IN_PROGRESS EXIT_SIGNAL: false ---END_RALPH_STATUS---' },
    });
    const frame = text(renderFrame(richSnapshot({ analysis }), { columns: 120, color: false, now: NOW }));
    expect(frame).toContain('Summary: Wrote the parser.');
    expect(frame).not.toContain('RALPH_STATUS');
  });
});

describe('renderFrame content', () => {
  const frame = text(renderFrame(richSnapshot(), { columns: 100, color: false, now: NOW }));

  it('shows the agent working, for how long, with its last tool and output tail', () => {
    expect(frame).toContain('⠹ Working for 1m 40s  last tool: Edit');
    expect(frame).toContain('Now editing 日本語 text');
  });

  it('shows calls and tokens against the hourly limits with the time to reset', () => {
    expect(frame).toMatch(/Calls {2}12\/100 \[█+░+\] this hour/);
    expect(frame).toMatch(/Tokens 45,000\/200,000 \[/);
    expect(frame).toContain('Resets in 44m 30s (at 11:00)');
  });

  it('shows spend against --max-cost', () => {
    expect(frame).toMatch(/Cost {3}\$1\.25 of \$5\.00 \[█+░+\] this run, 123,456 tokens/);
  });

  it("says how many of the run's calls are of unknown cost", () => {
    const cutOff = text(renderFrame(richSnapshot({ status: ourStatus({ run_unknown_cost_calls: 1 }) }), { columns: 100, color: false, now: NOW }));
    expect(cutOff).toContain('Cost   $1.25 + 1 call of unknown cost of $5.00');
  });

  it('shows the usage-limit countdown and why', () => {
    expect(frame).toContain('Usage limit: resumes in 1h 02m 03s (at 11:17:33)');
    expect(frame).toContain('You have hit your 5-hour limit · source: result text');
  });

  it('shows the breaker, the plan progress and the last analysis', () => {
    expect(frame).toContain('HALF_OPEN no progress 2 · same error 1 · denials 0 · opens 1');
    expect(frame).toContain('Last progress: loop #5 · Reason: Monitoring: 2 loops without progress');
    // Blocking items only, as the exit gate and the gap count them; the optional one apart.
    expect(frame).toMatch(/\[█+░+\] 3\/5 done \(60%\) · 1 optional open/);
    expect(frame).toContain('── Last loop #6');
    expect(frame).toContain('Exit signal no · files changed 2 · confidence 70 · denials 1');
    expect(frame).toContain('Summary: Implemented the parser');
  });

  it('shows warnings and the footer', () => {
    expect(frame).toContain('! cannot read queue.json (EACCES)');
    expect(frame.split('\n').at(-1)).toBe('Ctrl+C to exit · refresh 2s · 10:15:30');
  });

  it("names the open plan items the agent hid, as the loop wrote them, without the agent's escape sequences", () => {
    const note = 'the agent removed 3 open items of fix_plan.md; they count as still open: a; b; c';
    const hidden = renderFrame(richSnapshot({ status: ourStatus({ plan_note: `${note}\u001b]0;owned\u0007\u001b[2J` }) }), {
      columns: 120,
      color: false,
      now: NOW,
    });
    expect(text(hidden)).toContain(`⚠ ${note}`);
    expect(hidden.join('\n')).not.toMatch(/\u001b\]|\u001b\[2J|\u0007/);
    expect(frame).not.toContain('⚠ the agent');
  });

  it('says when the counters belong to an earlier hour', () => {
    const stale = text(renderFrame(richSnapshot({ lastReset: '2026113009' }), { columns: 100, color: false, now: NOW }));
    expect(stale).toContain('Counters reset at the next loop (new hour)');
  });
});

describe('renderFrame layout', () => {
  it.each([60, 61, 80, 132])('never draws a line wider than %i columns', async (columns) => {
    const frames = [
      renderFrame(richSnapshot(), { columns, rows: 50, color: true, now: NOW }),
      renderFrame(await bashSnapshot('midrun'), { columns, color: true, now: NOW }),
      renderFrame(await bashSnapshot('halted'), { columns, color: false, now: NOW }),
    ];
    for (const line of frames.flat()) expect(visibleWidth(line)).toBeLessThanOrEqual(columns);
  });

  it('keeps the key numbers readable at 60 columns', () => {
    const frame = text(renderFrame(richSnapshot(), { columns: 60, color: false, now: NOW }));
    expect(frame).toContain('Loop #7/20  Status: running');
    expect(frame).toMatch(/Calls {2}12\/100 /);
    expect(frame).toContain('$1.25 of $5.00');
    expect(frame).toContain('3/5 done');
    expect(frame).toContain('resumes in 1h 02m 03s');
    expect(frame).toContain('HALF_OPEN no progress 2 · same error 1 · denials 0 · opens 1');
    expect(frame).toContain('Exit signal no · files changed 2 · confidence 70 · denials 1');
  });

  it('fits the terminal height: tails shrink first, then minor sections go, header and footer stay', () => {
    const full = renderFrame(richSnapshot(), { columns: 80, color: false, now: NOW });
    for (const rows of [12, 20, 30, 45]) {
      const frame = renderFrame(richSnapshot(), { columns: 80, rows, color: false, now: NOW });
      expect(frame.length).toBeLessThanOrEqual(rows);
      expect(plain(frame[0]!)).toContain('RALPH MONITOR');
      expect(plain(frame.at(-1)!)).toContain('Ctrl+C to exit');
    }
    const mid = text(renderFrame(richSnapshot(), { columns: 80, rows: 30, color: false, now: NOW }));
    expect(mid).toContain('Loop #7/20');
    expect(mid).toContain('! cannot read queue.json');
    expect(mid).not.toContain('step 0 of');
    expect(full.length).toBeGreaterThan(30);
  });

  it('keeps the key facts in the status pane of an 80x24 terminal (39x14): status, breaker, plan, last loop, activity', () => {
    const frame = renderFrame(richSnapshot(), { columns: 39, rows: 14, color: false, now: NOW });
    expect(frame.length).toBeLessThanOrEqual(14);
    for (const line of frame) expect(visibleWidth(line)).toBeLessThanOrEqual(39);
    const shown = text(frame);
    expect(shown).toContain('Loop #7/20');
    expect(shown).toContain('Working for');
    expect(shown).toContain('Breaker: HALF_OPEN');
    expect(shown).toMatch(/Plan: .*3\/5 done/);
    expect(shown).toContain('Last loop #6: Exit signal no');
    expect(shown).toContain('[2026-11-30 10:15:11] [INFO]');
  });

  it('draws no colour without the color option (NO_COLOR) and colours with it', () => {
    expect(renderFrame(richSnapshot(), { columns: 80, color: false, now: NOW }).join('')).not.toContain('\x1b[');
    expect(renderFrame(richSnapshot(), { columns: 80, color: true, now: NOW }).join('')).toContain('\x1b[');
  });

  it('cannot be driven by escape sequences inside the files it shows', () => {
    const snap = richSnapshot({ ralphLogTail: 'evil \x1b[2J\x1b[Hline\n' });
    const frame = renderFrame(snap, { columns: 80, color: false, now: NOW }).join('\n');
    expect(frame).toContain('evil line');
    expect(frame).not.toContain('\x1b[2J');
  });

  it('renders an empty project without crashing', () => {
    const snap = assembleSnapshot({}, { projectDir: '/x', now: NOW, ralphDirFound: false, ...defaultViewSettings() });
    const frame = text(renderFrame(snap, { columns: 60, rows: 24, color: false, now: NOW }));
    expect(frame).toContain('No .ralph/ directory found.');
    expect(frame).toContain('No log file found');
  });
});
