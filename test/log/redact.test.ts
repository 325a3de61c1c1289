import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { redact } from '../../src/log.ts';

const b64 = () => randomBytes(32).toString('base64url');

describe('log redaction', () => {
  it.each([
    ['an API key', `mimic_${b64()}`, 'mimic_[redacted]'],
    ['a webhook secret', `whsec_${b64()}`, 'whsec_[redacted]'],
    ['a worker token', `mwk_${b64()}`, 'mwk_[redacted]'],
    ['a bearer header', `Bearer ${b64()}`, 'Bearer [redacted]'],
    ['a signed URL query', `/media/x?expires=1&signature=${b64()}`, '/media/x?expires=1&signature=[redacted]'],
  ])('masks %s wherever it appears in a line', (_what, secret, masked) => {
    const line = JSON.stringify({ msg: 'oops', error: `failed with ${secret} in it` });
    const out = redact(line);
    expect(out).toContain(masked);
    expect(out).not.toContain(secret.replace(/^.*[= ]/, ''));
  });
});
