// Is the agent asking a human something? There is no human in a headless loop, so the next
// loop's context tells it to choose a safe default instead (#190). Pure.

export interface QuestionDetectionResult {
  askingQuestions: boolean;
  /** Sum over the patterns of the lines each one matches (the Bash tool's count). */
  questionCount: number;
}

const QUESTION_PATTERNS = [
  'should I',
  'would you',
  'do you want',
  'which approach',
  'which option',
  'how should',
  'what should',
  'shall I',
  'do you prefer',
  'can you clarify',
  'could you',
  'what do you think',
  'please confirm',
  'need clarification',
  'awaiting.*input',
  'waiting.*response',
  'your preference',
].map((pattern) => new RegExp(`\\b(?:${pattern})\\b`, 'i'));

export function detectQuestions(text: string): QuestionDetectionResult {
  let questionCount = 0;
  const lines = text.split(/\r?\n/);
  for (const pattern of QUESTION_PATTERNS) {
    for (const line of lines) if (pattern.test(line)) questionCount++;
  }
  return { askingQuestions: questionCount > 0, questionCount };
}
