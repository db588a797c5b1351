// POSIX shell quoting for the commands tmux runs in its panes. Every argv element is wrapped
// in single quotes (inside which nothing is special) and each embedded `'` becomes `'\''`, so
// no value — spaces, `$`, backticks, `;`, newlines — is ever interpreted by the shell.

export function quoteForShell(arg: string): string {
  if (arg.includes('\0')) throw new Error('a shell argument cannot contain a NUL byte');
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** One shell command line that runs `argv` exactly. */
export function joinShellCommand(argv: readonly string[]): string {
  if (argv.length === 0) throw new Error('cannot build a command from an empty argv');
  return argv.map(quoteForShell).join(' ');
}
