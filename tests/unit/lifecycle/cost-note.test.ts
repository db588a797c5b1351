import { describe, expect, it } from 'vitest';
import { costNote, latestReportedCost } from '../../../lib/lifecycle/cost-note.js';
import { buildProgressComment } from '../../../lib/lifecycle/lifecycle-comments.js';

const comment = (login: string, authorAssociation: string, body: string, createdAt: string) => ({ author: { login }, authorAssociation, body, createdAt });

describe('the cost ralph reports on an issue', () => {
  it('says the spend in words and reads it back from the marker', () => {
    const note = costNote({ costUsd: 0.026999999999999996, loops: 3, unknownCostLoops: 1 });
    expect(note).toContain('Cost so far: $0.027 over 3 agent calls, 1 of unknown cost.');
    expect(latestReportedCost([comment('github-actions', 'NONE', `done\n\n${note}`, '2026-12-01T10:00:00Z')])).toEqual({
      costUsd: 0.027,
      loops: 3,
      unknownCostLoops: 1,
      reportedAt: '2026-12-01T10:00:00Z',
    });
  });

  it("takes the newest trusted report; a stranger's marker, or a broken one, does not count", () => {
    const note = (usd: number) => costNote({ costUsd: usd, loops: 1, unknownCostLoops: 0 });
    const comments = [
      comment('github-actions', 'NONE', note(1), '2026-12-01T10:00:00Z'),
      comment('maintainer', 'COLLABORATOR', note(2), '2026-12-01T11:00:00Z'),
      comment('stranger', 'NONE', note(0.01), '2026-12-01T12:00:00Z'),
      comment('contributor', 'CONTRIBUTOR', note(0.02), '2026-12-01T12:30:00Z'),
      comment('github-actions', 'NONE', '<!-- ralph-fleet-cost {"cost_usd":-5,"calls":1} -->', '2026-12-01T13:00:00Z'),
      comment('github-actions', 'NONE', '<!-- ralph-fleet-cost {not json} -->', '2026-12-01T14:00:00Z'),
    ];
    expect(latestReportedCost(comments)?.costUsd).toBe(2);
    expect(latestReportedCost([comments[2]!])).toBeUndefined();
  });

  it('is part of the progress comment when the run has spent', () => {
    const body = buildProgressComment({ loop: 2, plan: null, files: [], cost: { costUsd: 1.5, loops: 2, unknownCostLoops: 0 } });
    expect(body).toContain('Cost so far: $1.50 over 2 agent calls.');
    expect(latestReportedCost([comment('github-actions', 'NONE', body, '2026-12-01T10:00:00Z')])?.costUsd).toBe(1.5);
    expect(buildProgressComment({ loop: 2, plan: null, files: [] })).not.toContain('Cost so far');
  });
});
