// Reads `.ralphrc` text as data, never executing it. The Bash tool `source`s this file; we read
// the KEY=value subset people actually write, expand $VAR/${VAR}/${VAR:-default} from earlier
// keys then the environment, and report every line that would need a shell (with file:line)
// instead of running it. Never throws.

import { lexRalphrcLine, splitRalphrcLines, type Piece } from './ralphrc-lexer.js';
import type { ConfigProblem } from './problems.js';
import { resolveConfigKey, suggestConfigKey } from './schema.js';

export interface RalphrcEntry {
  /** The name as written (an alias such as CLAUDE_USE_CONTINUE stays as written). */
  key: string;
  value: string;
  line: number;
}

export interface ParseRalphrcOptions {
  /** Display name used in problems (default `.ralphrc`). */
  file?: string;
  /** Variables `$VAR` may refer to when the file itself has not set them. */
  env?: Readonly<Record<string, string | undefined>>;
  /** What a leading `~` expands to (default: env HOME). */
  homeDir?: string;
}

export interface ParseRalphrcResult {
  entries: RalphrcEntry[];
  problems: ConfigProblem[];
}

interface OpenBlock {
  depth: number;
  startLine: number;
  keys: string[];
}

export function parseRalphrc(text: string, options: ParseRalphrcOptions = {}): ParseRalphrcResult {
  const file = options.file ?? '.ralphrc';
  const env = options.env ?? {};
  const entries: RalphrcEntry[] = [];
  const problems: ConfigProblem[] = [];
  const vars = new Map<string, string>();
  const warn = (line: number, message: string, key?: string) =>
    problems.push({ file, line, ...(key === undefined ? {} : { key }), message, severity: 'warning' });
  const lookup = (name: string) => (vars.has(name) ? vars.get(name) : env[name]);
  const homeDir = options.homeDir ?? env.HOME ?? '~';

  let block: OpenBlock | undefined;
  const closeBlock = (endLine: number) => {
    const { startLine, keys } = block!;
    const notSet = keys.length > 0 ? `; not set: ${[...new Set(keys)].join(', ')}` : '';
    const range = `lines ${startLine}-${endLine}`;
    warn(startLine, `shell block (${range}) is not supported; ralph reads .ralphrc as data and ignored these lines${notSet}`);
    block = undefined;
  };

  const lines = splitRalphrcLines(text);
  lines.forEach(({ content }, index) => {
    const line = index + 1;
    const lexed = lexRalphrcLine(content);
    if (block) {
      if (lexed.kind === 'assignment') block.keys.push(lexed.key);
      if (lexed.kind === 'shell') block.depth += countBlockDepthChange(content);
      if (block.depth <= 0) closeBlock(line);
      return;
    }
    if (lexed.kind === 'blank') return;
    if (lexed.kind === 'shell') {
      const opened = countBlockDepthChange(content);
      if (opened > 0) block = { depth: opened, startLine: line, keys: [] };
      else warn(line, `${lexed.reason}; ralph reads .ralphrc as data and ignored this line`, lexed.key);
      return;
    }
    const value = resolvePieces(lexed.pieces, lookup, homeDir);
    vars.set(lexed.key, value);
    entries.push({ key: lexed.key, value, line });
    if (!resolveConfigKey(lexed.key)) {
      const suggestion = suggestConfigKey(lexed.key);
      warn(line, `unknown key, ignored${suggestion ? ` (did you mean ${suggestion}?)` : ''}`, lexed.key);
    }
  });
  if (block) closeBlock(text.endsWith('\n') ? lines.length - 1 : lines.length);
  return { entries, problems };
}

function resolvePieces(pieces: Piece[], lookup: (name: string) => string | undefined, homeDir: string): string {
  let out = '';
  for (const piece of pieces) {
    if (piece.kind === 'text') out += piece.text;
    else if (piece.kind === 'home') out += homeDir;
    else {
      const value = lookup(piece.name);
      const useFallback = piece.fallback && (value === undefined || (piece.fallback.onEmpty && value === ''));
      out += useFallback ? resolvePieces(piece.fallback!.pieces, lookup, homeDir) : (value ?? '');
    }
  }
  return out;
}

const BLOCK_OPENERS = new Set(['if', 'for', 'while', 'until', 'case', 'select', '{']);
const BLOCK_CLOSERS = new Set(['fi', 'done', 'esac', '}']);

/**
 * How much a shell line opens (+) or closes (-) compound commands, so the assignments inside
 * an `if … fi` are ignored with it rather than applied unconditionally. A rough word count is
 * enough: these lines are only ever reported, never run.
 */
function countBlockDepthChange(line: string): number {
  let change = 0;
  // Quoted text is data (`echo "if you see this"` opens nothing) and part of its word (`{""` is
  // no `{`): it becomes a plain character, not a blank. Then drop a comment.
  const code = line.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, '_').replace(/#.*$/, '');
  for (const word of code.split(/[\s;&|()]+/)) {
    if (BLOCK_OPENERS.has(word)) change++;
    else if (BLOCK_CLOSERS.has(word)) change--;
  }
  return change;
}
