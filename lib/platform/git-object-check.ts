// Whether the objects a commit reaches hold what their ids say. git checks no object's hash when
// it reads one, and anything that can write `.git` (the agent) can rewrite an object file with
// other bytes, or add a pack that holds other bytes under an id: git then reads those bytes
// wherever that id is asked for. So a commit id ralph recorded where the agent cannot write (its
// ledger) names the content it recorded only once the objects are checked: each object the
// commit reaches is read (`git cat-file --batch`) and hashed here. A rewritten tree lists other
// entries, but its own bytes fail the check, so nothing it lists is trusted unchecked.

import { createHash, type Hash } from 'node:crypto';
import { runGitCommand, startGitCommand, type GitAt } from './git-operations.js';

const HASHES: Record<string, string> = { sha1: 'sha1', sha256: 'sha256' };
const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * The first object of `commit` whose bytes do not hash to its id (or that is missing): the
 * commit and every tree and file of its tree, not its history (`--no-walk`: a long history
 * would cost as much again per commit, and a restore reads none of it); undefined when every
 * one does. With `paths`, only the objects reading those paths of the commit takes: the commit,
 * its root tree, and the trees and files on the way to and under each path. Throws when git
 * cannot list or read them.
 */
export async function firstForgedObject(git: GitAt, commit: string, paths?: readonly string[]): Promise<string | undefined> {
  // An id, never an option or a name the agent could have made a ref of.
  if (!OBJECT_ID.test(commit)) throw new Error(`not an object id: ${commit}`);
  const format = (await gitOutput(git, ['rev-parse', '--show-object-format'])).trim();
  const algorithm = HASHES[format];
  if (!algorithm) throw new Error(`git names objects with ${format}, which ralph cannot check`);
  const ids = paths
    ? await objectsOnPaths(git, commit, paths)
    : (await gitOutput(git, ['rev-list', '--objects', '--no-object-names', '--no-walk', commit, '--'])).split('\n').filter(Boolean);
  const checker = objectStreamChecker(algorithm);
  const exit = await startGitCommand(git.runner, ['cat-file', '--batch'], {
    cwd: git.cwd,
    env: git.env,
    input: ids.map((id) => `${id}\n`).join(''),
    onStdout: (chunk) => checker.take(chunk),
  }).done;
  if (exit.spawnError || exit.code !== 0) throw new Error(`git cat-file failed (exit ${exit.code ?? exit.signal})`);
  return checker.firstForged() ?? ids.find((id) => !checker.seen(id));
}

/** The commit, its root tree and what `ls-tree -r -t` lists under `paths` (each tree on the way included), as ids. */
async function objectsOnPaths(git: GitAt, commit: string, paths: readonly string[]): Promise<string[]> {
  const [id = '', tree = ''] = (await gitOutput(git, ['rev-parse', `${commit}^{commit}`, `${commit}^{tree}`])).split('\n');
  const listed = await gitOutput(git, ['ls-tree', '-r', '-t', '-z', '--full-tree', id, '--', ...paths.map((path) => `:(literal)${path}`)]);
  // `<mode> <type> <id>\t<path>`: a gitlink's id names a commit of another repository, not read here.
  const entries = listed.split('\0').flatMap((entry) => {
    const [, type, oid] = /^\d+ (\w+) ([0-9a-f]+)\t/.exec(entry) ?? [];
    return type === 'blob' || type === 'tree' ? [oid!] : [];
  });
  return [id, tree, ...entries];
}

async function gitOutput(git: GitAt, args: string[]): Promise<string> {
  const result = await runGitCommand(git.runner, args, { cwd: git.cwd, env: git.env });
  if (result.spawnError || result.code !== 0) throw new Error(`git ${args[0]} failed: ${result.stderr.trim() || `exit ${result.code}`}`);
  return result.stdout;
}

/**
 * Reads `cat-file --batch` output as it comes (`<id> <type> <size>\n<bytes>\n` per object, or
 * `<id> missing\n`), hashing each object's bytes without keeping them.
 */
export function objectStreamChecker(algorithm: string) {
  let pending = Buffer.alloc(0);
  // The object being read: its bytes left to read, the newline after them counted.
  let current: { id: string; left: number; hash: Hash } | undefined;
  let forged: string | undefined;
  const checked = new Set<string>();
  return {
    take(chunk: Buffer): void {
      let data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
      pending = Buffer.alloc(0);
      while (data.length > 0) {
        if (current) {
          const part = Math.min(current.left, data.length);
          const body = Math.min(part, current.left - 1);
          if (body > 0) current.hash.update(data.subarray(0, body));
          current.left -= part;
          data = data.subarray(part);
          if (current.left > 0) return;
          checked.add(current.id);
          if (current.hash.digest('hex') !== current.id) forged ??= current.id;
          current = undefined;
          continue;
        }
        const end = data.indexOf(0x0a);
        if (end === -1) {
          pending = Buffer.from(data);
          return;
        }
        const [id = '', type = '', size = ''] = data.subarray(0, end).toString('latin1').split(' ');
        data = data.subarray(end + 1);
        if (/^\d+$/.test(size)) current = { id, left: Number(size) + 1, hash: createHash(algorithm).update(`${type} ${size}\0`) };
        else forged ??= id; // `<id> missing`
      }
    },
    firstForged: (): string | undefined => forged,
    seen: (id: string): boolean => checked.has(id) || id === forged,
  };
}
