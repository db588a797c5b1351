// What `ralph-fleet <command>` was asked to do, once its flags are read (lib/cli/fleet/fleet-args.ts):
// the fleet's own vocabulary, so the fleet's code needs nothing from the command line.

import type { FleetInitOptions } from './init-workflow.js';

export interface FleetJobArgs {
  issue: number;
  label: string;
  agent: string;
  jobMinutes: number;
  maxCostUsd: number;
  workflow: string;
  sandbox: boolean;
  /** Push the agent's changes under .github/ (the workflow was written with the opt-in). */
  allowWorkflowChanges: boolean;
}

export type FleetCommand =
  | ({ kind: 'init'; yes: boolean } & FleetInitOptions)
  | { kind: 'doctor'; agent: string; label: string; workflow: string; yes: boolean }
  | ({ kind: 'job' } & FleetJobArgs)
  | { kind: 'sweep'; label: string; workflow: string }
  | { kind: 'status'; label: string; workflow: string; json: boolean }
  | { kind: 'start'; label: string; workflow: string; issues: number[]; dispatch: boolean }
  | { kind: 'stop' | 'logs'; label: string; workflow: string; issue: number };
