// How ready a GitHub issue is to become a Ralph project (the Bash tool's issue_analyzer):
// a 0–100 score from acceptance criteria, a checklist, code, sections, implementation words
// and length; below the threshold ralph-import suggests generating a plan first.

export interface CompletenessResult {
  score: number;
  level: 'high' | 'medium' | 'low';
  recommendation: 'convert' | 'generate_plan';
  missing: string[];
}

const IMPLEMENTATION_WORDS = /\b(implement|implementation|architecture|approach|steps?|technical|design|api|schema|endpoint|function)\b/i;

export const DEFAULT_COMPLETENESS_THRESHOLD = 60;

export function analyzeIssueCompleteness(body: string, threshold = DEFAULT_COMPLETENESS_THRESHOLD): CompletenessResult {
  const checks: Array<[name: string, points: number, present: boolean]> = [
    ['acceptance_criteria', 25, /^\s*#{1,6}\s*acceptance criteria\b|\*\*acceptance criteria:?\*\*/im.test(body)],
    ['task_checklist', 15, /^\s*[-*]\s*\[[ xX]\]/m.test(body)],
    ['code_examples', 15, /^\s*(```|~~~)/m.test(body)],
    ['technical_sections', 15, (body.match(/^## /gm) ?? []).length >= 3],
    ['implementation_guidance', 15, IMPLEMENTATION_WORDS.test(body)],
    ['sufficient_detail', 15, body.split(/\s+/).filter(Boolean).length >= 150],
  ];
  const score = checks.reduce((sum, [, points, present]) => sum + (present ? points : 0), 0);
  return {
    score,
    level: score >= 80 ? 'high' : score >= 40 ? 'medium' : 'low',
    recommendation: score >= threshold ? 'convert' : 'generate_plan',
    missing: checks.filter(([, , present]) => !present).map(([name]) => name),
  };
}
