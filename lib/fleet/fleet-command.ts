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
}

export type FleetCommand =
  | ({ kind: 'init' } & FleetInitOptions)
  | ({ kind: 'job' } & FleetJobArgs)
  | { kind: 'sweep'; label: string; workflow: string }
  | { kind: 'status'; label: string; workflow: string; json: boolean }
  | { kind: 'start'; label: string; workflow: string; issues: number[]; dispatch: boolean }
  | { kind: 'stop' | 'logs'; label: string; workflow: string; issue: number };
