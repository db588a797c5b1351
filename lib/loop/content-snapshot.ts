// The project's content as one id: a git tree of the working tree as it is on disk — tracked and
// untracked non-ignored files, by content hash — without ralph's control and state files
// (`.ralph/**`, `.ralphrc`, the prompt wherever it is configured). Built in a private index
// (GIT_INDEX_FILE under .ralph/.content/), so the user's index, HEAD and branches are never
// touched; the index keeps git's stat cache, so a snapshot re-hashes only files whose stat
// changed and costs one git call when nothing changed, two when something did. A `touch` gives
// the same id; so does a commit, which changes HEAD but not the content. A folder that is no git repository gets a private bare repository
// for the objects. Progress is judged from these ids (lib/core/progress-evidence.ts).

import { copyFileSync, existsSync, rmSync, statSync, utimesSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ProcessRunner, RunResult } from '../platform/process.js';
import { ensureOwnDirectory, writeFileNoFollow } from '../state/no-follow.js';

export interface ContentSnapshot {
  /** Tree id of the content; null when it could not be measured (no git, git failed). */
  id: string | null;
  /** The previous snapshot's id and the paths changed since, as `git add --verbose` listed them. */
  since?: { id: string; changed: string[] };
}

export interface ContentSnapshotOptions {
  projectDir: string;
  /** Where the private index (and, outside a repository, the object store) lives. */
  stateDir: string;
  /** Control files to leave out (absolute or project-relative); directories leave out all below. */
  excluded: Array<{ path: string; directory: boolean }>;
  processRunner: ProcessRunner;
  env?: NodeJS.ProcessEnv;
}

export interface ContentSnapshotter {
  take(): Promise<ContentSnapshot>;
  /** Paths whose content differs between two snapshots (relative to the repository's root). */
  changedPaths(from: ContentSnapshot, to: ContentSnapshot): Promise<string[]>;
}

type Setup = { kind: 'ready'; env: NodeJS.ProcessEnv } | { kind: 'unavailable' };

export function createContentSnapshotter(options: ContentSnapshotOptions): ContentSnapshotter {
  const { projectDir, processRunner } = options;
  const specs = excludedPathspecs(projectDir, options.excluded);
  // No optional locks: nothing here may refresh the user's index as a side effect.
  const baseEnv = { ...(options.env ?? process.env), GIT_OPTIONAL_LOCKS: '0' };
  const git = (args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> => processRunner.run('git', args, { cwd: projectDir, env });
  let setup: Setup | undefined;

  async function prepare(): Promise<Setup> {
    const index = join(options.stateDir, 'index');
    ensureOwnDirectory(options.stateDir);
    // Ignores itself, so the private index never shows in `git status` or lands in a commit,
    // whatever the project's .gitignore says.
    writeFileNoFollow(join(options.stateDir, '.gitignore'), '*\n');
    rmSync(index, { force: true });
    const located = await git(['rev-parse', '--git-path', 'index'], baseEnv);
    if (located.spawnError) return { kind: 'unavailable' };
    if (located.code === 0) {
      const env = { ...baseEnv, GIT_INDEX_FILE: index };
      const realIndex = resolve(projectDir, located.stdout.trim());
      if (existsSync(realIndex)) {
        // A copy with the same mtime keeps git's stat cache valid: only changed files get hashed.
        copyFileSync(realIndex, index);
        const st = statSync(realIndex);
        utimesSync(index, st.atime, st.mtime);
        // Tracked control files leave the private index once; the exclusions keep them out.
        const removed = await git(['rm', '--cached', '-r', '-q', '-f', '--ignore-unmatch', '--', ...specs.map((s) => `:(glob)${s}`)], env);
        if (removed.code !== 0) return { kind: 'unavailable' };
      }
      return { kind: 'ready', env };
    }
    const repoDir = join(options.stateDir, 'repo');
    rmSync(repoDir, { recursive: true, force: true });
    const created = await git(['init', '-q', '--bare', repoDir], baseEnv);
    if (created.code !== 0) return { kind: 'unavailable' };
    return { kind: 'ready', env: { ...baseEnv, GIT_DIR: repoDir, GIT_WORK_TREE: projectDir, GIT_INDEX_FILE: index } };
  }

  async function ready(): Promise<Setup> {
    // .ralph/.content being unwritable (or a file) leaves progress unmeasured, not the loop broken.
    setup ??= await prepare().catch((): Setup => ({ kind: 'unavailable' }));
    return setup;
  }

  // The private index holds the last snapshot: `add --verbose` lists what changed since, and
  // when nothing did, the tree is the same and write-tree is not needed.
  let last: { id: string } | undefined;

  async function snapshotOnce(): Promise<ContentSnapshot | 'retry'> {
    const s = await ready();
    if (s.kind !== 'ready') return { id: null };
    const added = await git(['add', '-A', '--verbose', '--', '.', ...specs.map((spec) => `:(exclude,glob)${spec}`)], s.env);
    const previous = last;
    last = undefined;
    if (added.code !== 0) {
      setup = undefined;
      return 'retry';
    }
    const changed = listedPaths(added.stdout);
    let id: string | null = previous && changed?.length === 0 ? previous.id : null;
    if (id === null) {
      const tree = await git(['write-tree'], s.env);
      id = tree.code === 0 ? tree.stdout.trim() : null;
    }
    if (id === null) return { id };
    last = { id };
    return { id, ...(previous && changed ? { since: { id: previous.id, changed } } : {}) };
  }

  return {
    async take() {
      let snapshot = await snapshotOnce();
      // A damaged or deleted private index is rebuilt once, at once.
      if (snapshot === 'retry') snapshot = await snapshotOnce();
      return snapshot === 'retry' ? { id: null } : snapshot;
    },
    async changedPaths(from, to) {
      if (from.id === null || to.id === null || from.id === to.id) return [];
      if (to.since?.id === from.id) return to.since.changed;
      const s = await ready();
      if (s.kind !== 'ready') return [];
      const diff = await git(['diff-tree', '-r', '-z', '--name-only', '--no-renames', from.id, to.id], s.env);
      return diff.code === 0 ? diff.stdout.split('\0').filter(Boolean).sort() : [];
    },
  };
}

/**
 * The paths in `git add --verbose` output ("add 'path'", "remove 'path'"), or null when a line
 * does not read as one: git prints names raw, so a name with a newline needs diff-tree -z.
 */
function listedPaths(stdout: string): string[] | null {
  const paths = new Set<string>();
  for (const line of stdout.split('\n')) {
    if (line === '') continue;
    const m = /^(?:add|remove) '(.+)'$/.exec(line);
    if (!m?.[1]) return null;
    paths.add(m[1]);
  }
  return [...paths].sort();
}

/**
 * Glob pathspecs (without magic) for the excluded paths inside the project. The first character
 * is bracketed: git 2.39 refuses an exclude pathspec that names a .gitignored path literally
 * ("paths are ignored by one of your .gitignore files", exit 1) but takes the same glob.
 */
export function excludedPathspecs(projectDir: string, excluded: ContentSnapshotOptions['excluded']): string[] {
  const inside = excluded.flatMap(({ path, directory }) => {
    const rel = relative(projectDir, isAbsolute(path) ? path : join(projectDir, path));
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return [];
    return [{ rel: rel.split(sep).join('/'), directory }];
  });
  const dirs = inside.filter((e) => e.directory).map((e) => `${e.rel}/`);
  const specs = new Set<string>();
  for (const { rel, directory } of inside) {
    if (!directory && dirs.some((d) => rel.startsWith(d))) continue;
    const literal = rel.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
    const head = literal.startsWith('\\') ? literal.slice(0, 2) : `[${literal[0]}]`;
    const spec = `${head}${literal.slice(literal.startsWith('\\') ? 2 : 1)}`;
    specs.add(directory ? `${spec}/**` : spec);
  }
  return [...specs];
}
