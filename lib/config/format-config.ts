// `ralph --config`: every effective value and where it came from, as aligned text or JSON.
// Values that may be secrets (a key named like *_KEY/*_TOKEN/*_SECRET, or a value shaped like
// an API key or token) are shown as *** so the output is safe to paste into an issue. Keys that
// are accepted for compatibility but not used say so.

import type { ConfigSource, LoadConfigResult } from './load-config.js';
import { CONFIG_KEYS, CONFIG_SCHEMA, type ConfigKey, type ConfigValue } from './schema.js';

const MASK = '***';
const SECRET_NAME_PART = /^(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$/;
const SECRET_VALUE = /(sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|xox[abprs]-[A-Za-z0-9-]{10,})/;
const VALUE_COLUMN_MAX = 40;

export function formatConfigText(result: LoadConfigResult): string {
  const rows = CONFIG_KEYS.map((key) => ({
    key,
    value: renderValue(displayValue(key, result.config[key])),
    source: `${describeSource(result.sources[key])}${CONFIG_SCHEMA[key].unused ? ', not used' : ''}`,
  }));
  const keyWidth = Math.max(...rows.map((r) => r.key.length));
  const valueWidth = Math.min(VALUE_COLUMN_MAX, Math.max(...rows.map((r) => r.value.length)));
  return rows.map((r) => `${r.key.padEnd(keyWidth)} = ${r.value.padEnd(valueWidth)}  (${r.source})\n`).join('');
}

export type ConfigJson = Record<ConfigKey, { value: ConfigValue; source: ConfigSource['kind']; detail?: string; unused?: true }>;

export function formatConfigJson(result: LoadConfigResult): ConfigJson {
  const out = {} as ConfigJson;
  for (const key of CONFIG_KEYS) {
    const { kind, detail } = result.sources[key];
    out[key] = {
      value: displayValue(key, result.config[key]),
      source: kind,
      ...(detail === undefined ? {} : { detail }),
      ...(CONFIG_SCHEMA[key].unused ? { unused: true as const } : {}),
    };
  }
  return out;
}

/** True when a value must not be printed: its key names a secret or the value looks like one. */
export function isSecretSetting(key: string, value: ConfigValue): boolean {
  const text = Array.isArray(value) ? value.join(',') : String(value);
  if (text === '') return false;
  return key.split('_').some((part) => SECRET_NAME_PART.test(part)) || SECRET_VALUE.test(text);
}

function displayValue(key: ConfigKey, value: ConfigValue): ConfigValue {
  return isSecretSetting(key, value) ? MASK : value;
}

function renderValue(value: ConfigValue): string {
  const text = Array.isArray(value) ? value.join(',') : String(value);
  return text === '' ? '""' : text;
}

function describeSource(source: ConfigSource): string {
  return source.detail ?? source.kind;
}
