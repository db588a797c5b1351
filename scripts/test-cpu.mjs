// Where the suite's CPU goes, per test file: reads the lines a run wrote with
// RALPH_TEST_CPU_LOG=<file> (tests/helpers/cpu-per-file.ts) and prints the total, the total per
// folder and the costliest files. Usage: node scripts/test-cpu.mjs <file> [<how many files>]

import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const [file, top = '15'] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node scripts/test-cpu.mjs <RALPH_TEST_CPU_LOG file> [<how many files>]\n');
  process.exit(2);
}

const rows = readFileSync(file, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line))
  .map((row) => ({ file: testPath(row.file), user: row.user, system: row.system, cpu: row.user + row.system }))
  .sort((a, b) => b.cpu - a.cpu);

const seconds = (value) => value.toFixed(1).padStart(7);
const total = rows.reduce((sum, row) => sum + row.cpu, 0);
const folders = new Map();
for (const row of rows) {
  const folder = row.file.split('/').slice(0, 2).join('/');
  folders.set(folder, (folders.get(folder) ?? 0) + row.cpu);
}

const lines = [`${rows.length} files, ${total.toFixed(1)} s of CPU (user + system)`, '', '  CPU s  folder'];
for (const [folder, cpu] of [...folders].sort((a, b) => b[1] - a[1])) lines.push(`${seconds(cpu)}  ${folder}`);
lines.push('', '  CPU s   user s    sys s  file');
for (const row of rows.slice(0, Number(top))) lines.push(`${seconds(row.cpu)}  ${seconds(row.user)}  ${seconds(row.system)}  ${row.file}`);
process.stdout.write(`${lines.join('\n')}\n`);

/** A test file's path from its checkout's root (tests/…), wherever the run was. */
function testPath(file) {
  const inThisCheckout = relative(ROOT, file);
  if (!inThisCheckout.startsWith('..')) return inThisCheckout;
  const at = file.lastIndexOf('/tests/');
  return at === -1 ? file : file.slice(at + 1);
}
