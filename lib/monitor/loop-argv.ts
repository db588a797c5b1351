// The argv the loop pane runs under `ralph --monitor`: every flag the user gave, verbatim and
// in order (the Bash tool rebuilt the list and dropped --dry-run, --notify, --show-tool-args),
// minus the flags that only concern the tmux session, plus `--live` so the output pane has
// something to show.

const SESSION_ONLY_FLAGS = new Set(['--monitor', '--no-monitor', '--keep-monitor', '--no-keep-monitor']);

export function buildLoopArgv(userArgv: readonly string[]): string[] {
  const out: string[] = [];
  let wantsLive = false;
  let afterTerminator = false;
  for (const arg of userArgv) {
    if (afterTerminator) {
      out.push(arg);
      continue;
    }
    if (arg === '--') {
      afterTerminator = true;
      out.push(arg);
      continue;
    }
    const name = arg.startsWith('--') ? arg.split('=', 1)[0]! : arg;
    if (SESSION_ONLY_FLAGS.has(name) || arg === '-m') continue;
    if (name === '--live' || name === '--no-live') wantsLive = true;
    // A group of short flags (`-mv`): drop the m, keep the rest.
    if (/^-[A-Za-z]{2,}$/.test(arg)) {
      if (arg.includes('l')) wantsLive = true;
      const rest = arg.slice(1).replace(/m/g, '');
      if (rest !== '') out.push(`-${rest}`);
      continue;
    }
    if (arg === '-l') wantsLive = true;
    out.push(arg);
  }
  if (!wantsLive) {
    const at = afterTerminator ? out.indexOf('--') : out.length;
    out.splice(at, 0, '--live');
  }
  return out;
}
