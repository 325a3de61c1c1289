import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { cityParameters, makeTool, toolBody } from '../helpers/tools.ts';

let h: Harness;
let key: string;
beforeAll(() => {
  h = harness();
  key = h.user().key;
});
afterAll(() => h.close());

const base = toolBody('https://api.example.com/cities/{city}');

describe('POST /tools', () => {
  it('answers the tool as stored, method in upper case', async () => {
    const res = await h.call('POST', '/tools', { key, body: { ...base, config: { type: 'server', url: base.config.url, method: 'get' } } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'tool', name: 'get_weather', provider: 'weather-api', schema: { parameters: cityParameters }, config: { type: 'server', method: 'GET' } });
    expect(res.body.auth).toBeUndefined();
    expect(res.body.id).toMatch(/^tool_/);
  });

  it.each([
    ['parameters not of type object', { ...base, schema: { parameters: { type: 'string' } } }, /type/],
    ['an invalid JSON Schema', { ...base, schema: { parameters: { type: 'object', properties: { city: { type: 'strng' } } } } }, /schema\.parameters/],
    ['a remote $ref', { ...base, schema: { parameters: { type: 'object', properties: { city: { $ref: 'https://evil.example/s.json' } } } } }, /ref/],
    ['an unresolvable $ref', { ...base, schema: { parameters: { type: 'object', properties: { city: { $ref: '#/definitions/nope' } } } } }, /ref|resolve/i],
    ['an invalid regex', { ...base, schema: { parameters: { type: 'object', properties: { city: { type: 'string', pattern: '(' } } } } }, /pattern|regular/i],
    ['a placeholder that is not a parameter', toolBody('https://api.example.com/x/{country}'), /country/],
    ['a placeholder in the host', toolBody('https://{city}.example.com/x'), /host/],
    ['a non-http URL', toolBody('ftp://api.example.com/x'), /url/],
    ['an unknown method', { ...base, config: { type: 'server', url: base.config.url, method: 'TRACE' } }, /method/],
    ['a bad name', { ...base, name: 'get weather!' }, /name/],
    ['a client tool with auth', { ...base, config: { type: 'client' }, auth: { secret_id: 'sec_x' } }, /client tool/],
    ['an unknown field', { ...base, colour: 'red' }, /colour/],
    ['a missing schema', { ...base, schema: undefined }, /schema/],
    ['an auth secret that does not exist', { ...base, auth: { secret_id: 'sec_missing' } }, /Secret not found/],
  ])('refuses %s with 400 or 404 and the reason', async (_what, body, reason) => {
    const res = await h.call('POST', '/tools', { key, body });
    expect([400, 404]).toContain(res.status);
    expect(JSON.stringify(res.body)).toMatch(reason);
    expect(res.body.kind).toMatch(/BadRequestError|NotFoundError/);
  });

  it('lists newest first with a page token, gets, replaces and deletes', async () => {
    const { key: k } = h.user();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await makeTool(h, k, { ...base, name: `t${i}` }));
    const page1 = await h.call('GET', '/tools?limit=2', { key: k });
    expect(page1.body.tools.map((t: { id: string }) => t.id)).toEqual([ids[2], ids[1]]);
    const page2 = await h.call('GET', `/tools?limit=2&token=${page1.body.token}`, { key: k });
    expect(page2.body.tools.map((t: { id: string }) => t.id)).toEqual([ids[0]]);
    expect(page2.body.token).toBeUndefined();
    const put = await h.call('PUT', `/tools/${ids[0]}`, { key: k, body: { ...base, name: 'renamed', description: 'new' } });
    expect(put.body).toMatchObject({ id: ids[0], name: 'renamed', description: 'new' });
    expect(put.body.updated_at >= put.body.created_at).toBe(true);
    const partial = await h.call('PUT', `/tools/${ids[0]}`, { key: k, body: { name: 'only-name' } });
    expect(partial.status).toBe(400);
    expect((await h.call('DELETE', `/tools/${ids[0]}`, { key: k })).body.name).toBe('renamed');
    expect((await h.call('GET', `/tools/${ids[0]}`, { key: k })).status).toBe(404);
  });
});
