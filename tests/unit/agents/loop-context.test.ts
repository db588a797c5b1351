import { describe, expect, it } from 'vitest';
import { extractAgentResult } from '../../../lib/agents/claude-output.js';
import { parseFixPlan } from '../../../lib/plan/fix-plan.js';
import { buildLoopContext, MAX_LOOP_CONTEXT, QUESTIONS_WARNING } from '../../../lib/agents/loop-context.js';
import { analyzeResponse, type ResponseAnalysis } from '../../../lib/analysis/response-analysis.js';

function previous(result: string): ResponseAnalysis {
  return analyzeResponse({
    agent: extractAgentResult(JSON.stringify({ type: 'result', is_error: false, result })),
    loopNumber: 1,
    filesChanged: 0,
    newContent: false,
    allowedTools: [],
    outputFile: 'o',
    now: new Date(0),
  });
}

const PLAN = parseFixPlan('- [x] a\n- [ ] b\n## Nice to have\n- [ ] c', ['Nice to have']);

describe('buildLoopContext: the Bash prefix', () => {
  it('first loop with a plan and a closed breaker: remaining counts blocking items, optional apart', () => {
    expect(buildLoopContext({ loop: 1, plan: PLAN, breakerState: 'CLOSED', previousAnalysis: null })).toBe('Loop #1. Remaining tasks: 1 (+1 optional).');
    expect(buildLoopContext({ loop: 1, plan: parseFixPlan('- [ ] a\n- [ ] b'), breakerState: null, previousAnalysis: null })).toBe(
      'Loop #1. Remaining tasks: 2.',
    );
  });

  it('names the plan and AGENT.md when FIX_PLAN_FILE / AGENT_FILE moved them', () => {
    const context = buildLoopContext({
      loop: 2,
      plan: parseFixPlan('- [ ] a'),
      files: { plan: 'docs/plan.md', agent: 'docs/AGENT.md' },
      breakerState: null,
      previousAnalysis: null,
      openItemsConflict: { openItems: ['a'] },
    });
    expect(context).toBe(
      'Loop #2. Remaining tasks: 1. Task list: docs/plan.md. Build and run notes: docs/AGENT.md.\n\n' +
        'You signalled completion, but docs/plan.md still has 1 open item:\n- a\nFinish them and check them off in docs/plan.md before you set EXIT_SIGNAL: true.',
    );
  });

  it('omits remaining tasks without a plan; names a breaker that is not CLOSED', () => {
    expect(buildLoopContext({ loop: 3, plan: null, breakerState: 'HALF_OPEN', previousAnalysis: null })).toBe('Loop #3. Circuit breaker: HALF_OPEN.');
  });

  it('adds the previous summary, without its status block, cut to 200 characters', () => {
    const prose = `${'word '.repeat(60)}end`;
    const context = buildLoopContext({
      loop: 2,
      plan: null,
      breakerState: null,
      previousAnalysis: previous(`${prose}\n---RALPH_STATUS---\nSTATUS: IN_PROGRESS\n---END_RALPH_STATUS---`),
    });
    expect(context).toBe(`Loop #2. Previous: ${prose.slice(0, 200)}`);
  });

  it('falls back to the recommendation when the result is only a status block', () => {
    const context = buildLoopContext({
      loop: 2,
      plan: null,
      breakerState: null,
      previousAnalysis: previous('---RALPH_STATUS---\nRECOMMENDATION: add tests next\n---END_RALPH_STATUS---'),
    });
    expect(context).toBe('Loop #2. Previous: add tests next');
  });

  it('adds the whole questions warning after a maximal summary', () => {
    const context = buildLoopContext({
      loop: 4,
      plan: PLAN,
      breakerState: 'OPEN',
      previousAnalysis: previous(`${'x'.repeat(400)}\nShould I use option A?`),
    });
    expect(context.endsWith(QUESTIONS_WARNING)).toBe(true);
    expect(context.startsWith(`Loop #4. Remaining tasks: 1 (+1 optional). Circuit breaker: OPEN. Previous: ${'x'.repeat(200)} `)).toBe(true);
  });
});

describe('buildLoopContext: completion conflict and extra sections', () => {
  it('names the open items and the count toward the limit', () => {
    const context = buildLoopContext({
      loop: 5,
      plan: PLAN,
      breakerState: 'CLOSED',
      previousAnalysis: null,
      openItemsConflict: { openItems: ['Write the gate', 'Document it'], count: 2, limit: 3 },
    });
    expect(context).toBe(
      [
        'Loop #5. Remaining tasks: 1 (+1 optional).',
        '',
        'You signalled completion, but fix_plan.md still has 2 open items:',
        '- Write the gate',
        '- Document it',
        'Finish them and check them off in fix_plan.md before you set EXIT_SIGNAL: true (completion claim 2 of 3 against open items; at 3 the run stops).',
      ].join('\n'),
    );
  });

  it('says "item" for one, and works without count/limit', () => {
    const context = buildLoopContext({ loop: 2, plan: null, breakerState: null, previousAnalysis: null, openItemsConflict: { openItems: ['only'] } });
    expect(context).toContain('still has 1 open item:\n- only\nFinish them and check them off in fix_plan.md before you set EXIT_SIGNAL: true.');
  });

  it('stays within the budget with many long items, saying how many were left out', () => {
    const items = Array.from({ length: 100 }, (_, i) => `item ${i} ${'detail '.repeat(40)}`);
    const context = buildLoopContext({
      loop: 9,
      plan: null,
      breakerState: null,
      previousAnalysis: null,
      openItemsConflict: { openItems: items },
      extraSections: ['Failing tests:\n- a.test.ts'],
    });
    expect(context.length).toBeLessThanOrEqual(MAX_LOOP_CONTEXT);
    expect(context).toMatch(/- … and \d+ more\n/);
    expect(context).toContain('- item 0 detail');
    expect(context).toContain('before you set EXIT_SIGNAL: true.');
  });

  it('appends extra sections in order and cuts the last one to fit', () => {
    const context = buildLoopContext({
      loop: 1,
      plan: null,
      breakerState: null,
      previousAnalysis: null,
      extraSections: ['Failing tests:\n- a.test.ts', '', `Log:\n${'z'.repeat(10_000)}`],
    });
    expect(context.startsWith('Loop #1.\n\nFailing tests:\n- a.test.ts\n\nLog:\nzzz')).toBe(true);
    expect(context.length).toBeLessThanOrEqual(MAX_LOOP_CONTEXT);
    expect(context.endsWith('…')).toBe(true);
  });

  it('ignores an empty conflict', () => {
    expect(buildLoopContext({ loop: 1, plan: null, breakerState: null, previousAnalysis: null, openItemsConflict: { openItems: [] } })).toBe('Loop #1.');
  });
});
