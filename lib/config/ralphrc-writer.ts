// Changes values in `.ralphrc` text without disturbing anything else: an existing KEY= line is
// edited in place (keeping `export`, its quoting style and trailing comment), a missing key is
// appended, and every other byte (comments, unknown keys, shell lines) is kept as it was.

import { RalphError } from '../errors.js';
import { lexRalphrcLine, splitRalphrcLines, type QuoteStyle } from './ralphrc-lexer.js';
import { parseRalphrc } from './ralphrc.js';
import { resolveConfigKey } from './schema.js';

const BARE_SAFE = /^[A-Za-z0-9_.,:/@%+=-]+$/;

/** The value as .ralphrc text that reads back as exactly `value`: bare when safe, else double-quoted. */
export function renderRalphrcValue(value: string): string {
  return BARE_SAFE.test(value) ? value : quoteDouble(value);
}

export function updateRalphrcText(original: string, updates: Record<string, string>): string {
  for (const [key, value] of Object.entries(updates)) checkUpdate(key, value);
  const lines = splitRalphrcLines(original);
  // Only lines the reader would apply are edited; a line inside `if … fi` is left alone.
  const { entries } = parseRalphrc(original);
  const appended: string[] = [];
  for (const [key, value] of Object.entries(updates)) {
    const targets = entries.filter((entry) => isSameKey(entry.key, key));
    for (const { line } of targets) {
      const target = lines[line - 1]!;
      const lexed = lexRalphrcLine(target.content);
      if (lexed.kind !== 'assignment') continue;
      target.content = target.content.slice(0, lexed.valueStart) + renderInStyle(value, lexed.quote) + target.content.slice(lexed.valueEnd);
    }
    if (targets.length === 0) appended.push(`${key}=${renderRalphrcValue(value)}`);
  }
  let text = lines.map((l) => l.content + l.eol).join('');
  if (appended.length > 0) {
    const eol = original.includes('\r\n') ? '\r\n' : '\n';
    if (text !== '' && !text.endsWith('\n')) text += eol;
    text += appended.map((line) => line + eol).join('');
  }
  assertReadsBack(text, updates);
  return text;
}

/**
 * What was written must be what the reader gets: a key appended after an unclosed `if` (or
 * similar) would be ignored, so refuse rather than write a value that silently does nothing.
 */
function assertReadsBack(text: string, updates: Record<string, string>): void {
  const entries = parseRalphrc(text).entries;
  for (const [key, value] of Object.entries(updates)) {
    const read = entries.filter((entry) => isSameKey(entry.key, key)).pop();
    if (read?.value !== value) {
      throw new RalphError('config_write_invalid', `cannot set ${key} in .ralphrc: the file ends inside a shell block that ralph does not read`, {
        hint: 'close or remove the unfinished if/for/function block in .ralphrc, then run again',
      });
    }
  }
}

function isSameKey(written: string, wanted: string): boolean {
  if (written === wanted) return true;
  const canonical = resolveConfigKey(wanted);
  return canonical !== undefined && resolveConfigKey(written) === canonical;
}

function renderInStyle(value: string, style: QuoteStyle): string {
  if (style === 'single' && !value.includes("'")) return `'${value}'`;
  if (style === 'double') return quoteDouble(value);
  return renderRalphrcValue(value);
}

function quoteDouble(value: string): string {
  return `"${value.replace(/[\\"$`]/g, (ch) => `\\${ch}`)}"`;
}

function checkUpdate(key: string, value: string): void {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) {
    throw new RalphError('config_write_invalid', `cannot write .ralphrc key ${JSON.stringify(key)}: not a valid name`);
  }
  if (/[\r\n]/.test(value)) {
    throw new RalphError('config_write_invalid', `cannot write ${key} to .ralphrc: values cannot contain line breaks`);
  }
}
