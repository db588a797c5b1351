// The one secret redactor: built once from the environment at start-up (createDeps) and used on
// everything ralph writes or shows — ralph.log, stderr, live output and live.log, the agent's
// transcripts, metrics, status, .response_analysis, the run record and the loop context sent
// to the agent. It masks the value of every environment variable whose name says it is a
// secret, and well-known token shapes wherever they come from. Pure.

export type Redactor = (text: string) => string;

export const REDACTED = '[REDACTED]';

// Shorter values ("1", "x", "true") would mask ordinary words; real keys and tokens are longer.
const MIN_SECRET_LENGTH = 8;
const SECRET_NAME = /TOKEN|SECRET|KEY|PASSWORD|CREDENTIAL/i;

// Token shapes, as one alternation so the text is scanned once (the transcripts go through here).
const TOKEN_SHAPES = [
  'sk-ant-[A-Za-z0-9_-]+',
  // OpenAI project, service-account and admin keys.
  '\\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{8,}',
  'ghp_[A-Za-z0-9]+',
  // GitHub OAuth, user-to-server, server-to-server and refresh tokens.
  '\\bgh[ousr]_[A-Za-z0-9]{8,}',
  'github_pat_[A-Za-z0-9_]+',
  // Slack bot, user, app and refresh tokens.
  '\\bxox[abposr]-[A-Za-z0-9-]{8,}',
  // AWS access key ids (long-term and temporary).
  '\\b(?:AKIA|ASIA)[A-Z0-9]{16}\\b',
];
// The token after `Bearer ` (any case) is masked, the word kept.
const SECRET_SHAPES = new RegExp(`${TOKEN_SHAPES.join('|')}|\\b([Bb][Ee][Aa][Rr][Ee][Rr]\\s+)[A-Za-z0-9._~+/=-]+`, 'g');

/** Whether an environment variable of this name holds a secret. */
export function isSecretEnvName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export function createRedactor(env: NodeJS.ProcessEnv): Redactor {
  const values = [
    ...new Set(
      Object.entries(env)
        .filter(([name]) => isSecretEnvName(name))
        .map(([, value]) => value?.trim())
        .filter((v): v is string => v !== undefined && v.length >= MIN_SECRET_LENGTH),
    ),
  ].sort((a, b) => b.length - a.length);
  return (text) => {
    if (text === '') return text;
    let out = text;
    for (const value of values) if (out.includes(value)) out = out.split(value).join(REDACTED);
    return out.replace(SECRET_SHAPES, (_match, bearer: string | undefined) => (bearer ? `${bearer}${REDACTED}` : REDACTED));
  };
}

/** Masks secret values from `env` and well-known token shapes in `text` (builds a redactor each call). */
export function redactSecrets(text: string, env: NodeJS.ProcessEnv = {}): string {
  return createRedactor(env)(text);
}

/** Applies `redact` to every string inside a JSON-like value (objects, arrays), keeping its shape. */
export function redactDeep<T>(value: T, redact: Redactor): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, redact)])) as T;
  }
  return value;
}
