import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { makeTool, toolBody } from '../helpers/tools.ts';

/**
 * Validating one tool call must not block the process, whatever the schema and the input.
 * Ajv's uniqueItems compared every pair of 40,000 objects: 23 s with every other request
 * waiting. The timeout below is what fails these tests on a quadratic check; no time is
 * measured (bench/tool-schemas.ts prints the times).
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
const uniqueObjects = { type: 'object', properties: { xs: { type: 'array', uniqueItems: true } }, required: ['xs'] };
const distinct = (n: number) => Array.from({ length: n }, (_, i) => ({ k: i }));

describe('uniqueItems on 40,000 objects', () => {
  it('answers a 400 naming the two equal items, and a request made at the same time is answered too', { timeout: 15_000 }, async () => {
    const tool = await makeTool(h, key, withParameters(uniqueObjects));
    // The equal pair first: the pairwise check met it last.
    const xs = [{ k: 0 }, ...distinct(40_000)];
    const [call, health] = await Promise.all([h.call('POST', `/tools/${tool}/calls`, { key, body: { input: { xs } } }), h.call('GET', '/health')]);
    expect(call.status).toBe(400);
    expect(call.body.kind).toBe('ValidationError');
    expect(call.body.details).toEqual([{ field: 'input.xs', message: 'must NOT have duplicate items (items ## 0 and 1 are identical)' }]);
    expect(health.status).toBe(200);
  });

  it('lets 40,000 distinct objects through to the upstream', { timeout: 15_000 }, async () => {
    const tool = await makeTool(h, key, withParameters(uniqueObjects));
    const call = await h.call('POST', `/tools/${tool}/calls`, { key, body: { input: { xs: distinct(40_000) } } });
    // Valid input goes on to the upstream, which nothing listens on.
    expect(call.body.kind).toBe('BadGatewayError');
  });
});

describe('a schema and an input that would take too much work together', () => {
  it('answers a 400 at input, without validating', { timeout: 15_000 }, async () => {
    const definitions: Record<string, unknown> = { d30: { type: 'string' } };
    for (let i = 29; i >= 0; i--) definitions[`d${i}`] = { allOf: [{ $ref: `#/definitions/d${i + 1}` }, { $ref: `#/definitions/d${i + 1}` }] };
    const tool = await makeTool(h, key, withParameters({ type: 'object', properties: { x: { $ref: '#/definitions/d0' } }, definitions }));
    const call = await h.call('POST', `/tools/${tool}/calls`, { key, body: { input: { x: 'a' } } });
    expect(call.status).toBe(400);
    expect(call.body.kind).toBe('ValidationError');
    expect(call.body.details).toEqual([{ field: 'input', message: expect.stringMatching(/^is too large for this tool's schema/) }]);
  });
});
