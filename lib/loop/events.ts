// Typed loop events: the loop and its steps emit what happened; the run's outputs subscribe —
// status.json (status-subscriber.ts), metrics.jsonl (metrics-subscriber.ts), progress.json
// (progress-subscriber.ts) — and so do notifications, the queue, the parallel engine and
// embedders (the integration tests). A type with no emitter or no subscriber does not belong
// here (tests/unit/loop/events.test.ts checks it). Delivery is synchronous, in the order the
// listeners were added, then to the emitters forwarded to: a file a subscriber writes is on disk
// when `emit` returns, and before an embedder's listener hears of it.

import type { AgentActivity } from '../agents/agent-adapter.js';
import type { MetricsLine } from '../state/schemas.js';

export interface LoopEventMap {
  /** The loop got past its guards and its agent call is counted: the call is about to be made. */
  'iteration:started': { loop: number };
  'agent:started': { loop: number; agentLabel: string; argv: string[]; outputLogPath: string };
  /** What the agent's reader saw in one chunk of its output: text for the live view, the tool in use. */
  'agent:activity': { loop: number; activity: AgentActivity };
  'agent:finished': { loop: number; kind: string; exitCode: number | null; durationMs: number };
  /**
   * The loop's agent call is classified and its change measured, before the verification gate:
   * `outcome` is the failure kind ('ok' when it worked) or 'timed_out_productive'.
   */
  'agent:judged': { loop: number; outcome: string; isError: boolean; filesChanged: number };
  'iteration:completed': {
    loop: number;
    success: boolean;
    durationMs: number;
    calls: number;
    outcome: string;
    filesChanged: number;
    exitSignal: boolean;
    testsStatus?: string;
    tokens: { input: number; output: number; cacheRead: number; cacheCreation: number };
    costUsd: number;
    summary?: string;
    /** The verification outcome of the loop ('unverified' when the gate told nothing). */
    verification?: string;
  };
  /** The loop's outcome as ralph measured it (after the verification gate): its metrics.jsonl line. */
  'iteration:measured': { loop: number; line: MetricsLine };
  /**
   * The loop is over and the run goes on to the next one: its agent call worked ('success') or
   * failed ('error'). Not sent when the loop stops the run, waits out a limit or switches agents.
   */
  'iteration:ended': { loop: number; status: 'success' | 'error' };
  'verification:started': { loop: number; commands: string[] };
  'verification:completed': {
    loop: number;
    status: string;
    passed: number;
    failed: number;
    skipped: number;
    durationMs: number;
    outcome: string;
    failing: string[];
  };
  'run:opened': { runId: string; resumed: boolean; nextLoop: number; cutOff: number[] };
  /** The agent hit its usage limit; the run may wait until `resumeAt` (the user is asked first). */
  'usage-limit:reached': { loop: number; resumeAt: number; reason: string };
  'limit:waiting': { kind: 'rate' | 'usage' | 'backoff'; resumeAt: number; reason: string };
  'run:finished': { status: string; exitReason: string; lastAction: string; exitCode: number };
}

export type LoopEventName = keyof LoopEventMap;
type Listener<K extends LoopEventName> = (payload: LoopEventMap[K]) => void;

export class LoopEvents {
  private readonly listeners = new Map<LoopEventName, Listener<LoopEventName>[]>();
  private readonly downstream: LoopEvents[] = [];

  on<K extends LoopEventName>(name: K, listener: Listener<K>): this {
    const list = this.listeners.get(name) ?? [];
    list.push(listener as Listener<LoopEventName>);
    this.listeners.set(name, list);
    return this;
  }

  emit<K extends LoopEventName>(name: K, payload: LoopEventMap[K]): void {
    for (const listener of this.listeners.get(name) ?? []) listener(payload);
    for (const events of this.downstream) events.emit(name, payload);
  }

  /** Every event goes on to `events` once this emitter's own listeners have had it. */
  forwardTo(events: LoopEvents): this {
    this.downstream.push(events);
    return this;
  }
}
