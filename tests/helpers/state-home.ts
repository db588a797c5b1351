// Loaded before every test file (vitest setupFiles): ralph keeps its ledger under
// $XDG_STATE_HOME, so each test file gets its own, removed afterwards. Nothing a test runs
// writes into the real home, and the ledgers of two test files never meet (within a file each
// project is its own mkdtemp folder, and the ledger is keyed by the project's real path). When
// the file ends, the temp projects no test removed (one that failed early) go too, and so do the
// snapshots of git's user configuration the file's in-process git calls took (lib/platform/git-user-config.ts).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { forgetUserConfigSnapshots } from '../../lib/platform/git-user-config.js';
import { removeLeftoverProjects } from './tmp-project.js';

const stateHome = mkdtempSync(join(tmpdir(), 'ralph-state-'));
process.env.XDG_STATE_HOME = stateHome;

afterAll(() => {
  rmSync(stateHome, { recursive: true, force: true });
  removeLeftoverProjects();
  forgetUserConfigSnapshots();
});
