import { describe, expect, it } from 'vitest';
import { analyzeIssueCompleteness } from '../../../lib/project/issue-completeness.js';

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

describe('analyzeIssueCompleteness', () => {
  it('scores a thin issue low and recommends a plan', () => {
    expect(analyzeIssueCompleteness('Login is broken, please fix.')).toEqual({
      score: 0,
      level: 'low',
      recommendation: 'generate_plan',
      missing: ['acceptance_criteria', 'task_checklist', 'code_examples', 'technical_sections', 'implementation_guidance', 'sufficient_detail'],
    });
  });

  it('adds 25 + 15 × 5 for a complete issue', () => {
    const body = `## Summary\n${words(160)}\n## Acceptance Criteria\n- [ ] works\n## Design\nThe API endpoint …\n\`\`\`ts\ncode()\n\`\`\`\n`;
    expect(analyzeIssueCompleteness(body)).toMatchObject({ score: 100, level: 'high', recommendation: 'convert', missing: [] });
  });

  it('counts bold acceptance criteria and uses the threshold for the recommendation', () => {
    const result = analyzeIssueCompleteness('**Acceptance Criteria:**\n- [x] done\nimplement it', 50);
    expect(result).toMatchObject({ score: 55, level: 'medium', recommendation: 'convert' });
    expect(analyzeIssueCompleteness('**Acceptance Criteria:**\n- [x] done\nimplement it', 56).recommendation).toBe('generate_plan');
  });
});
