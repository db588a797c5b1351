// The loop, `ralph --status --json` and `ralph-monitor` check a stored usage-limit wait against
// the same configured margin and fallback (USAGE_LIMIT_MARGIN_SECONDS, USAGE_LIMIT_WAIT_MINUTES),
// so a wait the loop chose and keeps is shown by every view, not refused as too long.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectStatus } from '../../../lib/cli/ralph/status-json.js';
import { loadConfig } from '../../../lib/config/load-config.js';
import { usageLimitWaitSettings } from '../../../lib/limits/usage-limit-settings.js';
import { loadViewConfig } from '../../../lib/config/view-config.js';
import { CLOCK_SKEW_MS } from '../../../lib/breaker/guard-ranges.js';
import { longestUsageLimitWaitMs, MAX_STATED_WAIT_MS } from '../../../lib/limits/reset-time.js';
import { loadUsageWait } from '../../../lib/limits/limits-store.js';
import { loadSnapshot } from '../../../lib/monitor/snapshot-loader.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

const DAY = 86_400_000;
let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

type WaitFile = Record<string, unknown>;

function project(ralphrc: string, waitEndsIn: number, now: number, shape: (wait: WaitFile) => WaitFile): { p: TmpProject; home: string } {
  const p = tmpProject({ '.ralphrc': ralphrc, '.ralph/fix_plan.md': '# Plan\n- [ ] a\n' });
  const home = mkdtempSync(join(tmpdir(), 'ralph-home-'));
  cleanups.push(
    () => p.cleanup(),
    () => rmSync(home, { recursive: true, force: true }),
  );
  const resumeAt = now + waitEndsIn;
  const wait = { resume_at: new Date(resumeAt).toISOString(), resume_at_ms: resumeAt, reason: 'limit', source: 'stated', detected_at: '' };
  writeFileSync(p.path('.ralph/.usage_limit_wait'), JSON.stringify(shape(wait)));
  return { p, home };
}

async function views(ralphrc: string, waitEndsIn: number, shape: (wait: WaitFile) => WaitFile = (wait) => wait) {
  const clock = fakeClock();
  const { p, home } = project(ralphrc, waitEndsIn, clock.now(), shape);
  const env = {};
  const logger = createMemoryLogger();
  const { config } = loadConfig({ projectDir: p.dir, homeDir: home, env });
  const loop = loadUsageWait(ralphPaths(p.dir), { logger, clock, quarantine: false }, longestUsageLimitWaitMs(usageLimitWaitSettings(config)));
  const view = loadViewConfig({ projectDir: p.dir, homeDir: home, env });
  const status = collectStatus(p.dir, view, clock);
  const monitor = await loadSnapshot(p.dir, view, clock.now());
  return { loop, status, monitor, resumeAt: clock.now() + waitEndsIn };
}

/** The loop, --status --json and the monitor hold the same wait: the one written, ending at `resumeAt`. */
function expectAllAgree(seen: Awaited<ReturnType<typeof views>>): void {
  const { loop, status, monitor, resumeAt } = seen;
  expect(loop).toMatchObject({ resume_at_ms: resumeAt, reason: 'limit', source: 'stated' });
  expect(status.usage_limit_wait).toEqual(loop);
  expect(status.warnings).toEqual([]);
  expect(monitor.usageWait).toEqual({ resumeAt, reason: loop!.reason, source: loop!.source });
  expect(monitor.warnings).toEqual([]);
}

describe('a stored usage-limit wait, with a custom margin or fallback', () => {
  it('a one-day margin: the loop keeps an 8.5-day wait, and --status --json and the monitor show it', async () => {
    expectAllAgree(await views('USAGE_LIMIT_MARGIN_SECONDS=86400\n', 8.5 * DAY));
  });

  it('a two-week fallback: a ten-day wait is kept by the loop and shown by both views', async () => {
    expectAllAgree(await views('USAGE_LIMIT_WAIT_MINUTES=20160\n', 10 * DAY));
  });

  it('with the default 60 s margin all three refuse a wait 90 s beyond the stated maximum (and skew)', async () => {
    const { loop, status, monitor } = await views('', MAX_STATED_WAIT_MS + CLOCK_SKEW_MS + 90_000);
    expect(loop).toBeUndefined();
    expect(status.usage_limit_wait).toBeNull();
    expect(status.warnings).toEqual([expect.stringMatching(/\.usage_limit_wait/)]);
    expect(monitor.usageWait).toBeUndefined();
    expect(monitor.warnings).toEqual([expect.stringMatching(/\.usage_limit_wait/)]);
  });

  it('a wait without resume_at_ms (not one ralph wrote): the loop does not wait for it, and neither view shows it', async () => {
    const { loop, status, monitor } = await views('', 3_600_000, ({ resume_at_ms: _ms, ...rest }) => rest);
    expect(loop).toBeUndefined();
    expect(status.usage_limit_wait).toBeNull();
    expect(monitor.usageWait).toBeUndefined();
    expect(monitor.warnings).toEqual([expect.stringMatching(/^\.usage_limit_wait is unreadable \(resume_at_ms: /)]);
  });
});
