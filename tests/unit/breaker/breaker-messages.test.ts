import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BREAKER_RESET_MESSAGE, formatBreakerBanner, formatCircuitStatus, formatHaltBox, formatPermissionHalt } from '../../../lib/breaker/breaker-messages.js';
import { cooldownEndsAt, initialBreakerState, type BreakerState } from '../../../lib/breaker/circuit-breaker.js';
import { defaultConfig } from '../../../lib/config/schema.js';
import { breakerThresholds } from '../../../lib/breaker/breaker-step.js';
import { suggestAllowedTools } from '../../../lib/analysis/allowed-tools-suggestion.js';
import { useTimeZone } from '../../helpers/time-zone.js';

const halted = JSON.parse(readFileSync(new URL('../../fixtures/bash-state/halted/.circuit_breaker_state', import.meta.url), 'utf8')) as BreakerState;
useTimeZone('UTC');

describe('breaker banners', () => {
  it.each([
    ['OPEN', '🚨 CIRCUIT BREAKER OPENED'],
    ['HALF_OPEN', '⚠️  CIRCUIT BREAKER: Monitoring Mode'],
    ['CLOSED', '✅ CIRCUIT BREAKER: Normal Operation'],
  ] as const)('%s → %s', (to, title) => {
    expect(formatBreakerBanner({ to, reason: 'why' })).toEqual([title, 'Reason: why']);
  });

  it('confirms a reset with the Bash wording', () => {
    expect(BREAKER_RESET_MESSAGE).toBe('✅ Circuit breaker reset to CLOSED state');
  });
});

describe('--circuit-status', () => {
  it('shows the Bash fields of the Bash-written state', () => {
    const lines = formatCircuitStatus(halted);
    expect(lines[1]).toMatch(/^║ Circuit Breaker Status +║$/);
    expect(lines[0]!.length).toBe(lines[1]!.length);
    expect(lines.slice(3)).toEqual([
      'State:                🚨 OPEN',
      'Reason:               No recovery, opening circuit after 3 loops',
      'Loops since progress: 3',
      'Last progress:        none yet',
      'Current loop:         #3',
      'Total opens:          1',
      '',
    ]);
  });

  it('adds when the cooldown ends for an OPEN breaker', () => {
    const ends = cooldownEndsAt(halted, breakerThresholds(defaultConfig()))!;
    const lines = formatCircuitStatus(halted, { cooldownEndsAt: ends, now: ends - 29 * 60_000 });
    expect(lines).toContain('Cooldown ends:        05:18:19 (in 29m)');
    expect(formatCircuitStatus(initialBreakerState(0), { cooldownEndsAt: ends }).join('\n')).not.toMatch(/Cooldown/);
  });
});

describe('halt boxes', () => {
  it('says the run halted and what to do', () => {
    const text = formatHaltBox(halted, { cooldownEndsAt: cooldownEndsAt(halted, breakerThresholds(defaultConfig())) }).join('\n');
    expect(text).toContain('EXECUTION HALTED: Circuit Breaker Opened');
    expect(text).toContain('Ralph has detected that no progress is being made.');
    expect(text).toContain('Reset circuit breaker: ralph --reset-circuit');
    expect(text).toContain('tail -20 .ralph/logs/ralph.log');
    expect(text).toContain('check .ralph/fix_plan.md');
    expect(text).toContain('after 05:18:19 the next run starts in HALF_OPEN');
    expect(text).toContain('--auto-reset-circuit');
  });

  it('names permission denials as the cause when they opened the breaker', () => {
    const state = { ...halted, consecutive_permission_denials: 2, reason: 'Permission denied in 2 consecutive loops - update ALLOWED_TOOLS in .ralphrc' };
    expect(formatHaltBox(state).join('\n')).toContain('denied permission');
  });

  it('names the verification gate, not a lack of progress, when the same failures opened the breaker', () => {
    const state: BreakerState = { ...halted, consecutive_no_progress: 0, reason: 'Same failing tests in 3 consecutive loops: lint' };
    const text = formatHaltBox(state).join('\n');
    expect(text).toContain('The verification gate failed the same way in consecutive loops.');
    expect(text).not.toContain('no progress is being made');
    expect(text).not.toContain('Project may be complete');
    expect(text).toContain("grep -A20 'Verification gate' .ralph/logs/ralph.log");
    const error = formatHaltBox({ ...state, reason: 'Verification could not complete in 3 consecutive loops: npm test' }).join('\n');
    expect(error).toContain('The verification gate gave no result in consecutive loops');
    expect(error).not.toContain('failed the same way');
  });

  it('prints the narrowest ALLOWED_TOOLS line for a permission halt, and what a wider rule would also allow', () => {
    const denials = [{ tool_name: 'Bash', tool_input: { command: 'rm -rf build' } }];
    const lines = formatPermissionHalt(denials, suggestAllowedTools(['Read', 'Write'], denials), { kind: 'default' }, { threshold: 2 });
    expect(lines).toContain('  • Bash: rm -rf build');
    expect(lines).toContain('  ALLOWED_TOOLS="Read,Write,Bash(rm -rf build)"');
    expect(lines).toContain('Bash(rm -rf build) allows this exact command only; Bash(rm *) would also allow rm with any other arguments.');
    expect(lines.join('\n')).toContain('EXECUTION HALTED: Permission Denied');
  });

  it("says the exit check stopped the run at the first denial, before the breaker's threshold", () => {
    const denials = [{ tool_name: 'Edit', tool_input: { file_path: 'a' } }];
    const text = formatPermissionHalt(denials, suggestAllowedTools(['Read'], denials), { kind: 'default' }, { threshold: 2 }).join('\n');
    expect(text).toContain(
      [
        'Stopped by the exit check: ralph halts after the first loop with a denied tool, as the Bash',
        "tool does. CB_PERMISSION_DENIAL_THRESHOLD (2) is the circuit breaker's count of such loops",
        'in a row; this check comes first.',
      ].join('\n'),
    );
  });

  it("names the breaker's threshold when the breaker opened on denials", () => {
    const state = {
      ...initialBreakerState(0),
      state: 'OPEN' as const,
      consecutive_permission_denials: 1,
      reason: 'Permission denied in 1 consecutive loops - update ALLOWED_TOOLS in .ralphrc',
    };
    expect(formatHaltBox(state).join('\n')).toContain(
      'Claude was denied permission to use a tool in 1 consecutive loop(s): the circuit breaker opened at CB_PERMISSION_DENIAL_THRESHOLD.',
    );
  });

  it('explains a denial of an already allowed tool', () => {
    const denials = [{ tool_name: 'Edit', tool_input: { file_path: '/etc/hosts' } }];
    expect(formatPermissionHalt(denials, suggestAllowedTools(['Edit'], denials)).join('\n')).toContain('already in ALLOWED_TOOLS');
  });
});
