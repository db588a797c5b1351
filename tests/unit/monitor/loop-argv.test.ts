import { describe, expect, it } from 'vitest';
import { buildLoopArgv } from '../../../lib/monitor/loop-argv.js';

// Every `ralph` flag reaches the loop verbatim (the Bash tool dropped --dry-run, --notify and
// --show-tool-args, and anything equal to its default).
const FORWARDED: Array<[string, string[]]> = [
  ['--calls N', ['--calls', '50']],
  ['-c N', ['-c', '100']],
  ['--prompt F', ['--prompt', 'my prompt.md']],
  ['-p F', ['-p', '.ralph/PROMPT.md']],
  ['--verbose', ['--verbose']],
  ['-v', ['-v']],
  ['--timeout N', ['--timeout', '15']],
  ['-t N', ['-t', '30']],
  ['--output-format F', ['--output-format', 'text']],
  ['--allowed-tools LIST', ['--allowed-tools', 'Write,Read,Bash(git *)']],
  ['--no-continue', ['--no-continue']],
  ['--session-expiry H', ['--session-expiry', '24']],
  ['--auto-reset-circuit', ['--auto-reset-circuit']],
  ['--backup', ['--backup']],
  ['-b', ['-b']],
  ['--dry-run', ['--dry-run']],
  ['--notify', ['--notify']],
  ['-n', ['-n']],
  ['--show-tool-args', ['--show-tool-args']],
  ['--max-loops N', ['--max-loops', '2']],
  ['--max-cost USD', ['--max-cost', '2.5']],
  ['--max-run-minutes N', ['--max-run-minutes', '90']],
  ['--delay S', ['--delay', '0']],
  ['--fresh', ['--fresh']],
  ['--debug', ['--debug']],
  ['--reset-session', ['--reset-session']],
  ['--calls=N', ['--calls=7']],
];

describe('buildLoopArgv', () => {
  it.each(FORWARDED)('forwards %s verbatim', (_name, flag) => {
    const argv = buildLoopArgv(['--monitor', ...flag]);
    expect(argv).toEqual(flag);
  });

  it.each([['--monitor'], ['-m'], ['--keep-monitor'], ['--no-keep-monitor'], ['--monitor=true']])('strips %s', (flag) => {
    expect(buildLoopArgv([flag, '--dry-run'])).toEqual(['--dry-run']);
  });

  it('keeps the order of everything else', () => {
    expect(buildLoopArgv(['--calls', '5', '-m', '--dry-run', '--keep-monitor', '--max-loops', '2'])).toEqual(['--calls', '5', '--dry-run', '--max-loops', '2']);
  });

  it('adds no --live (the output pane shows the stream) and keeps one the user gave', () => {
    expect(buildLoopArgv(['--monitor'])).toEqual([]);
    expect(buildLoopArgv(['--monitor', '--live'])).toEqual(['--live']);
    expect(buildLoopArgv(['-m', '-l'])).toEqual(['-l']);
    expect(buildLoopArgv(['--monitor', '--no-live'])).toEqual(['--no-live']);
  });

  it('takes the m out of a group of short flags', () => {
    expect(buildLoopArgv(['-mv'])).toEqual(['-v']);
    expect(buildLoopArgv(['-mlv'])).toEqual(['-lv']);
  });

  it('leaves flag values alone even when they look like the monitor flag', () => {
    expect(buildLoopArgv(['--monitor', '--prompt', '--monitor.md'])).toEqual(['--prompt', '--monitor.md']);
  });
});
