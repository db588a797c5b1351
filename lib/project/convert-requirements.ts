// ralph-import's conversion step: runs Claude Code in the new project with the conversion
// prompt on stdin and the Bash tool's conversion tools (CONVERSION_TOOLS), then checks the three files.

import { join } from 'node:path';
import type { ProcessRunner } from '../platform/process.js';
import { callAgent, type OneShotAgent } from '../agent-run/one-off-call.js';
import { buildConversionPrompt } from './conversion-prompt.js';
import { readTextIfPresent } from '../platform/read-text.js';

export const CONVERSION_OUTPUTS = ['.ralph/PROMPT.md', '.ralph/fix_plan.md', '.ralph/specs/requirements.md'] as const;

/** The tools the conversion may use, as in the Bash tool's ralph-import. */
export const CONVERSION_TOOLS = ['Read', 'Write', 'Bash(mkdir:*)', 'Bash(cp:*)'] as const;

export interface ConvertRequirementsOptions {
  projectDir: string;
  sourceName: string;
  document: string;
  agent: OneShotAgent;
  runner: ProcessRunner;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  now: () => number;
}

export type ConvertRequirementsResult =
  | {
      ok: true;
      summary: string;
      /** Outputs that do not exist after the run. */
      missing: string[];
      /** Outputs the agent left exactly as ralph-setup wrote them. */
      unchanged: string[];
    }
  | { ok: false; message: string };

export async function convertRequirements(options: ConvertRequirementsOptions): Promise<ConvertRequirementsResult> {
  const before = new Map(CONVERSION_OUTPUTS.map((file) => [file, readTextIfPresent(join(options.projectDir, file))]));
  const call = await callAgent({
    agent: options.agent,
    allowedTools: [...CONVERSION_TOOLS],
    prompt: buildConversionPrompt(options.sourceName, options.document),
    cwd: options.projectDir,
    env: options.env,
    runner: options.runner,
    timeoutMs: options.timeoutMs,
    now: options.now,
  });
  if (!call.ok) return call;
  const missing: string[] = [];
  const unchanged: string[] = [];
  for (const file of CONVERSION_OUTPUTS) {
    const after = readTextIfPresent(join(options.projectDir, file));
    if (after === undefined) missing.push(file);
    else if (after === before.get(file)) unchanged.push(file);
  }
  return { ok: true, summary: call.text, missing, unchanged };
}
