// The argv the loop pane runs under `ralph --monitor`: every flag the user gave, verbatim and
// in order (the Bash tool rebuilt the list and dropped --dry-run, --notify, --show-tool-args),
// minus the flags that only concern the tmux session. `--live` is not added: the loop always
// writes the stream to live.log, which the output pane shows, and the loop pane repeating it
// would bury the loop's own lines.

const SESSION_ONLY_FLAGS = new Set(['--monitor', '--no-monitor', '--keep-monitor', '--no-keep-monitor']);

export function buildLoopArgv(userArgv: readonly string[]): string[] {
  const out: string[] = [];
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
    // A group of short flags (`-mv`): drop the m, keep the rest.
    if (/^-[A-Za-z]{2,}$/.test(arg)) {
      const rest = arg.slice(1).replace(/m/g, '');
      if (rest !== '') out.push(`-${rest}`);
      continue;
    }
    out.push(arg);
  }
  return out;
}
