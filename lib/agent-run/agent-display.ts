// What the user sees while the agent works: with --live the rendered stream on the terminal;
// otherwise a one-line spinner with elapsed time and the last tool on a TTY (nothing extra when
// not a TTY: log lines only). The rendered stream always goes to .ralph/live.log, which the
// tmux "Claude Output" pane follows, and progress.json is kept current for the monitor: once per
// stdout chunk at most (its last tool), at the end of the turn that read it.
// Agent text is redacted and stripped of terminal control sequences before it goes anywhere;
// live.log is owner-only like the other transcripts.

import { isRefusedWrite, writeFileNoFollow } from '../state/no-follow.js';
import { KeptAppendFile } from '../state/kept-append.js';
import type { AgentActivity } from '../agents/agent-adapter.js';
import type { Redactor } from '../text/redaction.js';
import { stripTerminalControls } from '../text/terminal-text.js';
import type { Clock } from '../platform/clock.js';
import type { Output } from '../platform/deps.js';
import type { RalphPaths } from '../state/paths.js';
import { formatLocalDateTime } from '../state/timestamps.js';
import type { LoopEvents } from '../loop/events.js';
import type { StatusWriter } from '../loop/status-writer.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸'];
const PROGRESS_EVERY_MS = 10_000;

export interface AgentDisplayOptions {
  paths: RalphPaths;
  clock: Clock;
  stdout: Output;
  live: boolean;
  showToolArgs: boolean;
  status: StatusWriter;
  /** Masks secrets in everything shown or written (the run's redactor, as for ralph.log). */
  redact: Redactor;
  /** Told once a run that live.log was refused (a link in its place). */
  warn?: (message: string) => void;
}

export class AgentDisplay {
  private startedAt = 0;
  private lastTool = '';
  private lastProgressAt = 0;
  /** A progress write is due at the end of this turn (several tools may arrive in one chunk). */
  private progressDue = false;
  private ticker: NodeJS.Timeout | undefined;
  private liveRefused = false;
  private frame = 0;
  private agentLabel = 'Claude Code';
  /** The live view ends with a newline (true at the loop header). */
  private atLineStart = true;
  /** live.log, appended to several times a call through one descriptor. */
  private readonly liveLog: KeptAppendFile;

  constructor(private readonly options: AgentDisplayOptions) {
    this.liveLog = new KeptAppendFile(options.paths.liveLog, 0o600);
  }

  start(loop: number, agentLabel: string): void {
    this.agentLabel = agentLabel;
    const { paths, clock } = this.options;
    this.startedAt = clock.now();
    this.lastTool = '';
    this.lastProgressAt = 0;
    this.atLineStart = true;
    // Owner-only also when an older live.log was world-readable.
    this.writeLive(() => writeFileNoFollow(paths.liveLog, `=== Loop #${loop} - ${formatLocalDateTime(clock.now())} ===\n`, 0o600));
    this.options.status.progress({ status: 'executing', indicator: SPINNER[0], elapsedSeconds: 0, lastOutput: '' });
    if (!this.options.live && this.options.stdout.isTTY) {
      this.ticker = setInterval(() => this.drawSpinner(), 1000);
      this.ticker.unref();
    }
  }

  /** What the agent reader saw in one chunk: text for the live view, the tool now in use. */
  activity(activity: AgentActivity): void {
    const text = activity.text ? this.redact(activity.text) : '';
    if (text) this.show(text);
    if (activity.tool) this.lastTool = this.redact(activity.tool);
    const now = this.options.clock.now();
    if (!this.progressDue && (activity.tool || now - this.lastProgressAt >= PROGRESS_EVERY_MS)) {
      this.lastProgressAt = now;
      this.progressDue = true;
      queueMicrotask(() => this.writeDueProgress());
    }
  }

  private writeDueProgress(): void {
    if (!this.progressDue) return;
    this.progressDue = false;
    const now = this.options.clock.now();
    bestEffort(() =>
      this.options.status.progress({
        status: 'executing',
        indicator: SPINNER[this.frame % SPINNER.length],
        elapsedSeconds: Math.floor((now - this.startedAt) / 1000),
        lastOutput: this.lastTool,
      }),
    );
  }

  private show(rendered: string): void {
    // Tool lines start with a newline to end a half-streamed text line; after a full line that
    // newline would double-space the view.
    const text = this.atLineStart && rendered.startsWith('\n') ? rendered.slice(1) : rendered;
    if (text === '') return;
    this.atLineStart = text.endsWith('\n');
    this.writeLive(() => this.liveLog.append(text));
    if (this.options.live) this.options.stdout.write(text);
  }

  /** A live.log write; a refused one is said once and the file left alone until the next loop. */
  private writeLive(write: () => void): void {
    if (this.liveRefused) return;
    try {
      write();
    } catch (error) {
      if (!isRefusedWrite(error)) return; // best effort, see bestEffort below
      this.liveRefused = true;
      this.options.warn?.(error.message);
    }
  }

  private redact(text: string): string {
    return text ? this.options.redact(stripTerminalControls(text)) : text;
  }

  stop(): void {
    // Written before whatever the loop writes next, never after it.
    this.writeDueProgress();
    // Held for one call only: nothing writes to live.log between calls.
    this.liveLog.close();
    if (this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
      this.options.stdout.write('\r\x1b[2K');
    }
  }

  private drawSpinner(): void {
    this.frame++;
    const elapsed = Math.floor((this.options.clock.now() - this.startedAt) / 1000);
    const tool = this.lastTool ? ` · ${this.lastTool}` : '';
    const columns = this.options.stdout.columns ?? 80;
    const line = `${SPINNER[this.frame % SPINNER.length]} ${this.agentLabel} working (${elapsed}s)${tool}`;
    this.options.stdout.write(`\r\x1b[2K${line.slice(0, Math.max(10, columns - 1))}`);
  }
}

// These run inside the agent's stdout handler, where a throw would crash the process with a
// stack trace: the live view is best effort (disk full, unwritable file), and the next state
// write outside the handler reports the problem through the normal error path.
function bestEffort(write: () => void): void {
  try {
    write();
  } catch {
    // see above
  }
}

/** The live view as a subscriber: it follows each agent call from its start to its end. */
export function subscribeLiveView(events: LoopEvents, display: Pick<AgentDisplay, 'start' | 'activity' | 'stop'>): void {
  events.on('agent:started', (e) => display.start(e.loop, e.agentLabel));
  events.on('agent:activity', (e) => display.activity(e.activity));
  events.on('agent:finished', () => display.stop());
}
