// ralph run as an ordinary user (the Docker sandbox runs the agent as that same user) clears the
// setuid and setgid bits the agent set even where the agent left its files closed to their owner:
// a program of mode 4111 (executable by anyone, readable by no one) and one in a folder of mode
// 0311 (searchable by anyone, not readable by its owner, so `find` fails there). The clean-up
// runs in a child as that user (the built module); root is needed to be that user. Needs root.

import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { findSetpriv } from '../../lib/sandbox/agent-user.js';
import { requireRoot, SANDBOX_TEST_OWNER } from '../helpers/sandbox-tools.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
beforeAll(() => requireRoot('it runs the clean-up as an ordinary user'));

const built = (module: string) => fileURLToPath(new URL(`../../dist/${module}`, import.meta.url));

/** stripSetuidFiles(project) run by the project's owner, with the host's find or the walk in ralph; the files it says it cleared. */
function stripAsOwner(project: string, withFind: boolean): string[] {
  const script = [
    `import { stripSetuidFiles } from ${JSON.stringify(built('sandbox/strip-setuid.js'))};`,
    `import { nodeProcessRunner } from ${JSON.stringify(built('platform/process.js'))};`,
    `const options = ${withFind ? '{ processRunner: nodeProcessRunner, env: process.env }' : '{}'};`,
    'process.stdout.write(JSON.stringify(await stripSetuidFiles(process.argv[1], options)));',
  ].join('\n');
  const owner = String(SANDBOX_TEST_OWNER);
  const out = execFileSync(
    findSetpriv(),
    [`--reuid=${owner}`, `--regid=${owner}`, '--clear-groups', process.execPath, '--input-type=module', '-e', script, project],
    {
      encoding: 'utf8',
    },
  );
  return (JSON.parse(out) as string[]).sort();
}

function plantedProject(): string {
  const root = mkdtempSync(join(tmpdir(), 'ralph-strip-owner-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  chmodSync(root, 0o755);
  const project = join(root, 'project');
  mkdirSync(join(project, 'closed'), { recursive: true });
  for (const file of ['tool', 'closed/inner']) copyFileSync('/bin/true', join(project, file));
  for (const path of [project, join(project, 'closed'), join(project, 'tool'), join(project, 'closed/inner')])
    chownSync(path, SANDBOX_TEST_OWNER, SANDBOX_TEST_OWNER);
  // chown clears the bits: set after it, as the agent would.
  chmodSync(join(project, 'tool'), 0o4111);
  chmodSync(join(project, 'closed/inner'), 0o6755);
  chmodSync(join(project, 'closed'), 0o311);
  return project;
}

const mode = (path: string) => statSync(path).mode & 0o7777;

describe('the setuid clean-up run as the project owner', () => {
  it.each([
    ['with find', true],
    ['the walk in ralph', false],
  ])('clears a bit on a file its owner cannot read and in a folder its owner cannot read (%s)', (_, withFind) => {
    const project = plantedProject();
    expect(stripAsOwner(project, withFind)).toEqual([join(project, 'closed/inner'), join(project, 'tool')]);
    expect(mode(join(project, 'tool'))).toBe(0o111);
    expect(mode(join(project, 'closed/inner'))).toBe(0o755);
    // The folder is left as the agent made it.
    expect(mode(join(project, 'closed'))).toBe(0o311);
  });
});
