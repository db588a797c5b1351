// Typed loop events: the loop emits them; notifications, the queue and embedders (the
// integration tests) subscribe. A type with no emitter or no subscriber does not belong here.
// Status, metrics and progress are still written from the loop's steps directly
// (docs/ARCHITECTURE.md, "Events").

export interface LoopEventMap {
  'agent:started': { loop: number; argv: string[]; outputLogPath: string };
  'agent:finished': { loop: number; kind: string; exitCode: number | null; durationMs: number };
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
  'limit:waiting': { kind: 'rate' | 'usage' | 'backoff'; resumeAt: number; reason: string };
  'run:finished': { status: string; exitReason: string; lastAction: string; exitCode: number };
}

export type LoopEventName = keyof LoopEventMap;
type Listener<K extends LoopEventName> = (payload: LoopEventMap[K]) => void;

export class LoopEvents {
  private readonly listeners = new Map<LoopEventName, Listener<LoopEventName>[]>();

  on<K extends LoopEventName>(name: K, listener: Listener<K>): this {
    const list = this.listeners.get(name) ?? [];
    list.push(listener as Listener<LoopEventName>);
    this.listeners.set(name, list);
    return this;
  }

  emit<K extends LoopEventName>(name: K, payload: LoopEventMap[K]): void {
    for (const listener of this.listeners.get(name) ?? []) listener(payload);
  }
}
