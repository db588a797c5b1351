// The Docker sandbox's watchdog: a small process of ralph's own, in a session of its own, whose
// stdin is a pipe from the ralph that started it. ralph tells it, a line each, the containers it
// made (`container <id>`) and its private folders (`folder <path>`); when the pipe closes —
// ralph exited, however it ended, kill -9 included — it removes every container named (which
// ends the agent in it) and every folder (the private home, the copied credentials). After a
// clean exit they are gone already, and the removals find nothing. Started by
// lib/sandbox/sandbox-watchdog.ts, with the docker CLI's path as its one argument.

import { rmSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { nodeProcessRunner } from '../../platform/process.js';

const docker = process.argv[2] ?? '';
const containers = new Set<string>();
const folders = new Set<string>();
let pending = '';

function note(line: string): void {
  const [kind, value = ''] = [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)];
  if (kind === 'container' && /^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(value)) containers.add(value);
  if (kind === 'folder' && isAbsolute(value)) folders.add(value);
}

let cleaning = false;
async function cleanUp(): Promise<void> {
  if (cleaning) return;
  cleaning = true;
  for (const id of containers) {
    if (isAbsolute(docker)) await nodeProcessRunner.run(docker, ['rm', '-f', id], { timeoutMs: 60_000 });
  }
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
}

// A terminal's signals never reach it (its own session); a stop of its own still cleans up.
for (const signal of ['SIGINT', 'SIGHUP', 'SIGTERM'] as const) process.on(signal, () => undefined);
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  pending += chunk;
  const lines = pending.split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) note(line);
});
process.stdin.on('end', () => void cleanUp());
process.stdin.on('error', () => void cleanUp());
