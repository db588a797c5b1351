import { describe, expect, it } from 'vitest';
import { parseFixPlan } from '../../../lib/plan/fix-plan.js';
import { buildCompletionSummary, buildFollowUp, buildProgressComment, buildPullRequest } from '../../../lib/lifecycle/lifecycle-comments.js';

const PLAN = parseFixPlan('# Plan\n- [x] one\n- [x] two\n- [ ] three\n## Optional\n- [ ] later\n', ['Optional']);

describe('buildProgressComment', () => {
  it('gives the loop, tasks done and remaining, and the changed files', () => {
    const body = buildProgressComment({ loop: 5, plan: PLAN, files: ['src/a.ts', 'b`c.md'] });
    expect(body).toContain('## 🔄 Ralph progress update — loop #5');
    expect(body).toContain('**Tasks:** 2 completed, 1 remaining');
    expect(body).toContain('- `src/a.ts`');
    expect(body).toContain('- `` b`c.md ``');
  });

  it('lists at most 20 files and says how many more', () => {
    const files = Array.from({ length: 23 }, (_, i) => `f${i}.txt`);
    const body = buildProgressComment({ loop: 1, plan: null, files });
    expect(body).toContain('- `f19.txt`');
    expect(body).not.toContain('f20.txt');
    expect(body).toContain('- … and 3 more');
    expect(body).toContain('**Tasks:** 0 completed, 0 remaining');
  });
});

describe('buildCompletionSummary', () => {
  it('lists the ticked items (at most 30) and the diff stat', () => {
    const body = buildCompletionSummary({ plan: PLAN, shortstat: ' 2 files changed, 5 insertions(+)\n' });
    expect(body).toContain('- [x] one\n- [x] two');
    expect(body).not.toContain('three');
    expect(body).toContain('### Changes\n2 files changed, 5 insertions(+)');
    const many = parseFixPlan(Array.from({ length: 33 }, (_, i) => `- [x] t${i}`).join('\n'));
    const long = buildCompletionSummary({ plan: many, shortstat: '' });
    expect(long).toContain('- [x] t29');
    expect(long).not.toContain('- [x] t30');
    expect(long).toContain('- … and 3 more');
    expect(long).toContain('(no changes since the run started)');
  });
});

describe('buildPullRequest', () => {
  it("takes the issue's title on one line and links the issue when asked", () => {
    const pr = buildPullRequest({ number: 42, title: '--fix\n the  widget' }, 'summary', true);
    expect(pr).toEqual({ title: '--fix the widget', body: 'summary\n\nCloses #42' });
    expect(buildPullRequest({ number: 42, title: '' }, 's', false)).toEqual({ title: 'Ralph: resolve issue #42', body: 's' });
  });
});

describe('buildFollowUp', () => {
  it('lists the markers in one issue; none without markers', () => {
    const followUp = buildFollowUp(42, ['src/a.ts: TODO: x']);
    expect(followUp?.title).toBe('Follow-up: TODOs from #42');
    expect(followUp?.body).toContain('- src/a.ts: TODO: x');
    expect(buildFollowUp(42, [])).toBeUndefined();
  });
});
