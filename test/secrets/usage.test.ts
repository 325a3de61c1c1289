/**
 * `used_by` on GET /secrets and GET /secrets/{id}: the tools that send a secret and the
 * agents that use it (as their model's key, or through one of those tools), only the
 * caller's own, with totals; what the studio's secrets page shows beside each secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { toneCatalogue } from '../helpers/tone-voice.ts';
import { CANARY } from '../helpers/canaries.ts';
import { makeSecret, makeTool, toolBody } from '../helpers/tools.ts';

let h: Harness;
beforeAll(() => {
  h = harness({}, { voices: toneCatalogue('local').catalogue });
});
afterAll(() => h.close());

const agent = (name: string, llm: Record<string, unknown>) => ({
  preview_name: name,
  presenter: { type: 'clip', presenter_id: 'eileen-Nc7kQ2rT5x' },
  llm: { provider: 'openai', model: 'gpt-4o-mini', base_url: 'https://llm.test/v1', instructions: 'Be brief.', ...llm },
});

async function makeAgent(key: string, body: Record<string, unknown>): Promise<string> {
  const res = await h.call('POST', '/agents', { key, body });
  if (res.status !== 201) throw new Error(`agent create answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

const none = { tools: [], tools_total: 0, agents: [], agents_total: 0 };

describe('used_by', () => {
  it('names the tools and agents that use a secret, in the list and in GET /secrets/{id}', async () => {
    const u = h.user();
    const model = await makeSecret(h, u.key, { type: 'bearer', provider: 'openai', token: CANARY.bearer });
    const weather = await makeSecret(h, u.key, { type: 'api_key', provider: 'weather', api_key: CANARY.apiKey });
    const unused = await makeSecret(h, u.key, { type: 'basic', provider: 'crm', username: CANARY.basicUser, password: CANARY.basicPassword });
    const tool = await makeTool(h, u.key, toolBody('https://api.weather.test/v1?q={city}', { secretId: weather, name: 'get_weather' }));
    const forecast = await makeTool(h, u.key, toolBody('https://api.weather.test/v1/f?q={city}', { secretId: weather, name: 'get_forecast' }));
    const emma = await makeAgent(u.key, agent('Emma', { secret_id: model, tools: [tool] }));
    const both = await makeAgent(u.key, agent('Zed', { secret_id: weather, tools: [tool, forecast] }));
    const plain = await makeAgent(u.key, agent('Plain', { secret_id: model }));

    const one = await h.call('GET', `/secrets/${weather}`, { key: u.key });
    expect(one.status).toBe(200);
    expect(one.body.used_by).toEqual({
      tools: [{ id: forecast, name: 'get_forecast' }, { id: tool, name: 'get_weather' }],
      tools_total: 2,
      agents: [
        { id: both, name: 'Zed', model: true, tool_ids: expect.arrayContaining([tool, forecast]) },
        { id: emma, name: 'Emma', model: false, tool_ids: [tool] },
      ],
      agents_total: 2,
    });
    expect((await h.call('GET', `/secrets/${model}`, { key: u.key })).body.used_by).toEqual({
      tools: [],
      tools_total: 0,
      agents: [{ id: plain, name: 'Plain', model: true, tool_ids: [] }, { id: emma, name: 'Emma', model: true, tool_ids: [] }],
      agents_total: 2,
    });

    const list = await h.call('GET', '/secrets', { key: u.key });
    expect(list.status).toBe(200);
    const byId = new Map((list.body as { id: string; used_by: unknown }[]).map((s) => [s.id, s.used_by]));
    expect(byId.get(unused)).toEqual(none);
    expect(byId.get(weather)).toEqual(one.body.used_by);
    expect(JSON.stringify(list.body)).not.toContain(CANARY.apiKey);

    // The usage the 409 speaks of is the one GET shows; once the tools and agents let go, it is empty and the secret goes.
    const refused = await h.call('DELETE', `/secrets/${weather}`, { key: u.key });
    expect(refused.status).toBe(409);
    expect(refused.body.details.tool_ids.sort()).toEqual([tool, forecast].sort());
    for (const a of [both, emma]) expect((await h.call('DELETE', `/agents/${a}`, { key: u.key })).status).toBe(200);
    for (const t of [tool, forecast]) expect((await h.call('DELETE', `/tools/${t}`, { key: u.key })).status).toBe(200);
    expect((await h.call('GET', `/secrets/${weather}`, { key: u.key })).body.used_by).toEqual(none);
    expect((await h.call('DELETE', `/secrets/${weather}`, { key: u.key })).status).toBe(200);
  });

  it('lists at most 20 tools and counts them all', async () => {
    const u = h.user();
    const secret = await makeSecret(h, u.key, { type: 'bearer', provider: 'crm', token: CANARY.bearer });
    for (let i = 0; i < 22; i++) await makeTool(h, u.key, toolBody('https://api.crm.test/v1?q={city}', { secretId: secret, name: `tool_${i}` }));
    const used = (await h.call('GET', `/secrets/${secret}`, { key: u.key })).body.used_by;
    expect(used.tools).toHaveLength(20);
    expect(used.tools_total).toBe(22);
    expect(used.tools[0].name).toBe('tool_21');
  });

  it('another user sees neither the secret nor its usage', async () => {
    const u = h.user();
    const other = h.user();
    const secret = await makeSecret(h, u.key, { type: 'bearer', provider: 'crm', token: CANARY.bearer });
    await makeTool(h, u.key, toolBody('https://api.crm.test/v1?q={city}', { secretId: secret }));
    expect((await h.call('GET', `/secrets/${secret}`, { key: other.key })).status).toBe(404);
    expect((await h.call('GET', '/secrets', { key: other.key })).body).toEqual([]);
  });
});
