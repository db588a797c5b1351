// The queue item's workspace on real files, against an agent that planted symlinks in
// .ralph/specs/ during an earlier item: the spec, the PRD copy and the kept plan are written as
// files of the project, never through a link to a file outside it; and a PRD path in queue.json
// that leads out of the project is read only when the user queued that file.

import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyPrdSpec, keepPreviousPlan, writeIssueSpec } from '../../../lib/queue/item-workspace.js';
import { ralphPaths, type RalphPaths } from '../../../lib/state/paths.js';
import type { QueueItem } from '../../../lib/queue/queue-file.js';
import { formatFileStamp } from '../../../lib/state/timestamps.js';

let root: string;
let paths: RalphPaths;
let outside: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'queue-workspace-'));
  mkdirSync(join(root, 'project', '.ralph', 'specs'), { recursive: true });
  mkdirSync(join(root, 'outside'));
  paths = ralphPaths(join(root, 'project'));
  outside = join(root, 'outside');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const prdItem = (path: string, id = 'prd-spec-md'): QueueItem => ({
  source: 'prd',
  id,
  issue_number: null,
  title: 'spec.md',
  priority: '',
  labels: [],
  dependencies: [],
  milestone: null,
  status: 'pending',
  added_at: '',
  started_at: null,
  completed_at: null,
  error_message: '',
  path,
});

function plant(name: string, target: string): string {
  const link = join(paths.specsDir, name);
  symlinkSync(target, link);
  return link;
}

describe('queue item workspace and symlinks', () => {
  it('copies a PRD over a planted symlink as a file of its own', () => {
    const prd = join(paths.projectDir, 'spec.md');
    writeFileSync(prd, '# Spec\n');
    const link = plant('prd-spec-md-spec.md', join(outside, 'victim'));
    expect(copyPrdSpec(paths, prdItem(prd), [])).toBe(join('.ralph', 'specs', 'prd-spec-md-spec.md'));
    expect(existsSync(join(outside, 'victim'))).toBe(false);
    expect(lstatSync(link).isSymbolicLink()).toBe(false);
    expect(readFileSync(link, 'utf8')).toBe('# Spec\n');
  });

  it('keeps the previous plan over a planted dangling symlink, never through it', () => {
    const now = Date.UTC(2026, 0, 2, 3, 4, 5);
    writeFileSync(paths.fixPlan, '# My plan\n- [ ] mine\n');
    // A dangling link: existsSync says "no file there", the name looks free.
    plant(`fix_plan-${formatFileStamp(now)}.md`, join(outside, 'planted'));
    const kept = keepPreviousPlan(paths, now);
    expect(kept).toBeDefined();
    expect(existsSync(join(outside, 'planted'))).toBe(false);
    const target = join(paths.projectDir, kept!);
    expect(lstatSync(target).isSymbolicLink()).toBe(false);
    expect(readFileSync(target, 'utf8')).toBe('# My plan\n- [ ] mine\n');
  });

  it('refuses a .ralph/specs that is a symlink to a folder outside the project', () => {
    rmSync(paths.specsDir, { recursive: true });
    symlinkSync(outside, paths.specsDir);
    expect(() => writeIssueSpec(paths, { number: 7, title: 'Seven', body: 'b', labels: [] })).toThrow(/\.ralph\/specs .*outside/);
    const prd = join(paths.projectDir, 'spec.md');
    writeFileSync(prd, '# Spec\n');
    expect(() => copyPrdSpec(paths, prdItem(prd), [])).toThrow(/\.ralph\/specs .*outside/);
    writeFileSync(paths.fixPlan, '# My plan\n');
    expect(() => keepPreviousPlan(paths, 0)).toThrow(/\.ralph\/specs .*outside/);
    expect(readFileSync(join(root, 'project', '.ralph', 'fix_plan.md'), 'utf8')).toBe('# My plan\n');
    expect(existsSync(join(outside, 'issue-7.md'))).toBe(false);
  });

  it('names the PRD copy from a forged id with no way out of .ralph/specs', () => {
    const prd = join(paths.projectDir, 'spec.md');
    writeFileSync(prd, '# Spec\n');
    const copied = copyPrdSpec(paths, prdItem(prd, '../../../outside/evil'), []);
    expect(copied).toMatch(/^\.ralph\/specs\/[^/]+$/);
    expect(readFileSync(join(paths.projectDir, copied), 'utf8')).toBe('# Spec\n');
    expect(existsSync(join(outside, 'evil-spec.md'))).toBe(false);
  });

  it('refuses a PRD path that leads outside the project to a file the user did not queue', () => {
    // A file of the user's home, hidden from the sandbox: the agent rewrote the item's path.
    writeFileSync(join(outside, 'id_rsa'), 'PRIVATE KEY\n');
    for (const path of [join(outside, 'id_rsa'), '../outside/id_rsa']) {
      expect(() => copyPrdSpec(paths, prdItem(path), [])).toThrow(
        `the PRD path '${path}' in queue.json leads outside the project, to a file that was not queued with ralph-queue add --prd`,
      );
    }
    // Through a link the agent planted in the project: the same.
    symlinkSync(join(outside, 'id_rsa'), join(paths.projectDir, 'spec.md'));
    expect(() => copyPrdSpec(paths, prdItem('spec.md'), [])).toThrow(/leads outside the project/);
    expect(readdirSync(paths.specsDir)).toEqual([]);
  });

  it('copies a PRD outside the project that the user queued, and a file in the project', () => {
    writeFileSync(join(outside, 'feature.md'), '# Feature\n');
    expect(copyPrdSpec(paths, prdItem('../outside/feature.md'), [join(outside, 'feature.md')])).toBe(join('.ralph', 'specs', 'prd-spec-md-feature.md'));
    expect(readFileSync(join(paths.specsDir, 'prd-spec-md-feature.md'), 'utf8')).toBe('# Feature\n');
    mkdirSync(join(paths.projectDir, 'docs'));
    writeFileSync(join(paths.projectDir, 'docs', 'b.md'), '# B\n');
    expect(copyPrdSpec(paths, prdItem('docs/b.md', 'prd-docs-b-md'), [])).toBe(join('.ralph', 'specs', 'prd-docs-b-md-b.md'));
  });

  it('refuses a PRD path that is a named pipe (reading it would block the queue)', () => {
    execFileSync('mkfifo', [join(paths.projectDir, 'pipe.md')]);
    expect(() => copyPrdSpec(paths, prdItem('pipe.md'), [])).toThrow("the PRD path 'pipe.md' in queue.json is not a regular file");
  });
});
