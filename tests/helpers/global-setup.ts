// `npm test`'s global setup: runs in vitest's own process before any worker starts, so what it
// puts in process.env every worker inherits, and with it every process a test starts: the temp
// folder in RAM (ram-temp-dir.ts), the bundled fake claude, gh and bd (fake-claude-bundle.ts) and
// the folder where the fake npm keeps what it packed for the run (fleet-repo.ts), the one where
// the fake gh keeps its answers (tests/fixtures/fake-gh/answers.sh) and the one
// where the git projects the tests make are kept to be copied (project-templates.ts). It builds
// dist/ when a source is newer (build-dist.ts), before any test starts ralph. vitest
// runs it once for the root config and once per project; the first run does the work.

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from './build-dist.js';
import { bundleFakeClaude, bundleFakeCli, fakeCliCache } from './fake-claude-bundle.js';
import { FAKE_CLIS, FAKE_GH_ANSWERS_ENV, NPM_PACK_CACHE_ENV } from './fake-cli-paths.js';
import { BUNDLED_FAKE_CLAUDE_ENV } from './fake-claude.js';
import { makeRamTempDir } from './ram-temp-dir.js';
import { PROJECT_TEMPLATES_ENV } from './project-templates.js';

const DONE = Symbol.for('ralph.tests.globalSetup');

export default async function setup(): Promise<(() => void) | undefined> {
  const shared = globalThis as { [DONE]?: boolean };
  if (shared[DONE]) return undefined;
  shared[DONE] = true;
  const ramTemp = makeRamTempDir();
  const removeRamTemp = () => {
    if (ramTemp === undefined) return;
    try {
      rmSync(ramTemp, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    } catch {
      // Still being written to: a later run removes it (ram-temp-dir.ts).
    }
  };
  if (ramTemp !== undefined) {
    process.env.TMPDIR = ramTemp;
    // Ctrl-C ends `vitest run` without its teardown: what can go goes on exit (the tests'
    // processes may still be writing there), and a later run removes the rest.
    process.once('exit', removeRamTemp);
  }
  // The fake npm's tarballs of the fleet's package, kept for the whole run (fleet-repo.ts).
  const npmPackCache = mkdtempSync(join(tmpdir(), 'npm-pack-'));
  process.env[NPM_PACK_CACHE_ENV] = npmPackCache;
  process.once('exit', () => rmSync(npmPackCache, { recursive: true, force: true }));
  // The answers of the bundled fake gh's Node program, kept for the whole run (tests/fixtures/fake-gh/answers.sh).
  const ghAnswers = mkdtempSync(join(tmpdir(), 'fake-gh-answers-'));
  process.env[FAKE_GH_ANSWERS_ENV] = ghAnswers;
  process.once('exit', () => rmSync(ghAnswers, { recursive: true, force: true }));
  // The git projects the tests make again and again, made once for the whole run (project-templates.ts).
  const projectTemplates = mkdtempSync(join(tmpdir(), 'project-templates-'));
  process.env[PROJECT_TEMPLATES_ENV] = projectTemplates;
  process.once('exit', () => rmSync(projectTemplates, { recursive: true, force: true }));
  await ensureBuilt();
  process.env[BUNDLED_FAKE_CLAUDE_ENV] = await bundleFakeClaude();
  for (const [variable, cli] of Object.entries(FAKE_CLIS)) process.env[variable] = await bundleFakeCli(cli, fakeCliCache(cli));
  return () => {
    rmSync(npmPackCache, { recursive: true, force: true });
    rmSync(ghAnswers, { recursive: true, force: true });
    rmSync(projectTemplates, { recursive: true, force: true });
    if (ramTemp === undefined) return;
    // What a test made and did not remove goes with the folder; say so, to be mended.
    const left = readdirSync(ramTemp);
    if (left.length > 0) process.stderr.write(`tests left in their temp folder (removed now): ${left.join(', ')}\n`);
    removeRamTemp();
  };
}
