// The web view in a real browser: Debian's headless Chromium, driven by playwright-core, against
// a recorded Bash-written `.ralph/` and against a live run of ralph with the fake agent. At a
// desktop and a phone width it shows the run, updates when a loop ends without a reload, shows
// the agent's markup as text (nothing runs), breaks no rule of its own content security policy,
// and fits 360 px. Screenshots are kept in test-output/web/.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startWebView, type WebView } from '../../lib/web/web-server.js';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { projectView } from '../helpers/project-view.js';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { requireChromium } from '../helpers/sandbox-tools.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { ourStatus, stateProject, type StateProject } from '../unit/monitor/fixture-state.js';

const SCREENSHOTS = join(REPO_ROOT, 'test-output', 'web');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 360, height: 740 };

let browser: Browser;
let profile: string;
let web: WebView | undefined;
let state: StateProject | undefined;
let project: TmpProject | undefined;
let fake: FakeClaude | undefined;

beforeAll(async () => {
  const executablePath = requireChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
  profile = mkdtempSync(join(tmpdir(), 'ralph-chromium-'));
  browser = await chromium.launch({
    executablePath,
    // The machine has no network beyond loopback: Chromium's own background traffic is off.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

afterEach(async () => {
  await web?.close();
  web = undefined;
  state?.cleanup();
  project?.cleanup();
  fake?.cleanup();
  state = project = fake = undefined;
});

/** A page that records every console error (a CSP violation is one), page error and dialog. */
async function openPage(url: string, viewport: { width: number; height: number }): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  await page.goto(url);
  return { page, problems };
}

const textOf = (page: Page, selector: string) => page.locator(selector).textContent();

describe('the web view in Chromium', () => {
  it.each([
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ])('shows a recorded run and updates when a loop ends (%s)', async (name, viewport) => {
    state = stateProject('midrun');
    web = await startWebView({ projectDir: state.dir, view: projectView(state.dir) });
    const { page, problems } = await openPage(web.url, viewport);
    await expect.poll(() => textOf(page, '#loop-count')).toBe('#3');
    expect(await textOf(page, '#run-state')).toBe('running');
    expect(await textOf(page, '#connection')).toBe('live');
    await page.screenshot({ path: join(SCREENSHOTS, `recorded-${name}.png`), fullPage: true });

    state.write('.ralph/status.json', ourStatus({ loop_count: 4, status: 'running' }));
    state.write(
      '.ralph/logs/metrics.jsonl',
      `${JSON.stringify({ timestamp: '2026-12-06T10:00:00Z', loop: 3, duration: 42, success: true, calls: 1, cost_usd: 0.31, files_changed: 2 })}\n`,
    );
    await expect.poll(() => textOf(page, '#loop-count')).toBe('#4');
    await expect.poll(() => page.locator('#loops-table tbody tr').count()).toBe(1);
    expect(await page.locator('#loops-table tbody tr td').allTextContents()).toEqual(['#3', 'ok', '42s', '2', '$0.31']);
    expect(await page.locator('#cost-chart svg rect').count()).toBe(1);

    // Nothing overflows sideways: the page fits the width it is given.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    await page.screenshot({ path: join(SCREENSHOTS, `updated-${name}.png`), fullPage: true });
    expect(problems).toEqual([]);
  });

  it("shows the agent's markup as text and runs none of it", async () => {
    state = stateProject('midrun');
    state.write(
      '.ralph/live.log',
      '<script>alert("from the agent")</script>\n<img src=x onerror="alert(2)">\n\u001b]0;ralph: ALL TESTS PASSED\u0007\u001b[32m[SUCCESS]\u001b[0m All 42 tests passed\n',
    );
    state.write('.ralph/fix_plan.md', '- [ ] <b>bold</b> <iframe src="http://example.invalid/"></iframe>\n');
    web = await startWebView({ projectDir: state.dir, view: projectView(state.dir) });
    const { page, problems } = await openPage(web.url, DESKTOP);
    await expect.poll(() => textOf(page, '#live-text')).toContain('<script>alert("from the agent")</script>');
    expect(await textOf(page, '#live-text')).toContain('[SUCCESS] All 42 tests passed');
    expect(await page.locator('#live-text *').count()).toBe(0);
    expect(await page.locator('#plan-items li').allTextContents()).toEqual(['<b>bold</b> <iframe src="http://example.invalid/"></iframe>']);
    expect(await page.locator('iframe, #plan-items b, #live-text img').count()).toBe(0);
    expect(await page.title()).toBe(`ralph · ${state.dir.split('/').pop()}`);
    await page.screenshot({ path: join(SCREENSHOTS, 'agent-markup.png'), fullPage: true });
    expect(problems).toEqual([]);
  });

  it('follows a live run of ralph with the fake agent to its end', async () => {
    project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\n`, '.ralph/fix_plan.md': '- [ ] first\n- [ ] second\n' }), {
      git: true,
    });
    fake = withFakeClaude({
      calls: [
        { resultText: 'First done.', tickFixPlan: 1, writeFiles: { 'a.txt': 'a' }, costUsd: 0.02 },
        { resultText: 'Second done.', tickFixPlan: 'all', writeFiles: { 'b.txt': 'b' }, costUsd: 0.03 },
      ],
    });
    web = await startWebView({ projectDir: project.dir, view: projectView(project.dir) });
    const { page, problems } = await openPage(web.url, PHONE);
    await expect.poll(() => textOf(page, '#plan-count')).toBe('0/2 done');
    const run = await runCli('ralph', ['--max-loops', '5'], { cwd: project.dir, env: { ...fake.env, ...GIT_TEST_ENV } });
    expect(run.code, run.stderr).toBe(0);
    await expect.poll(() => textOf(page, '#plan-count')).toBe('2/2 done');
    await expect.poll(() => textOf(page, '#run-state')).toBe('completed');
    await expect.poll(() => page.locator('#loops-table tbody tr').count()).toBe(2);
    // The last loop that ran, not status.json's count of the one stopped before it ran.
    expect(await textOf(page, '#loop-label')).toBe('Last loop');
    expect(await textOf(page, '#loop-count')).toBe('#2');
    expect(await page.locator('#loops-table tbody tr:first-child td:last-child').textContent()).toBe('$0.03');
    expect(await textOf(page, '#gate-result')).toMatch(/passed/);
    await page.screenshot({ path: join(SCREENSHOTS, 'live-run-phone.png'), fullPage: true });
    expect(problems).toEqual([]);
  });
});
