import { describe, expect, it } from 'vitest';
import { createRedactor, isSecretEnvName, redactDeep, REDACTED } from '../../../lib/text/redaction.js';

describe('createRedactor', () => {
  it('masks the value of every variable whose name says it is a secret, 8 characters or more', () => {
    const redact = createRedactor({
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCY',
      ANTHROPIC_AUTH_TOKEN: 'auth-token-value-1',
      db_password: 'hunter2hunter2',
      MY_CREDENTIALS: 'c-r-e-d-s-123',
      SHORT_TOKEN: 'abc',
      HOME: '/home/someone-else',
    });
    expect(redact('a wJalrXUtnFEMI/K7MDENG/bPxRfiCY b auth-token-value-1 c hunter2hunter2 d c-r-e-d-s-123 e abc f /home/someone-else')).toBe(
      `a ${REDACTED} b ${REDACTED} c ${REDACTED} d ${REDACTED} e abc f /home/someone-else`,
    );
  });

  it.each([
    ['an OpenAI project key', 'sk-proj-AbCdEf0123456789_-xyz'],
    ['a GitHub OAuth token', 'gho_16C7e42F292c6912E7710c838347Ae178B4a'],
    ['a GitHub user-to-server token', 'ghu_16C7e42F292c6912E7710c838347Ae178B4a'],
    ['a GitHub server-to-server token', 'ghs_16C7e42F292c6912E7710c838347Ae178B4a'],
    ['a Slack bot token', 'xoxb-123456789012-abcdefABCDEF'],
    ['a Slack user token', 'xoxp-123456789012-abcdefABCDEF'],
    ['an AWS access key id', 'AKIAIOSFODNN7EXAMPLE'],
  ])('masks %s wherever it appears', (_name, token) => {
    expect(createRedactor({})(`key=${token}; done`)).toBe(`key=${REDACTED}; done`);
  });

  it('leaves words that only look a little like tokens', () => {
    const text = 'laughs_loudly at the xox- pattern; AKIA is a prefix; sk-proj- alone';
    expect(createRedactor({})(text)).toBe(text);
  });
});

describe('isSecretEnvName', () => {
  it('goes by the name, whatever the case', () => {
    expect(['GITHUB_TOKEN', 'aws_secret_access_key', 'OPENAI_API_KEY', 'PGPASSWORD', 'GCP_CREDENTIALS'].every(isSecretEnvName)).toBe(true);
    expect(['HOME', 'PATH', 'CLAUDE_MODEL'].some(isSecretEnvName)).toBe(false);
  });
});

describe('redactDeep', () => {
  it('redacts every string of a JSON value and keeps its shape', () => {
    const redact = createRedactor({ X_TOKEN: 'value-123456' });
    expect(redactDeep({ a: 'value-123456', b: [1, 'x value-123456'], c: { d: true, e: null } }, redact)).toEqual({
      a: REDACTED,
      b: [1, `x ${REDACTED}`],
      c: { d: true, e: null },
    });
  });
});
