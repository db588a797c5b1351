// The sandbox seam: one object the loop asks to turn an agent's invocation (the adapter's argv
// and environment) into the argv that runs it inside the sandbox, started before the first loop
// and stopped on every exit. Every agent is wrapped the same way, and so is the verification
// gate's command (it runs code the agent wrote, so it runs where the agent runs); the process
// layer still runs the result in its own process group and kills the whole tree.

import type { TreeChanges } from '../platform/tree-changes.js';
import type { AgentInvocation } from '../agents/agent-adapter.js';
import type { SandboxProvider } from './sandbox-settings.js';

/** What runs: the wrapped argv, the agent's stdin, and the full environment of the process started. */
export interface SandboxedInvocation {
  cmd: string;
  args: string[];
  stdin: string;
  env: NodeJS.ProcessEnv;
  /** Files to give the process as file descriptors 3, 4, … (bwrap's seccomp filter). */
  inheritFiles?: readonly string[];
}

/** status.json's `sandbox` field (the Bash tool's get_sandbox_status). */
export interface SandboxStatus {
  provider: SandboxProvider;
  container_id?: string;
  status?: string;
}

export interface Sandbox {
  readonly provider: SandboxProvider;
  /** Sets the sandbox up (container, private home, secrets); throws a RalphError when it cannot. */
  start(): Promise<void>;
  /** Before each agent run: brings a sandbox that died since the last loop back; throws a RalphError when it cannot. */
  ensureRunning(): Promise<void>;
  /** The argv to run for this invocation (an agent's or a gate command's), with `env` the environment ralph would give it. */
  wrap(invocation: AgentInvocation, env: NodeJS.ProcessEnv): SandboxedInvocation;
  /** The path that a host path inside the project has within the sandbox (the same, except under Docker). */
  pathInside(hostPath: string): string;
  /**
   * After every sandboxed call (the agent's, the gate's), before ralph checks, restores or commits
   * anything: no process of the call is left running (what the agent started in the background
   * included), and no setuid or setgid file it made is left; throws a RalphError when it cannot be sure.
   */
  afterCall(): Promise<void>;
  /**
   * Where the walk `afterCall` makes of the whole project hands what it saw changed to the
   * content snapshot (lib/platform/tree-changes.ts); undefined: no walk after each call.
   */
  readonly changes?: TreeChanges;
  /** Tears everything down and deletes the secrets; safe to call more than once. */
  stop(): Promise<void>;
  /** The last resort of a second signal, when no await is possible: remove what can be removed now. */
  stopNow(): void;
  status(): SandboxStatus;
}

/** No sandbox: the agent runs on the host, as the adapter built it. */
export function hostExecution(): Sandbox {
  return {
    provider: 'none',
    start: async () => undefined,
    ensureRunning: async () => undefined,
    wrap: (invocation, env) => ({ cmd: invocation.cmd, args: invocation.args, stdin: invocation.stdin, env: { ...env, ...invocation.env } }),
    pathInside: (hostPath) => hostPath,
    afterCall: async () => undefined,
    stop: async () => undefined,
    stopNow: () => undefined,
    status: () => ({ provider: 'none' }),
  };
}
