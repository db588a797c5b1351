// The unit's place to work: a git worktree under .ralph/worktrees/<unit> on its own branch
// `ralph/<run>/<unit>`, made from the run's base commit (or taken up again on a resume), with
// its own .ralph/: PROMPT.md, AGENT.md and specs/ copied from the project, and a plan whose one
// task is the unit's item, the rest of the plan given as context. Also the start-up checks of
// the main worktree: on a branch, no tracked file changed outside .ralph/.

import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { RalphError } from '../errors.js';
import { writeFileAtomic } from '../state/atomic-write.js';
import type { RalphPaths } from '../state/paths.js';
import { gitAnchorOf } from '../platform/git-gateway.js';
import { gitMessageLine, readGit, runGit, type GitContext } from './git.js';
import { stripItemMark } from './plan-units.js';
import type { UnitRecord } from './run-state.js';

/**
 * What the git gateway's first look at the project found as the run started (recordGitBaseline):
 * the answers git need not be asked again.
 */
export interface RunStartLook {
  /** The project is inside a work tree. */
  inWorkTree: boolean;
  /** The commit HEAD names, null when there is none yet; undefined when the look did not say. */
  head: string | null | undefined;
}

/** The branch checked out in the main worktree; an error when HEAD is detached. */
export async function readRunBranch(git: GitContext, projectDir: string, look?: RunStartLook): Promise<string> {
  if (!look?.inWorkTree) {
    const inside = await runGit(git, projectDir, ['rev-parse', '--is-inside-work-tree']);
    if (!inside.ok)
      throw new RalphError('parallel_not_git', '--parallel needs a git repository: each unit works in a git worktree', {
        hint: 'run git init and commit your project, then run ralph --parallel again',
      });
  }
  const branch = await runGit(git, projectDir, ['symbolic-ref', '--short', '-q', 'HEAD']);
  if (!branch.ok)
    throw new RalphError('parallel_detached', '--parallel merges the units into the branch checked out, and HEAD is detached', {
      hint: 'check out a branch (git switch -c <name>), then run ralph --parallel again',
    });
  const hasCommit = look?.head !== undefined ? look.head !== null : (await runGit(git, projectDir, ['rev-parse', '--verify', '-q', 'HEAD'])).ok;
  if (!hasCommit)
    throw new RalphError('parallel_no_commit', '--parallel needs a first commit to branch the units from', {
      hint: 'commit your project (git add -A && git commit), then run ralph --parallel again',
    });
  return branch.stdout.trim();
}

/** Refuses when tracked files outside .ralph/ have uncommitted changes (untracked files are fine). */
export async function assertNoTrackedChanges(git: GitContext, projectDir: string): Promise<void> {
  const status = await runGit(git, projectDir, ['status', '--porcelain=v1', '-z', '--untracked-files=no', '--ignore-submodules=all']);
  if (!status.ok) throw new Error(`git status failed: ${gitMessageLine(status)}`);
  const changed = parsePorcelainPaths(status.stdout).filter((path) => !isRalphOwnPath(path));
  if (changed.length === 0) return;
  const shown = changed.slice(0, 5).join(', ') + (changed.length > 5 ? `, and ${changed.length - 5} more` : '');
  throw new RalphError('parallel_dirty', `--parallel merges into the checked-out branch, and tracked files have uncommitted changes: ${shown}`, {
    hint: 'commit or stash them (git stash), then run ralph --parallel again; untracked files may stay',
  });
}

export function parsePorcelainPaths(output: string): string[] {
  const paths: string[] = [];
  const fields = output.split('\0');
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i]!;
    if (entry.length < 4) continue;
    paths.push(entry.slice(3));
    // A rename or copy is followed by its source path.
    if (entry[0] === 'R' || entry[0] === 'C') i++;
  }
  return paths;
}

/** ralph's own files, never merged from a unit: .ralph/ and .ralphrc. */
export function isRalphOwnPath(path: string): boolean {
  return path === '.ralph' || path.startsWith('.ralph/') || path === '.ralphrc';
}

/**
 * The unit's worktree on its branch: made from `base`, or the one a stopped run left. The
 * caller has excluded the worktrees from git (excludeWorktrees) once for the run.
 */
export async function openUnitWorktree(git: GitContext, projectDir: string, unit: UnitRecord, base: string): Promise<void> {
  const dir = join(projectDir, unit.worktree);
  // A new unit's folder does not exist yet: nothing of git's to ask about it.
  if (existsSync(dir)) {
    const listed = await readGit(git, projectDir, ['worktree', 'list', '--porcelain']);
    if (listed.split('\n').some((line) => line === `worktree ${dir}`) && existsSync(join(dir, '.git'))) return;
  }
  mkdirSync(join(projectDir, '.ralph', 'worktrees'), { recursive: true });
  // A new unit's branch is made with its worktree (git refuses `-b` for a branch that exists,
  // before it makes anything); the branch a stopped run left is checked out as it is.
  const withNewBranch = ['worktree', 'add', '-q', '-b', unit.branch, dir, base];
  let added = await runGit(git, projectDir, withNewBranch);
  if (added.ok) return;
  const hasBranch = (await runGit(git, projectDir, ['rev-parse', '--verify', '-q', `refs/heads/${unit.branch}`])).ok;
  const args = hasBranch ? ['worktree', 'add', '-q', dir, unit.branch] : withNewBranch;
  if (hasBranch) added = await runGit(git, projectDir, args);
  if (!added.ok) {
    // A record git keeps of a worktree whose folder is gone, or a folder it no longer knows:
    // prune the records, then try once more.
    await runGit(git, projectDir, ['worktree', 'prune']);
    added = await runGit(git, projectDir, args);
  }
  if (!added.ok)
    throw new RalphError('parallel_worktree', `Could not make the worktree of unit ${unit.slug} (${unit.worktree}): ${gitMessageLine(added)}`, {
      hint: 'see git worktree list; remove what is in the way, then run ralph --parallel again',
    });
}

const WORKTREES_PATTERN = '/.ralph/worktrees/';

/**
 * Adds `/.ralph/worktrees/` to the repository's info/exclude, so the units' worktrees never
 * show in `git status` nor get embedded as repositories by `git add -A` in the main worktree,
 * whatever the project's .gitignore says.
 */
export async function excludeWorktrees(git: GitContext, projectDir: string): Promise<void> {
  // The repository's folders as the gateway fixed them when the run started.
  const commonDir = gitAnchorOf(projectDir, git.env)?.commonDir;
  if (commonDir === undefined) return;
  const file = join(commonDir, 'info', 'exclude');
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  if (text.split(/\r?\n/).includes(WORKTREES_PATTERN)) return;
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}# ralph --parallel: the units' worktrees\n${WORKTREES_PATTERN}\n`);
}

export interface UnitTask {
  /** The plan lines of the unit's task (checkbox items), as the agent sees them. */
  lines: string[];
  /** What the agent is told about its place, appended to PROMPT.md. */
  note: string;
}

/** The unit's .ralph/: the project's prompt, agent notes and specs, and the unit's own plan. */
export function seedUnitRalph(paths: RalphPaths, worktreeDir: string, unit: UnitRecord, others: UnitRecord[], task: UnitTask): void {
  const inUnit = (file: string) => {
    const rel = relative(paths.projectDir, file);
    return isAbsolute(rel) || rel.startsWith('..') ? undefined : join(worktreeDir, rel);
  };
  const ralphDir = join(worktreeDir, '.ralph');
  mkdirSync(ralphDir, { recursive: true });
  const prompt = inUnit(paths.prompt);
  if (prompt) writeFileAtomic(prompt, `${readFileSync(paths.prompt, 'utf8').trimEnd()}\n\n${task.note}\n`);
  const agent = inUnit(paths.agent);
  if (agent && existsSync(paths.agent)) writeFileAtomic(agent, readFileSync(paths.agent));
  const specs = inUnit(paths.specsDir);
  if (specs && existsSync(paths.specsDir)) cpSync(paths.specsDir, specs, { recursive: true, force: true, dereference: false, verbatimSymlinks: true });
  const plan = inUnit(paths.fixPlan);
  if (plan) writeFileAtomic(plan, renderUnitPlan(unit, others, task.lines));
}

export function renderUnitPlan(unit: UnitRecord, others: UnitRecord[], taskLines: string[]): string {
  const lines = [`# Fix Plan (parallel unit ${unit.slug})`, '', '## Task', ...taskLines, ''];
  if (others.length > 0) {
    lines.push('## Context: the other items of the plan', '', 'Other units do these in their own worktrees; do not do them here.', '');
    for (const other of others) lines.push(`- ${stripItemMark(other.lines[0] ?? other.item).trim()}`);
    lines.push('');
  }
  return lines.join('\n');
}

export function unitNote(unit: UnitRecord, runBranch: string): string {
  return [
    '## Parallel unit',
    '',
    `You work in a git worktree of your own, on branch ${unit.branch}, on one item of the plan: ${stripItemMark(unit.lines[0] ?? unit.item).trim()}`,
    `Do only that item (the Task of fix_plan.md). ralph merges your branch into ${runBranch} and ticks the item there.`,
  ].join('\n');
}
