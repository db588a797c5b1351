// `npm test`'s stages: runs the named npm scripts at once, each one's output held and printed
// whole when it ends, so the blocks never interleave. A script named after `--live` shows its
// output as it comes (the tests' progress), and the held blocks of the others wait until it has
// ended. Exits with the first failure's code once all have ended.
// Usage: node scripts/run-together.mjs [--live <npm script>] <npm script> [<npm script> …]
//
// Why at once: on two cores, tsc and ESLint each keep one core busy, and the tests leave some of
// both idle while they wait on the processes they start (ralph, git, tmux, the fake agents), so
// the checks that need no build run beside them.

import { spawn } from 'node:child_process';

const USAGE = 'usage: node scripts/run-together.mjs [--live <npm script>] <npm script> [<npm script> …]\n';

const { live, names } = parseArgs(process.argv.slice(2));
if (names.length === 0) {
  process.stderr.write(USAGE);
  process.exit(2);
}

const npm = process.env.npm_execpath;
const started = performance.now();
const heldUntilLiveEnds = [];
let liveRunning = live.length;
process.stderr.write(`running together: ${names.join(', ')}\n`);

const results = await Promise.all(names.map((name) => runScript(name, live.includes(name))));
const failed = results.find((result) => result.code !== 0);
process.exit(failed ? failed.code : 0);

/** `--live <name>` (any number of times) and the names of the scripts to run, live ones included. */
function parseArgs(args) {
  const liveNames = [];
  const all = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--live') {
      const name = args[++i];
      if (name === undefined) return { live: [], names: [] };
      liveNames.push(name);
      all.push(name);
    } else all.push(args[i]);
  }
  return { live: liveNames, names: all };
}

/** One npm script: its stdout and stderr held together in order, or passed through when live. */
function runScript(name, isLive) {
  // Under `npm test`, npm_execpath is npm's own CLI script: run it with this Node, no shell.
  const [cmd, args] = npm ? [process.execPath, [npm, 'run', name]] : ['npm', ['run', name]];
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', isLive ? 'inherit' : 'pipe', isLive ? 'inherit' : 'pipe'] });
    const chunks = [];
    child.stdout?.on('data', (chunk) => chunks.push(chunk));
    child.stderr?.on('data', (chunk) => chunks.push(chunk));
    let finished = false;
    const finish = (code) => {
      if (finished) return;
      finished = true;
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const output = Buffer.concat(chunks).toString();
      let block = `${code === 0 ? '✓' : '✗'} ${name} (${seconds} s${code === 0 ? '' : `, exit ${code}`})\n`;
      if (output.trim() !== '') block += output.replace(/\n?$/, '\n');
      if (isLive) {
        process.stderr.write(block);
        if (--liveRunning === 0) for (const held of heldUntilLiveEnds.splice(0)) process.stderr.write(held);
      } else if (liveRunning > 0) heldUntilLiveEnds.push(block);
      else process.stderr.write(block);
      resolve({ name, code });
    };
    child.on('error', (error) => {
      chunks.push(Buffer.from(`${error.message}\n`));
      finish(1);
    });
    child.on('close', (code, signal) => finish(code ?? (signal ? 1 : 0)));
  });
}
