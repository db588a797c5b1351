// Error lines in the agent's result text, with the Bash tool's two-stage filter (#2), and a
// normalized signature so the circuit breaker can tell "the same error again" from "an error".
// Callers pass the RESULT text only: tool output echoed in a stream would be full of
// "error" words that are not the agent's failure. Pure.

export interface ErrorDetectionResult {
  count: number;
  /** The first few matching lines, trimmed (at most MAX_ERROR_LINES). */
  lines: string[];
}

const MAX_ERROR_LINES = 5;
const SIGNATURE_LINES = 3;

// Stage 1: a line holding a JSON key that contains "error" ("is_error": false,
// "api_error_status": null) is data, not an error report.
const JSON_ERROR_KEY = /"[^"]*error[^"]*"\s*:/i;
// Stage 2: the Bash tool's error regex for the agent's output.
const ERROR_LINE = /^Error:|^ERROR:|^error:|\]: error|Link: error|Error occurred|failed with error|[Ee]xception|Fatal|FATAL/;

export function detectErrors(text: string): ErrorDetectionResult {
  const lines: string[] = [];
  let count = 0;
  for (const line of text.split(/\r?\n/)) {
    if (JSON_ERROR_KEY.test(line) || !ERROR_LINE.test(line)) continue;
    count++;
    if (lines.length < MAX_ERROR_LINES) lines.push(line.trim());
  }
  return { count, lines };
}

/**
 * A signature of the first error lines with the parts that change from run to run collapsed
 * (ids, hashes, paths, numbers), lower-cased. '' when the text has no error line.
 */
export function errorSignature(text: string): string {
  return detectErrors(text).lines.slice(0, SIGNATURE_LINES).map(normalizeErrorLine).join('\n');
}

function normalizeErrorLine(line: string): string {
  return line
    .toLowerCase()
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    .replace(/\b[a-z]:\\[^\s'"`]*/g, '<path>')
    .replace(/(^|[\s'"`(=:])\.{0,2}\/[^\s'"`)]*/g, '$1<path>')
    .replace(/\b0x[0-9a-f]+\b/g, '<hex>')
    .replace(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/g, '<hex>')
    .replace(/\d+(?:\.\d+)*/g, '#')
    .replace(/\s+/g, ' ')
    .trim();
}
