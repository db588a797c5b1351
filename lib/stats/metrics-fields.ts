// The metrics.jsonl fields ralph-stats reads, by index, and the kinds of value a field can hold.
// Bash-written lines carry only timestamp, loop, duration, success and calls; ours add the rest.

export const FIELD_NAMES = [
  'timestamp',
  'loop',
  'duration',
  'success',
  'calls',
  'tokens',
  'cost_usd',
  'loop_cost_usd',
  'files_changed',
  'exit_signal',
  'tests_status',
  'outcome',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_creation_tokens',
] as const;

export type MetricsFieldName = (typeof FIELD_NAMES)[number];

/** Field indices, for the typed arrays the scanner fills. */
export const F = Object.fromEntries(FIELD_NAMES.map((name, index) => [name, index])) as {
  readonly [K in MetricsFieldName]: number;
};

export const FIELD_COUNT = FIELD_NAMES.length;

// What a field held on the line just scanned.
export const ABSENT = 0;
export const NUMBER = 1;
export const TRUE = 2;
export const FALSE = 3;
export const STRING = 4;
export const NULL = 5;
/** An object or array: present, but nothing ralph-stats can use. */
export const OTHER = 6;

/** The fields the Bash tool's four numbers need; `timestamp` joins them for --since. */
export const BASH_FIELDS: readonly number[] = [F.success, F.duration, F.calls];

/** Every field: the table and the full JSON report use them all. */
export const ALL_FIELDS: readonly number[] = FIELD_NAMES.map((_, index) => index);
