import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createLogger } from '../../src/log.ts';

const collect = (base?: Record<string, unknown>) => {
  const lines: string[] = [];
  return { lines, log: createLogger((l) => lines.push(l), base) };
};

describe('logger', () => {
  it('writes one JSON object per line: ISO time, string level, msg, base fields, then the fields', () => {
    const { lines, log } = collect({ service: 'mimic' });
    log.info('one', { a: 1, skipped: undefined });
    log.warn('two');
    log.error('three', { nested: { b: [1, 2] } });
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).not.toContain('\n');
    const [one, two, three] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(one).toEqual({ time: expect.any(String), level: 'info', msg: 'one', service: 'mimic', a: 1 });
    // msg leads the fields: operators (and test/e2e) match `"msg":"...","field":...`.
    expect(lines[0]).toMatch(/"service":"mimic","msg":"one","a":1}$/);
    expect(new Date(one!.time as string).toISOString()).toBe(one!.time);
    expect(two).toMatchObject({ level: 'warn', msg: 'two' });
    expect(three).toMatchObject({ level: 'error', msg: 'three', nested: { b: [1, 2] } });
  });

  it('censors credential fields by name, at the top level and in headers', () => {
    const { lines, log } = collect();
    const secret = randomBytes(12).toString('hex');
    log.info('call', { token: secret, password: secret, headers: { authorization: secret, accept: 'text/plain' }, kept: 'visible' });
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(lines[0]).not.toContain(secret);
    expect(line).toMatchObject({ token: '[redacted]', password: '[redacted]', headers: { authorization: '[redacted]', accept: 'text/plain' }, kept: 'visible' });
  });

  it('masks a credential inside free text, in the message or any field', () => {
    const { lines, log } = collect();
    const key = `mimic_${randomBytes(32).toString('base64url')}`;
    log.error(`failed with ${key}`, { error: `upstream said Bearer ${key.slice(6)}`, url: '/media/x?expires=1&signature=abcdef' });
    expect(lines[0]).not.toContain(key.slice(6));
    expect(lines[0]).toContain('mimic_[redacted]');
    expect(lines[0]).toContain('Bearer [redacted]');
    expect(lines[0]).toContain('signature=[redacted]');
  });
});
