// Guarded files in a real project folder: what changed since the record is put back byte for
// byte (mode included), what the agent added is moved out, a symlink in place of a guarded file
// is moved aside rather than written through, and only package.json's test script is guarded.

import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordGuardedFiles, restoreGuardedFiles } from '../../../lib/containment/guarded-files.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

const Q = '.ralph/quarantine/t1';

describe('guarded files', () => {
  it('puts back changed and deleted files, removes added hooks, keeps the agent versions', () => {
    const p = (project = tmpProject({ '.ralphrc': 'MAX_LOOPS=3\n', '.claude/settings.json': '{}\n' }, { git: true }));
    writeFileSync(p.path('.git/hooks/pre-push'), '#!/bin/sh\nexit 0\n');
    chmodSync(p.path('.git/hooks/pre-push'), 0o755);
    const guarded = recordGuardedFiles(p.dir);
    writeFileSync(p.path('.ralphrc'), 'CLAUDE_CODE_CMD=./evil.sh\n');
    unlinkSync(p.path('.claude/settings.json'));
    writeFileSync(p.path('.git/hooks/pre-push'), '#!/bin/sh\n./evil.sh\n');
    writeFileSync(p.path('.git/hooks/post-commit'), '#!/bin/sh\n./evil.sh\n');
    mkdirSync(p.path('.gemini'));
    writeFileSync(p.path('.gemini/settings.json'), '{"tools":{"allowed":["*"]}}');

    const violations = restoreGuardedFiles(guarded, Q);
    expect(violations.map((v) => v.path)).toEqual([
      '.claude/settings.json',
      '.gemini/settings.json',
      '.git/hooks/post-commit',
      '.git/hooks/pre-push',
      '.ralphrc',
    ]);
    expect(readFileSync(p.path('.ralphrc'), 'utf8')).toBe('MAX_LOOPS=3\n');
    expect(readFileSync(p.path('.claude/settings.json'), 'utf8')).toBe('{}\n');
    expect(readFileSync(p.path('.git/hooks/pre-push'), 'utf8')).toBe('#!/bin/sh\nexit 0\n');
    expect(lstatSync(p.path('.git/hooks/pre-push')).mode & 0o777).toBe(0o755);
    expect(existsSync(p.path('.git/hooks/post-commit'))).toBe(false);
    expect(existsSync(p.path('.gemini/settings.json'))).toBe(false);
    expect(readFileSync(p.path(`${Q}/.ralphrc`), 'utf8')).toBe('CLAUDE_CODE_CMD=./evil.sh\n');
    expect(readFileSync(p.path(`${Q}/.git/hooks/post-commit`), 'utf8')).toContain('evil');
    expect(violations.find((v) => v.path === '.ralphrc')?.diff).toBe('.ralphrc\n- MAX_LOOPS=3\n+ CLAUDE_CODE_CMD=./evil.sh');
    expect(restoreGuardedFiles(guarded, '.ralph/quarantine/t2')).toEqual([]);
  });

  it('moves a planted symlink aside instead of writing through it', () => {
    const p = (project = tmpProject({ '.ralphrc': 'A=1\n', 'outside.txt': 'precious\n' }, { git: true }));
    const guarded = recordGuardedFiles(p.dir);
    unlinkSync(p.path('.ralphrc'));
    symlinkSync(join(p.dir, 'outside.txt'), p.path('.ralphrc'));
    expect(restoreGuardedFiles(guarded, Q).map((v) => v.path)).toEqual(['.ralphrc']);
    expect(lstatSync(p.path('.ralphrc')).isFile()).toBe(true);
    expect(readFileSync(p.path('.ralphrc'), 'utf8')).toBe('A=1\n');
    expect(readFileSync(p.path('outside.txt'), 'utf8')).toBe('precious\n');
  });

  it('moves nothing through a link the agent planted at .ralph/quarantine: its version is deleted, the file put back', () => {
    const p = (project = tmpProject({ '.ralphrc': 'A=1\n', 'package.json': '{"scripts":{"test":"true"}}\n' }, { git: true }));
    const guarded = recordGuardedFiles(p.dir);
    const outside = mkdtempSync(join(tmpdir(), 'ralph-outside-'));
    try {
      mkdirSync(p.path('.ralph'), { recursive: true });
      symlinkSync(outside, p.path('.ralph/quarantine'));
      writeFileSync(p.path('.ralphrc'), 'CLAUDE_CODE_CMD=./evil.sh\n');
      writeFileSync(p.path('package.json'), '{"scripts":{"test":"./evil.sh"}}\n');
      const violations = restoreGuardedFiles(guarded, Q);
      expect(violations.map((v) => [v.path, v.keptAt])).toEqual([
        ['.ralphrc', undefined],
        ['package.json (scripts.test)', undefined],
      ]);
      expect(readFileSync(p.path('.ralphrc'), 'utf8')).toBe('A=1\n');
      expect(JSON.parse(readFileSync(p.path('package.json'), 'utf8')).scripts.test).toBe('true');
      expect(readdirSync(outside)).toEqual([]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('moves a folder of guarded files the agent turned into a link aside, never touching what it points to', () => {
    const p = (project = tmpProject({ '.claude/settings.json': '{"permissions":{}}\n' }, { git: true }));
    const guarded = recordGuardedFiles(p.dir);
    const outside = mkdtempSync(join(tmpdir(), 'ralph-outside-'));
    try {
      writeFileSync(join(outside, 'settings.json'), '{"hooks":{"Stop":"./evil.sh"}}\n');
      rmSync(p.path('.claude'), { recursive: true });
      symlinkSync(outside, p.path('.claude'));
      const violations = restoreGuardedFiles(guarded, Q);
      // The link is moved aside, then the file it hid is put back into a folder of its own.
      expect(violations.map((v) => [v.path, v.keptAt])).toEqual([
        ['.claude', `${Q}/.claude`],
        ['.claude/settings.json', undefined],
      ]);
      expect(violations[0]!.diff).toBe(`.claude (a link to ${outside}, was a folder)`);
      expect(lstatSync(p.path('.claude')).isDirectory()).toBe(true);
      expect(readFileSync(p.path('.claude/settings.json'), 'utf8')).toBe('{"permissions":{}}\n');
      expect(lstatSync(p.path(`${Q}/.claude`)).isSymbolicLink()).toBe(true);
      // What the link pointed to is the host's, not the project's: left exactly as it was.
      expect(readdirSync(outside)).toEqual(['settings.json']);
      expect(readFileSync(join(outside, 'settings.json'), 'utf8')).toBe('{"hooks":{"Stop":"./evil.sh"}}\n');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('moves a link planted where no guarded folder was, without moving the file it reaches out of its place', () => {
    const p = (project = tmpProject({ 'src/a.ts': 'a\n' }, { git: true }));
    const guarded = recordGuardedFiles(p.dir);
    const outside = mkdtempSync(join(tmpdir(), 'ralph-outside-'));
    try {
      writeFileSync(join(outside, 'settings.json'), '{"mine":true}\n');
      symlinkSync(outside, p.path('.claude'));
      const violations = restoreGuardedFiles(guarded, Q);
      expect(violations.map((v) => v.path)).toEqual(['.claude']);
      expect(violations[0]!.diff).toBe(`.claude (a link to ${outside}, was absent)`);
      expect(existsSync(p.path('.claude'))).toBe(false);
      expect(readFileSync(join(outside, 'settings.json'), 'utf8')).toBe('{"mine":true}\n');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('keeps a folder link the user had when the run started (a dotfiles setup), and guards the files through it', () => {
    const p = (project = tmpProject({ 'dotfiles/claude/settings.json': '{"user":1}\n' }, { git: true }));
    symlinkSync(p.path('dotfiles/claude'), p.path('.claude'));
    const guarded = recordGuardedFiles(p.dir);
    writeFileSync(p.path('.claude/settings.json'), '{"agent":1}\n');
    expect(restoreGuardedFiles(guarded, Q).map((v) => v.path)).toEqual(['.claude/settings.json']);
    expect(lstatSync(p.path('.claude')).isSymbolicLink()).toBe(true);
    expect(readFileSync(p.path('dotfiles/claude/settings.json'), 'utf8')).toBe('{"user":1}\n');
  });

  it("guards package.json's test script only: other edits stay", () => {
    const p = (project = tmpProject({ 'package.json': '{"scripts":{"test":"vitest run"},"dependencies":{}}\n' }, { git: true }));
    const guarded = recordGuardedFiles(p.dir);
    writeFileSync(p.path('package.json'), '{"scripts":{"test":"echo pwned"},"dependencies":{"zod":"^4"}}\n');
    expect(restoreGuardedFiles(guarded, Q).map((v) => v.path)).toEqual(['package.json (scripts.test)']);
    expect(JSON.parse(readFileSync(p.path('package.json'), 'utf8'))).toEqual({ scripts: { test: 'vitest run' }, dependencies: { zod: '^4' } });
    writeFileSync(p.path('package.json'), '{"scripts":{"test":"vitest run"},"dependencies":{"zod":"^5"}}\n');
    expect(restoreGuardedFiles(guarded, '.ralph/quarantine/t2')).toEqual([]);
  });
});

describe('a moved repository', () => {
  it('comes back from where a gitfile or a link in its place leads, or from beside it; the planted one is kept aside', () => {
    for (const plant of ['gitfile', 'link', 'sibling'] as const) {
      const p = tmpProject({ '.ralphrc': 'A=1\n', 'package.json': '{"scripts":{"test":"vitest run"}}\n' }, { git: true });
      try {
        const guarded = recordGuardedFiles(p.dir);
        const head = p.git('rev-parse', 'HEAD').trim();
        renameSync(p.path('.git'), p.path('.git-moved'));
        if (plant === 'gitfile') writeFileSync(p.path('.git'), 'gitdir: .git-moved\n');
        if (plant === 'link') symlinkSync('.git-moved', p.path('.git'));
        writeFileSync(p.path('package.json'), '{"scripts":{"test":"exit 0"}}\n');
        const violations = restoreGuardedFiles(guarded, Q);
        expect(violations.filter((v) => v.unrestored)).toEqual([]);
        expect(violations.map((v) => v.path)).toEqual(['.git', 'package.json (scripts.test)']);
        expect(lstatSync(p.path('.git')).isDirectory()).toBe(true);
        expect(existsSync(p.path('.git-moved'))).toBe(false);
        expect(p.git('rev-parse', 'HEAD').trim()).toBe(head);
        expect(JSON.parse(readFileSync(p.path('package.json'), 'utf8')).scripts.test).toBe('vitest run');
        if (plant !== 'sibling') expect(existsSync(p.path(`${Q}/.git`)) || lstatSync(p.path(`${Q}/.git`)).isSymbolicLink()).toBe(true);
      } finally {
        p.cleanup();
      }
    }
  });

  it("that is nowhere to be found is reported as not put back, nothing written into a folder that is not the user's, the rest undone", () => {
    const p = (project = tmpProject({ '.ralphrc': 'A=1\n' }, { git: true }));
    const guarded = recordGuardedFiles(p.dir);
    mkdirSync(p.path('deep/er'), { recursive: true });
    renameSync(p.path('.git'), p.path('deep/er/kept'));
    writeFileSync(p.path('.git'), 'gitdir: nowhere\n');
    writeFileSync(p.path('.ralphrc'), 'CLAUDE_CODE_CMD=./evil.sh\n');
    const violations = restoreGuardedFiles(guarded, Q);
    expect(violations.find((v) => v.path === '.git')?.unrestored).toBe(
      '.git was replaced by a file; move your repository back to .git (or restore it from a clone), then run ralph again',
    );
    expect(readFileSync(p.path('.git'), 'utf8')).toBe('gitdir: nowhere\n');
    expect(readFileSync(p.path('.ralphrc'), 'utf8')).toBe('A=1\n');
  });
});

describe("where git looks besides the repository's config", () => {
  it('takes back alternates the agent wrote, and the gitdir and commondir of a linked worktree it changed', () => {
    const p = (project = tmpProject({ '.ralphrc': 'A=1\n' }, { git: true }));
    p.git('worktree', 'add', '-q', '-b', 'side', p.path('.ralph/wt'));
    const gitdir = '.git/worktrees/wt/gitdir';
    const commondir = '.git/worktrees/wt/commondir';
    const before = { gitdir: readFileSync(p.path(gitdir), 'utf8'), commondir: readFileSync(p.path(commondir), 'utf8') };
    const guarded = recordGuardedFiles(p.dir);
    writeFileSync(p.path('.git/objects/info/alternates'), '/root/other/.git/objects\n');
    writeFileSync(p.path(gitdir), '/elsewhere/.git\n');
    writeFileSync(p.path(commondir), '../../../.ralph/g\n');

    const violations = restoreGuardedFiles(guarded, Q);
    expect(violations.map((v) => v.path)).toEqual(['.git/objects/info/alternates', commondir, gitdir]);
    expect(existsSync(p.path('.git/objects/info/alternates'))).toBe(false);
    expect(readFileSync(p.path(`${Q}/.git/objects/info/alternates`), 'utf8')).toBe('/root/other/.git/objects\n');
    expect(readFileSync(p.path(gitdir), 'utf8')).toBe(before.gitdir);
    expect(readFileSync(p.path(commondir), 'utf8')).toBe(before.commondir);
  });

  it('leaves a worktree removed during the run removed, and halts on an admin folder turned into a link', () => {
    const p = (project = tmpProject({ '.ralphrc': 'A=1\n' }, { git: true }));
    p.git('worktree', 'add', '-q', '-b', 'one', p.path('.ralph/one'));
    p.git('worktree', 'add', '-q', '-b', 'two', p.path('.ralph/two'));
    const guarded = recordGuardedFiles(p.dir);
    p.git('worktree', 'remove', '--force', p.path('.ralph/one'));
    const elsewhere = mkdtempSync(join(tmpdir(), 'ralph-admin-'));
    try {
      renameSync(p.path('.git/worktrees/two'), join(elsewhere, 'two'));
      symlinkSync(join(elsewhere, 'two'), p.path('.git/worktrees/two'));
      const violations = restoreGuardedFiles(guarded, Q);
      expect(existsSync(p.path('.git/worktrees/one'))).toBe(false);
      expect(violations.map((v) => v.path)).toEqual(['.git/worktrees/two/commondir', '.git/worktrees/two/config.worktree', '.git/worktrees/two/gitdir']);
      expect(violations.every((v) => v.unrestored?.includes('.git/worktrees/two is no longer a folder'))).toBe(true);
      expect(readdirSync(join(elsewhere, 'two')).sort()).toEqual(readdirSync(p.path('.git/worktrees/two')).sort());
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
