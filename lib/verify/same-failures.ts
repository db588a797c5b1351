// The same-failures count: a signature per failing set (a hash of failingSetText, verify/verification.ts) and the
// count of consecutive loops with it. The decisions on the count (trip, reason) are pure, in
// verify/verification.ts; the hash lives here so pure code loads no Node module.

import { failingCount, failingSetText, initialSameFailures, NAMES_KEPT, type SameFailuresState, type VerificationSnapshot } from './verification.js';
import { hashText } from '../platform/hash.js';

/** Identifies the set of failures (order-insensitive); null when the result passed. */
export function failingSignature(result: VerificationSnapshot): string | null {
  const text = failingSetText(result);
  return text === null ? null : hashText(text, 16);
}

/**
 * Call once per loop that has a verification result (run this loop, or the unchanged latest
 * one when the loop changed nothing): a pass resets the count, the same failing set adds one,
 * a different set starts again at one.
 */
export function nextSameFailures(state: SameFailuresState, current: VerificationSnapshot): SameFailuresState {
  const signature = failingSignature(current);
  if (signature === null) return initialSameFailures();
  const names = [...new Set(current.failures.map((f) => f.name))];
  return {
    signature,
    count: signature === state.signature ? state.count + 1 : 1,
    names: names.slice(0, NAMES_KEPT),
    kind: current.status === 'failed' ? 'failed' : 'error',
    more: Math.max(0, failingCount(current) - Math.min(names.length, NAMES_KEPT)),
  };
}
