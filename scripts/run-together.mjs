// `npm test`'s stages: runs the named npm scripts at once, each one's output held and printed
// whole when it ends, so the blocks never interleave. A script named after `--live` shows its
// output as it comes (the tests' progress), and the held blocks of the others wait until it has
// ended. The scripts named after `--after <script>` start once that script (named before) has
// passed, and are not run when it fails. Exits with the first failure's code once all have ended.
// Usage: node scripts/run-together.mjs [--live] <npm script> … [--after <npm script> [--live] <npm script> …]
//
// Why at once: on two cores, the type check keeps one core busy, and the tests leave some of
// both idle while they wait on the processes they start (ralph, git, tmux, the fake agents), so
// the checks that need no build run beside them; and the build, on one core, runs beside a check.

import { spawn } from 'node:child_process';

const USAGE = 'usage: node scripts/run-together.mjs [--live] <npm script> … [--after <npm script> [--live] <npm script> …]\n';

const { live, names, after } = parseArgs(process.argv.slice(2));
if (names.length === 0) {
  process.stderr.write(USAGE);
  process.exit(2);
}

const npm = process.env.npm_execpath;
const started = performance.now();
const heldUntilLiveEnds = [];
let liveRunning = live.length;
process.stderr.write(`running together: ${names.join(', ')}\n`);

const running = new Map();
for (const name of names) running.set(name, start(name));
const results = await Promise.all(running.values());
const failed = results.find((result) => result.code !== 0);
process.exit(failed ? failed.code : 0);

/** A script now, or once the script it comes after has passed (skipped, code 0, when that failed). */
async function start(name) {
  const awaited = after.get(name);
  if (awaited !== undefined && (await running.get(awaited)).code !== 0) {
    show(`- ${name} (not run: ${awaited} failed)\n`, live.includes(name));
    return { name, code: 0 };
  }
  return runScript(name, live.includes(name));
}

/**
 * A script's block, once it has ended: a live script's at once, and when no live script is left
 * the held ones; another's at once too when no live script is running, else held.
 */
function show(block, isLive) {
  if (isLive) {
    process.stderr.write(block);
    if (--liveRunning === 0) for (const held of heldUntilLiveEnds.splice(0)) process.stderr.write(held);
  } else if (liveRunning > 0) heldUntilLiveEnds.push(block);
  else process.stderr.write(block);
}

/**
 * The scripts to run, those shown live, and for each script named after `--after <x>`, x; empty
 * names when the arguments are wrong (a flag without its script, an `--after` script not named before).
 */
function parseArgs(args) {
  const liveNames = [];
  const all = [];
  const awaits = new Map();
  let awaited;
  const wrong = { live: [], names: [], after: new Map() };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--after') {
      awaited = args[++i];
      if (awaited === undefined || !all.includes(awaited)) return wrong;
      continue;
    }
    const isLive = args[i] === '--live';
    const name = isLive ? args[++i] : args[i];
    if (name === undefined) return wrong;
    if (isLive) liveNames.push(name);
    all.push(name);
    if (awaited !== undefined) awaits.set(name, awaited);
  }
  return { live: liveNames, names: all, after: awaits };
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
      show(block, isLive);
      resolve({ name, code });
    };
    child.on('error', (error) => {
      chunks.push(Buffer.from(`${error.message}\n`));
      finish(1);
    });
    child.on('close', (code, signal) => finish(code ?? (signal ? 1 : 0)));
  });
}
