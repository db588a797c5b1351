// The fields of a state file the dashboard shows, read from its JSON without the loop's zod
// schemas: zod is most of what `ralph-monitor --once` would load (start-up budgets,
// docs/performance.md). Each field is read with the tolerance of the loop's schemas
// (lib/state/schema-fields.ts): null or absent takes the field's default, a number written as
// text is a number, a number or boolean is text where text is expected, "true" and "false" are
// booleans. A value of any other kind is not shown, and the first one in a file becomes that
// file's warning. A test holds that a file the loop accepts shows as the loop reads it.

export type JsonObject = Record<string, unknown>;

export interface StateFields {
  str(key: string, fallback?: string): string | undefined;
  num(key: string, fallback?: number): number | undefined;
  /** A number without its fraction. */
  int(key: string, fallback?: number): number | undefined;
  bool(key: string, fallback?: boolean): boolean | undefined;
  /** Text that should be one of `allowed`: another text is shown, with the file's warning. */
  oneOf(key: string, allowed: readonly string[], fallback: string): string | undefined;
  /** A list of texts; an item of another kind is left out (and warned about). */
  strings(key: string): string[] | undefined;
  /** A JSON object within the file. */
  object(key: string): StateFields | undefined;
  /** The JSON objects of a list (`queue`, `units`); an item of another kind is left out. */
  objects(key: string): StateFields[] | undefined;
  /** Whether the field holds anything. */
  has(key: string): boolean;
  /** The field's JSON value as it is, for a view that shows each kind its own way. */
  value(key: string): unknown;
}

const NUMERIC = /^\s*-?\d+(\.\d+)?\s*$/;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The fields of `obj`, read from the file `file`; the first value of the wrong kind adds
 * "<file> has an unexpected value (<field>: …); showing what could be read" to `warnings`.
 */
export function readStateFields(file: string, obj: JsonObject, warnings: string[]): StateFields {
  let warned = false;
  const problem = (path: string, expected: string, value: unknown): undefined => {
    if (!warned) warnings.push(`${file} has an unexpected value (${path}: expected ${expected}, received ${kindOf(value)}); showing what could be read`);
    warned = true;
    return undefined;
  };
  return fieldsOf(obj, '', problem);
}

type Problem = (path: string, expected: string, value: unknown) => undefined;

function fieldsOf(obj: JsonObject, prefix: string, problem: Problem): StateFields {
  const at = (key: string) => `${prefix}${key}`;
  const num = (key: string, fallback?: number): number | undefined => {
    const value = obj[key];
    if (value === undefined || value === null || value === '') return fallback;
    const n = typeof value === 'string' && NUMERIC.test(value) ? Number(value) : value;
    return typeof n === 'number' && Number.isFinite(n) ? n : problem(at(key), 'a number', value);
  };
  const str = (key: string, fallback?: string): string | undefined => textOf(obj[key], fallback, (value) => problem(at(key), 'text', value));
  return {
    str,
    num,
    int: (key, fallback) => {
      const n = num(key, fallback);
      return n === undefined ? undefined : Math.trunc(n);
    },
    bool: (key, fallback) => {
      const value = obj[key];
      if (value === undefined || value === null) return fallback;
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      return problem(at(key), 'true or false', value);
    },
    oneOf: (key, allowed, fallback) => {
      const text = str(key, fallback);
      return text === undefined || allowed.includes(text) ? text : (problem(at(key), allowed.join(' or '), text) ?? text);
    },
    strings: (key) => {
      const list = listOf(obj[key], at(key), problem);
      return list?.flatMap((item, i) => textOf(item, undefined, (value) => problem(`${at(key)}.${i}`, 'text', value)) ?? []);
    },
    object: (key) => {
      const value = obj[key];
      if (value === undefined || value === null) return undefined;
      return isJsonObject(value) ? fieldsOf(value, `${at(key)}.`, problem) : problem(at(key), 'an object', value);
    },
    objects: (key) =>
      listOf(obj[key], at(key), problem)?.flatMap((item, i) =>
        isJsonObject(item) ? [fieldsOf(item, `${at(key)}.${i}.`, problem)] : (problem(`${at(key)}.${i}`, 'an object', item) ?? []),
      ),
    has: (key) => obj[key] !== undefined && obj[key] !== null,
    value: (key) => obj[key],
  };
}

function textOf(value: unknown, fallback: string | undefined, wrong: (value: unknown) => undefined): string | undefined {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : wrong(value);
}

function listOf(value: unknown, path: string, problem: Problem): unknown[] | undefined {
  if (value === undefined || value === null) return undefined;
  return Array.isArray(value) ? value : problem(path, 'a list', value);
}

/** The kind of a JSON value, never the value itself: the agent can write these files. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : typeof value;
}
