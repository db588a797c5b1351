// Salvages the top-level fields of JSON the Bash tool built by hand: its heredocs put values in
// quotes unescaped (progress.json `last_output` routinely holds raw JSON), and it writes files
// in place, so a reader can catch one half-written. Only scalar-ish top-level fields are
// recovered; the caller's schema decides whether what was found is enough.

const KEY_LINE = /^(\s*)"([^"\\]+)"\s*:\s*(.*?)\s*,?\s*$/;
const INLINE_FIELD = /"([^"\\]+)"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/g;

/** Strict JSON first; otherwise the fields that can be recovered, or undefined if none. */
export function parseLenientJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : undefined;
  } catch {
    // fall through to salvage
  }
  let found = salvageLines(text);
  if (Object.keys(found).length === 0) found = salvageInline(text);
  return Object.keys(found).length > 0 ? found : undefined;
}

// A one-line object (`{"status": "executing", ...}`): well-formed scalar fields only.
function salvageInline(text: string): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  for (const [, key, raw] of text.matchAll(INLINE_FIELD)) {
    if (key !== undefined && raw !== undefined && !(key in found)) found[key] = JSON.parse(raw);
  }
  return found;
}

// Pretty-printed files have one top-level field per line, at the shallowest indentation.
function salvageLines(text: string): Record<string, unknown> {
  const fields: Array<{ indent: number; key: string; raw: string }> = [];
  for (const line of text.split(/\r?\n/)) {
    const match = KEY_LINE.exec(line);
    if (match) fields.push({ indent: match[1]!.length, key: match[2]!, raw: match[3]! });
  }
  const top = Math.min(...fields.map((f) => f.indent));
  const found: Record<string, unknown> = {};
  for (const { indent, key, raw } of fields) {
    if (indent !== top || key in found) continue;
    const value = parseValue(raw);
    if (value !== undefined) found[key] = value;
  }
  return found;
}

function parseValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    // An unescaped string: keep its raw inside. Anything else (a half-written value) is lost.
    if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) return raw.slice(1, -1);
    return undefined;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
