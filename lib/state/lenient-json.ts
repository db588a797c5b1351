// Salvages the top-level fields of JSON the Bash tool built by hand: its heredocs put values in
// quotes unescaped (progress.json `last_output` routinely holds raw JSON), and it writes files
// in place, so a reader can catch one half-written. Only scalar-ish top-level fields are
// recovered; the caller's schema decides whether what was found is enough. A control character
// inside a string (JSON requires it escaped) is taken as that character, escaped: the agent can
// write these files, and a reader must take any byte without throwing.

// The value is all after the colon; its spaces and trailing comma are cut in code, not by the
// pattern: `(.*?)\s*,?\s*$` backtracks on a long run of spaces for minutes (the agent writes these).
const KEY_LINE = /^(\s*)"([^"\\]+)"\s*:(.*)$/;
const INLINE_FIELD = /"([^"\\]+)"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/g;

/** Strict JSON first; otherwise the fields that can be recovered, or undefined if none. */
export function parseLenientJson(text: string): Record<string, unknown> | undefined {
  const whole = parseJsonWithRawControls(text);
  if (whole !== undefined) return isPlainObject(whole) ? whole : undefined;
  let found = salvageLines(text);
  if (Object.keys(found).length === 0) found = salvageInline(text);
  return Object.keys(found).length > 0 ? found : undefined;
}

// A one-line object (`{"status": "executing", ...}`): well-formed scalar fields only.
function salvageInline(text: string): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  for (const [, key, raw] of text.matchAll(INLINE_FIELD)) {
    if (key === undefined || raw === undefined || key in found) continue;
    const value = parseJsonWithRawControls(raw);
    if (value !== undefined) found[key] = value;
  }
  return found;
}

// Pretty-printed files have one top-level field per line, at the shallowest indentation.
function salvageLines(text: string): Record<string, unknown> {
  const fields: Array<{ indent: number; key: string; raw: string }> = [];
  let top = Infinity;
  for (const line of text.split(/\r?\n/)) {
    const match = KEY_LINE.exec(line);
    if (!match) continue;
    const indent = match[1]!.length;
    fields.push({ indent, key: match[2]!, raw: valueText(match[3]!) });
    // Not Math.min(...all): a file of many fields would overflow the stack.
    if (indent < top) top = indent;
  }
  const found: Record<string, unknown> = {};
  for (const { indent, key, raw } of fields) {
    if (indent !== top || key in found) continue;
    const value = parseValue(raw);
    if (value !== undefined) found[key] = value;
  }
  return found;
}

// A field's value as written: without the spaces around it and one trailing comma.
function valueText(afterColon: string): string {
  const text = afterColon.trim();
  return text.endsWith(',') ? text.slice(0, -1).trimEnd() : text;
}

function parseValue(raw: string): unknown {
  const value = parseJsonWithRawControls(raw);
  if (value !== undefined) return value;
  // An unescaped string: keep its raw inside. Anything else (a half-written value) is lost.
  if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) return raw.slice(1, -1);
  return undefined;
}

/**
 * JSON.parse of `text`, taking a raw control character inside a string as if it were escaped
 * (U+0000–U+001F, which JSON.parse refuses there); undefined when it is not JSON even so.
 */
export function parseJsonWithRawControls(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    if (!RAW_CONTROL.test(text)) return undefined;
  }
  try {
    return JSON.parse(escapeControlsInStrings(text));
  } catch {
    return undefined;
  }
}

const RAW_CONTROL = /[\x00-\x1f]/;

// Escapes the control characters found between a string's quotes; whitespace between tokens
// (a pretty file's newlines and indentation) stays as it is.
function escapeControlsInStrings(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    const code = char.charCodeAt(0);
    if (inString && code < 0x20) {
      out += `\\u${code.toString(16).padStart(4, '0')}`;
      continue;
    }
    out += char;
    if (char === '"') inString = !inString;
    else if (char === '\\' && inString) out += text[++i] ?? '';
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
