// What a sandbox mounts read-only: the guarded files that are regular files, the hooks folder
// whole, never a link (a bind would follow it) and nothing absent.

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { guardedPaths, readOnlyGuardedPaths } from '../../../lib/containment/guarded-paths.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('readOnlyGuardedPaths', () => {
  it('lists existing regular guarded files and the hooks folder; skips links and absent files', () => {
    dir = mkdtempSync(join(tmpdir(), 'ralph-guarded-'));
    mkdirSync(join(dir, '.git/hooks'), { recursive: true });
    mkdirSync(join(dir, '.claude'));
    writeFileSync(join(dir, '.ralphrc'), 'MAX_LOOPS=3\n');
    writeFileSync(join(dir, '.git/config'), '[core]\n');
    writeFileSync(join(dir, '.git/hooks/pre-commit'), '#!/bin/sh\n');
    symlinkSync(join(dir, '.ralphrc'), join(dir, '.claude/settings.json'));
    expect(readOnlyGuardedPaths(dir)).toEqual([join(dir, '.ralphrc'), join(dir, '.git/config'), join(dir, '.git/hooks')]);
    expect(guardedPaths(dir)).toContain('.git/hooks/pre-commit');
  });
});
