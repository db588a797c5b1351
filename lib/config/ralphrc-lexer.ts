// Lexes one `.ralphrc` line as data: `[export] KEY=value [# comment]`, with the Bash quoting
// rules a person would expect (single quotes literal, double quotes with escapes and $VAR,
// backslash escapes). Anything that needs a shell to mean something (command substitution,
// chains, redirections, keywords) is reported as 'shell' and never evaluated.

export type Piece = { kind: 'text'; text: string } | { kind: 'var'; name: string; fallback?: { onEmpty: boolean; pieces: Piece[] } } | { kind: 'home' };

/** How the whole value was quoted: the writer keeps this style when it replaces the value. */
export type QuoteStyle = 'none' | 'single' | 'double' | 'mixed';

export type LexedLine =
  | { kind: 'blank' }
  | {
      kind: 'assignment';
      key: string;
      exported: boolean;
      /** Offsets of the raw value text in the line (before any trailing comment). */
      valueStart: number;
      valueEnd: number;
      pieces: Piece[];
      quote: QuoteStyle;
    }
  | { kind: 'shell'; key?: string; reason: string };

export interface RalphrcLine {
  content: string;
  /** '\n', '\r\n', or '' for the last line; joining content+eol gives the text back exactly. */
  eol: string;
}

export function splitRalphrcLines(text: string): RalphrcLine[] {
  const lines: RalphrcLine[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) {
      lines.push({ content: text.slice(start), eol: '' });
      return lines;
    }
    const crlf = nl > start && text[nl - 1] === '\r';
    lines.push({ content: text.slice(start, crlf ? nl - 1 : nl), eol: crlf ? '\r\n' : '\n' });
    start = nl + 1;
  }
}

class NeedsShell extends Error {}

const SHELL_WORDS = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'for',
  'while',
  'until',
  'do',
  'done',
  'case',
  'esac',
  'select',
  'function',
  'source',
  '.',
  '{',
  '}',
  'local',
  'declare',
  'typeset',
  'readonly',
  'unset',
  'eval',
  'exec',
]);

const ASSIGNMENT = /^(export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=/;

export function lexRalphrcLine(line: string): LexedLine {
  // A UTF-8 byte-order mark counts as indentation so offsets stay valid for the writer.
  const indent = /^[ \t\uFEFF]*/.exec(line)![0].length;
  const rest = line.slice(indent);
  if (rest === '' || rest.startsWith('#')) return { kind: 'blank' };
  const match = ASSIGNMENT.exec(rest);
  if (!match) return { kind: 'shell', reason: describeNonAssignment(rest) };
  const key = match[2]!;
  const cursor = { s: line, i: indent + match[0].length };
  const valueStart = cursor.i;
  try {
    const { pieces, segments } = lexWord(cursor, 'value');
    const after = line.slice(cursor.i);
    if (after.trim() !== '' && !/^[ \t]+#/.test(after)) {
      throw new NeedsShell(
        /^[ \t]*[;&|]/.test(after) ? 'command chains (;, &&, ||, |) need a shell' : 'words after the value need a shell (quote values that contain spaces)',
      );
    }
    const exported = match[1] !== undefined;
    return { kind: 'assignment', key, exported, valueStart, valueEnd: cursor.i, pieces, quote: describeQuoting(segments) };
  } catch (error) {
    if (error instanceof NeedsShell) return { kind: 'shell', key, reason: error.message };
    throw error;
  }
}

function describeNonAssignment(rest: string): string {
  const word = /^[^\s;()]+/.exec(rest)?.[0] ?? rest.slice(0, 1);
  if (/^[A-Za-z_][\w-]*[ \t]*\(\)/.test(rest)) return 'shell functions are not supported';
  if (SHELL_WORDS.has(word)) return `shell code ("${word}") is not supported`;
  if (/^(export[ \t]+)?[A-Za-z_]\w*(\[|\+=)/.test(rest)) return 'arrays and += need a shell';
  return 'not a KEY=value assignment';
}

interface Cursor {
  s: string;
  i: number;
}

type Segment = 'bare' | 'single' | 'double';

/** 'value' stops at unquoted whitespace and rejects shell operators; 'fallback' reads to the end. */
function lexWord(c: Cursor, mode: 'value' | 'fallback'): { pieces: Piece[]; segments: Segment[] } {
  const pieces: Piece[] = [];
  const segments: Segment[] = [];
  const segment = (kind: Segment) => {
    if (segments[segments.length - 1] !== kind || kind !== 'bare') segments.push(kind);
  };
  const start = c.i;
  while (c.i < c.s.length) {
    const ch = c.s[c.i]!;
    if (mode === 'value' && (ch === ' ' || ch === '\t')) break;
    if (ch === "'") {
      const close = c.s.indexOf("'", c.i + 1);
      if (close < 0) throw new NeedsShell('unterminated single quote (values must fit on one line)');
      pushText(pieces, c.s.slice(c.i + 1, close));
      segment('single');
      c.i = close + 1;
      continue;
    }
    if (ch === '"') {
      lexDoubleQuoted(c, pieces);
      segment('double');
      continue;
    }
    segment('bare');
    if (ch === '\\') {
      if (c.i + 1 >= c.s.length) throw new NeedsShell('a trailing backslash (line continuation) is not supported');
      pushText(pieces, c.s[c.i + 1]!);
      c.i += 2;
    } else if (ch === '$') {
      lexDollar(c, pieces, false);
    } else if (ch === '`') {
      throw new NeedsShell('command substitution with backticks needs a shell');
    } else if (mode === 'value' && ';&|<>()'.includes(ch)) {
      throw new NeedsShell(describeOperator(ch));
    } else if (ch === '~' && c.i === start && mode === 'value' && /^(\/|[ \t]|$)/.test(c.s.charAt(c.i + 1))) {
      pieces.push({ kind: 'home' });
      c.i++;
    } else {
      pushText(pieces, ch);
      c.i++;
    }
  }
  return { pieces, segments };
}

function describeOperator(ch: string): string {
  if ('<>'.includes(ch)) return 'redirections need a shell';
  if ('()'.includes(ch)) return 'parentheses need a shell (quote the value)';
  return 'command chains (;, &&, ||, |) need a shell';
}

function lexDoubleQuoted(c: Cursor, pieces: Piece[]): void {
  c.i++;
  for (;;) {
    if (c.i >= c.s.length) throw new NeedsShell('unterminated double quote (values must fit on one line)');
    const ch = c.s[c.i]!;
    if (ch === '"') {
      c.i++;
      return;
    }
    if (ch === '\\') {
      const next = c.s[c.i + 1];
      if (next === undefined) throw new NeedsShell('a trailing backslash (line continuation) is not supported');
      // Inside double quotes Bash only treats \ as an escape before $ ` " and \.
      if ('$`"\\'.includes(next)) {
        pushText(pieces, next);
        c.i += 2;
      } else {
        pushText(pieces, '\\');
        c.i++;
      }
    } else if (ch === '$') {
      lexDollar(c, pieces, true);
    } else if (ch === '`') {
      throw new NeedsShell('command substitution with backticks needs a shell');
    } else {
      pushText(pieces, ch);
      c.i++;
    }
  }
}

function lexDollar(c: Cursor, pieces: Piece[], inDouble: boolean): void {
  const next = c.s[c.i + 1] ?? '';
  if (next === '(') {
    const arithmetic = c.s[c.i + 2] === '(';
    throw new NeedsShell(arithmetic ? 'arithmetic $((…)) needs a shell' : 'command substitution $(…) needs a shell');
  }
  if (next === '{') {
    const close = findBraceClose(c.s, c.i + 2);
    if (close < 0) throw new NeedsShell('unterminated ${');
    const inner = c.s.slice(c.i + 2, close);
    const m = /^([A-Za-z_]\w*)(?:(:?-)([\s\S]*))?$/.exec(inner);
    if (!m) throw new NeedsShell(`"\${${inner}}" needs a shell (only \${NAME} and \${NAME:-default} are read)`);
    const piece: Piece = { kind: 'var', name: m[1]! };
    if (m[2] !== undefined) {
      piece.fallback = { onEmpty: m[2] === ':-', pieces: lexWord({ s: m[3]!, i: 0 }, 'fallback').pieces };
    }
    pieces.push(piece);
    c.i = close + 1;
  } else if (/[A-Za-z_]/.test(next)) {
    const name = /^[A-Za-z_]\w*/.exec(c.s.slice(c.i + 1))![0];
    pieces.push({ kind: 'var', name });
    c.i += 1 + name.length;
  } else if (/[0-9@*#?$!-]/.test(next)) {
    throw new NeedsShell(`special parameter $${next} needs a shell`);
  } else if (!inDouble && (next === "'" || next === '"')) {
    throw new NeedsShell(`$${next}…${next} quoting needs a shell`);
  } else {
    pushText(pieces, '$');
    c.i++;
  }
}

/** Index of the `}` closing a `${` whose content starts at `from`, or -1. */
function findBraceClose(s: string, from: number): number {
  let depth = 1;
  for (let j = from; j < s.length; j++) {
    const ch = s[j];
    if (ch === '\\') j++;
    else if (ch === "'") {
      const close = s.indexOf("'", j + 1);
      if (close < 0) return -1;
      j = close;
    } else if (ch === '$' && s[j + 1] === '{') {
      depth++;
      j++;
    } else if (ch === '}' && --depth === 0) return j;
  }
  return -1;
}

function pushText(pieces: Piece[], text: string): void {
  const last = pieces[pieces.length - 1];
  if (last?.kind === 'text') last.text += text;
  else pieces.push({ kind: 'text', text });
}

function describeQuoting(segments: Segment[]): QuoteStyle {
  if (segments.every((s) => s === 'bare')) return 'none';
  if (segments.length === 1) return segments[0] as 'single' | 'double';
  return 'mixed';
}
