// `npm test`'s first stage: runs the named npm scripts at once (build, typecheck and lint are
// independent, and tsc and ESLint each keep about one core busy), each one's output held and
// printed whole when it ends, so the blocks never interleave. Exits with the first failure's
// code once all have ended. Usage: node scripts/run-together.mjs build typecheck lint

import { spawn } from 'node:child_process';

const names = process.argv.slice(2);
if (names.length === 0) {
  process.stderr.write('usage: node scripts/run-together.mjs <npm script> [<npm script> …]\n');
  process.exit(2);
}

const npm = process.env.npm_execpath;
const started = performance.now();
process.stderr.write(`running together: ${names.join(', ')}\n`);

const results = await Promise.all(names.map(runScript));
const failed = results.find((result) => result.code !== 0);
process.exit(failed ? failed.code : 0);

/** One npm script, its stdout and stderr held together in order. */
function runScript(name) {
  // Under `npm test`, npm_execpath is npm's own CLI script: run it with this Node, no shell.
  const [cmd, args] = npm ? [process.execPath, [npm, 'run', name]] : ['npm', ['run', name]];
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    const finish = (code) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const output = Buffer.concat(chunks).toString();
      process.stderr.write(`${code === 0 ? '✓' : '✗'} ${name} (${seconds} s${code === 0 ? '' : `, exit ${code}`})\n`);
      if (output.trim() !== '') process.stderr.write(`${output.replace(/\n?$/, '\n')}`);
      resolve({ name, code });
    };
    child.on('error', (error) => {
      chunks.push(Buffer.from(`${error.message}\n`));
      finish(1);
    });
    child.on('close', (code, signal) => finish(code ?? (signal ? 1 : 0)));
  });
}
