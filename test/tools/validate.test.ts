/**
 * POST /tools/validate: the checks of POST /tools without saving. Every body POST /tools
 * refuses, it refuses with the same status and JsonError; a body POST /tools accepts, it
 * answers {valid: true} and writes nothing (no tool, no audit row).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { makeSecret, toolBody } from '../helpers/tools.ts';

let h: Harness;
let key: string;
let strangerSecret: string;
beforeAll(async () => {
  h = harness();
  key = h.user().key;
  const stranger = h.user().key;
  strangerSecret = await makeSecret(h, stranger, { type: 'bearer', provider: 'theirs', token: 'tok-of-someone-else-1234' });
});
afterAll(() => h.close());

const base = toolBody('https://api.example.com/cities/{city}');
const params = (parameters: unknown) => ({ ...base, schema: { parameters } });

describe('POST /tools/validate', () => {
  it('answers {valid: true} for a body POST /tools accepts, and saves nothing', async () => {
    const res = await h.call('POST', '/tools/validate', { key, body: base });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ valid: true });
    expect((await h.call('GET', '/tools', { key })).body.tools).toEqual([]);
    expect((await h.call('GET', '/audit', { key })).body.events).toEqual([]);
  });

  it.each([
    ['parameters not of type object', params({ type: 'string' })],
    ['a misspelt type', params({ type: 'object', properties: { city: { type: 'strng' } } })],
    ['a remote $ref', params({ type: 'object', properties: { city: { $ref: 'https://evil.example/s.json' } } })],
    ['an unresolvable $ref', params({ type: 'object', properties: { city: { $ref: '#/definitions/nope' } } })],
    ['an invalid regex', params({ type: 'object', properties: { city: { type: 'string', pattern: '(' } } })],
    ['a backreference RE2 refuses', params({ type: 'object', properties: { city: { type: 'string', pattern: '(a)\\1' } } })],
    ['minLength as a string', params({ type: 'object', properties: { city: { type: 'string', minLength: '1' } } })],
    ['a placeholder that is not a parameter', toolBody('https://api.example.com/x/{country}')],
    ['a non-http URL', toolBody('ftp://api.example.com/x')],
    ['a bad name', { ...base, name: 'get weather!' }],
    ['auth over http', { ...toolBody('http://api.example.com/cities/{city}'), auth: { secret_id: 'sec_x' } }],
    ['a client tool with auth', { ...base, config: { type: 'client' }, auth: { secret_id: 'sec_x' } }],
    ['an unknown field', { ...base, colour: 'red' }],
    ['a secret that does not exist', { ...base, auth: { secret_id: 'sec_missing' } }],
    ["another person's secret", { ...base, auth: { secret_id: '(stranger)' } }],
  ])('refuses %s exactly as POST /tools does', async (_what, raw) => {
    const body = JSON.parse(JSON.stringify(raw).replace('(stranger)', strangerSecret));
    const created = await h.call('POST', '/tools', { key, body });
    const checked = await h.call('POST', '/tools/validate', { key, body });
    expect(created.status).toBeGreaterThanOrEqual(400);
    expect(checked.status).toBe(created.status);
    expect(checked.body).toEqual(created.body);
    expect(checked.body.description).toBeTruthy();
  });

  it('needs a caller, and refuses a body that is not JSON', async () => {
    expect((await h.call('POST', '/tools/validate', { body: base })).status).toBe(401);
    const res = await h.call('POST', '/tools/validate', { key, raw: '{"name": ', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.kind).toBe('BadRequestError');
  });
});
