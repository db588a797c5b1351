// What the gate will run for this project, decided once at run start from the configuration:
// the test command (TEST_COMMAND, else detected from the manifests — read once here, so an agent
// editing package.json mid-run does not change what runs), the QUALITY_GATES list, the time
// limit, and whether completion must wait for the gate (VERIFY_BEFORE_EXIT, when there is
// anything to run). A different test command in AGENT.md (AGENT_FILE) is reported, never run.

import { join } from 'node:path';
import type { RalphConfig } from '../config/schema.js';
import { splitCommandList } from './command-line.js';
import { gateCommands, type GateCommand } from './run-gate.js';
import { agentMdTestCommandWarning, resolveTestCommand, type ResolvedTestCommand } from './test-command.js';

export interface VerificationSetup {
  test: ResolvedTestCommand | null;
  qualityGates: string[];
  commands: GateCommand[];
  /** Completion waits for a passing gate. */
  requiredForExit: boolean;
  timeoutMs: number;
  /** AGENT.md names another test command (told once at startup; it is not run). */
  agentMdWarning: string | null;
}

export type VerificationConfig = Pick<RalphConfig, 'TEST_COMMAND' | 'QUALITY_GATES' | 'VERIFY_BEFORE_EXIT' | 'VERIFY_TIMEOUT_MINUTES'>;

export function planVerification(config: VerificationConfig, projectDir: string, configuredFrom?: string, agentMdPath?: string): VerificationSetup {
  const test = resolveTestCommand({ projectDir, configured: config.TEST_COMMAND, configuredFrom });
  const qualityGates = splitCommandList(config.QUALITY_GATES);
  const commands = gateCommands(test?.command, qualityGates);
  return {
    test,
    qualityGates,
    commands,
    requiredForExit: config.VERIFY_BEFORE_EXIT && commands.length > 0,
    timeoutMs: config.VERIFY_TIMEOUT_MINUTES * 60_000,
    agentMdWarning: agentMdTestCommandWarning(agentMdPath ?? join(projectDir, '.ralph', 'AGENT.md'), test),
  };
}

/** One log line saying what the gate will run and why. */
export function describeVerificationSetup(setup: VerificationSetup): string {
  if (setup.commands.length === 0) return 'Verification gate: no test command found (set TEST_COMMAND in .ralphrc); completion is not verified';
  const parts: string[] = [];
  if (setup.test) parts.push(`tests: ${setup.test.command} (from ${setup.test.detail})`);
  if (setup.qualityGates.length > 0) parts.push(`quality gates: ${setup.qualityGates.join(' | ')}`);
  const exit = setup.requiredForExit ? 'completion requires it to pass' : 'VERIFY_BEFORE_EXIT=false: completion does not wait for it';
  return `Verification gate: ${parts.join('; ')}; ${exit}`;
}
