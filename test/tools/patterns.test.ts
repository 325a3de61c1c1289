import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { makeTool, toolBody } from '../helpers/tools.ts';
import { sqliteOf } from '../helpers/stores.ts';

/**
 * User patterns run on RE2 (linear time). On JavaScript's backtracking engine, `^(a+)+$`
 * against many `a`s and a `!` never finishes and freezes every other request with it: the
 * generous timeout below is what fails these tests on such an engine, never a measured time.
 */
let h: Harness;
let key: string;

beforeAll(() => {
  h = harness({ MIMIC_EGRESS_ALLOW: 'localhost' });
  key = h.user().key;
});
afterAll(async () => {
  await h.close();
});

const withParameters = (parameters: object) => ({ ...toolBody('https://localhost:9/x'), schema: { parameters } });
const catastrophic = { type: 'object', properties: { word: { type: 'string', pattern: '^(a+)+$' } }, required: ['word'] };

describe('a catastrophic pattern in schema.parameters', () => {
  it('answers the call with a 400 ValidationError, and a request made at the same time is answered too', { timeout: 60_000 }, async () => {
    const tool = await makeTool(h, key, withParameters(catastrophic));
    const [call, openapi, health] = await Promise.all([
      h.call('POST', `/tools/${tool}/calls`, { key, body: { input: { word: `${'a'.repeat(50_000)}!` } } }),
      h.call('GET', '/openapi.json'),
      h.call('GET', '/health'),
    ]);
    expect(call.status).toBe(400);
    expect(call.body.kind).toBe('ValidationError');
    expect(call.body.details).toEqual([{ field: 'input.word', message: 'must match the pattern ^(a+)+$' }]);
    expect(openapi.status).toBe(200);
    expect(openapi.body.openapi).toMatch(/^3\./);
    expect(health.status).toBe(200);
  });

  it('still matches what it should', { timeout: 60_000 }, async () => {
    const tool = await makeTool(h, key, withParameters(catastrophic));
    const ok = await h.call('POST', `/tools/${tool}/calls`, { key, body: { input: { word: 'a'.repeat(50_000) } } });
    // Valid input passes validation and goes on to the upstream, which nothing listens on.
    expect(ok.status).toBe(502);
    expect(ok.body.kind).toBe('BadGatewayError');
  });

  it('applies to patternProperties keys as well', { timeout: 60_000 }, async () => {
    const tool = await makeTool(h, key, withParameters({ type: 'object', patternProperties: { '^(a+)+$': { type: 'integer' } } }));
    const res = await h.call('POST', `/tools/${tool}/calls`, { key, body: { input: { ['a'.repeat(50_000)]: 'not an integer', ['a'.repeat(30_000) + '!']: 'x' } } });
    expect(res.status).toBe(400);
    expect(res.body.kind).toBe('ValidationError');
    expect(res.body.details.map((d: { message: string }) => d.message)).toEqual(['must be integer']);
  });
});

describe('a pattern RE2 cannot run', () => {
  it.each([
    ['a backreference', { word: { type: 'string', pattern: '^(a)\\1$' } }, 'schema.parameters.properties.word.pattern', /backreference/],
    ['a named backreference', { word: { type: 'string', pattern: '^(?<x>a)\\k<x>$' } }, 'schema.parameters.properties.word.pattern', /backreference/],
    ['a lookahead', { word: { type: 'string', pattern: '^(?=a)a+$' } }, 'schema.parameters.properties.word.pattern', /lookahead or lookbehind/],
    ['a lookbehind', { word: { type: 'string', pattern: '(?<!b)a' } }, 'schema.parameters.properties.word.pattern', /lookahead or lookbehind/],
  ])('refuses %s at creation with a 400 naming the field', async (_, properties, field, reason) => {
    const res = await h.call('POST', '/tools', { key, body: withParameters({ type: 'object', properties }) });
    expect(res.status).toBe(400);
    expect(res.body.kind).toBe('BadRequestError');
    expect(res.body.description).toContain(field);
    expect(res.body.details).toHaveLength(1);
    expect(res.body.details[0].field).toBe(field);
    expect(res.body.details[0].message).toMatch(reason);
    expect(res.body.details[0].message).toContain('RE2');
  });

  it('refuses a patternProperties key with a backreference, naming the key', async () => {
    const res = await h.call('POST', '/tools', { key, body: withParameters({ type: 'object', patternProperties: { '(b)\\1': { type: 'string' } } }) });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: 'schema.parameters.patternProperties.(b)\\1', message: expect.stringMatching(/^key uses a backreference/) }]);
  });
});

describe('a tool stored before patterns ran on RE2', () => {
  it('answers its calls with a 400 ConfigError saying how to fix it, not a 500', async () => {
    const tool = await makeTool(h, key, withParameters({ type: 'object', properties: { word: { type: 'string', pattern: '^a+$' } } }));
    // As an older release stored it: a lookahead, which creation now refuses.
    const schema = JSON.stringify({ parameters: { type: 'object', properties: { word: { type: 'string', pattern: '^(?=a)a+$' } } } });
    sqliteOf(h.services.store).sqlite.prepare('UPDATE tools SET schema = ? WHERE id = ?').run(schema, tool);
    const res = await h.call('POST', `/tools/${tool}/calls`, { key, body: { input: { word: 'aaa' } } });
    expect(res.status).toBe(400);
    expect(res.body.kind).toBe('ConfigError');
    expect(res.body.description).toMatch(/uses lookahead or lookbehind.*PUT \/tools\//);
  });
});
