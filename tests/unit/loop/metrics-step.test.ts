// The loop's time in metrics.jsonl: the agent call's and the verification gate's.

import { describe, expect, it } from 'vitest';
import { loopDurations } from '../../../lib/loop/metrics-step.js';

describe('loopDurations', () => {
  it("counts the gate in the loop's duration and keeps both parts", () => {
    // A fast agent call and a 1.4 s gate: the loop took 2 s, not 0 s.
    expect(loopDurations(300, 1400)).toEqual({ duration: 2, agent_duration: 0.3, gate_duration: 1.4 });
    expect(loopDurations(12_345, 0)).toEqual({ duration: 12, agent_duration: 12.3, gate_duration: 0 });
    expect(loopDurations(-5, -1)).toEqual({ duration: 0, agent_duration: 0, gate_duration: 0 });
  });
});
