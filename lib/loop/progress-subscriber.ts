// progress.json as a subscriber of the loop events, for the steps around the agent call: how the
// call ended, then the verification gate running and its verdict. While the agent works the live
// view (agent-display.ts) keeps the file current itself.

import { describeVerificationTally } from '../verify/verification-result.js';
import type { LoopEventMap, LoopEvents } from './events.js';
import type { StatusWriter } from './status-writer.js';

export function subscribeProgress(events: LoopEvents, writer: Pick<StatusWriter, 'progress'>): void {
  events.on('agent:judged', (e) => writer.progress(agentProgress(e)));
  events.on('verification:started', (e) => writer.progress({ status: 'verifying', lastOutput: e.commands[0] }));
  // The views must not show "verifying" once the gate is done.
  events.on('verification:completed', (e) => writer.progress({ status: gateProgress(e.status), lastOutput: describeVerificationTally(e) }));
}

function agentProgress(e: LoopEventMap['agent:judged']): Parameters<StatusWriter['progress']>[0] {
  if (e.outcome === 'timed_out_productive') return { status: 'timed_out_productive', filesChanged: e.filesChanged };
  if (e.outcome === 'ok') return { status: 'completed' };
  return e.isError ? { status: 'failed', error: 'is_error:true' } : { status: 'failed' };
}

function gateProgress(status: string): string {
  return status === 'passed' ? 'gate_passed' : status === 'not-verified' ? 'gate_not_verified' : 'gate_failed';
}
