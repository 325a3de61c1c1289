/**
 * The module contract, seen from outside: a capability declared as one module (routes with
 * their schemas, a job kind, a resource kind, a settings section) is served, documented,
 * run and configured by the platform with no other change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { harness, type Harness } from '../helpers/harness.ts';
import { MODULES } from '../../src/modules.ts';
import { defineModule } from '../../src/platform/module.ts';
import { ConfigurationError, int, loadConfig } from '../../src/config.ts';
import { createServices } from '../../src/services.ts';
import { jsonBody } from '../../src/http/body.ts';
import { validate } from '../../src/schemas/ajv.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const Greeting = Type.Object({ name: Type.String({ minLength: 1, maxLength: 20 }) }, { $id: 'Greeting', additionalProperties: false });
const ran: string[] = [];

const greetingsModule = defineModule({
  name: 'greetings',
  config: {
    variables: [{ name: 'MIMIC_GREETING_REPEAT', default: '1', description: 'how often to greet' }],
    load: (env) => ({ repeat: int(env, 'MIMIC_GREETING_REPEAT', 1, 1, 5) }),
  },
  create: (p, settings) => ({
    routes: [
      {
        method: 'post', path: '/greetings', summary: 'Greet', tag: 'Greetings', body: Greeting,
        ok: { status: 201, description: 'the greeting' }, errors: ['BadRequestError', 'AuthorizationError'],
        handler: async (c) => {
          const { name } = validate(Greeting, await jsonBody(c));
          await p.queue.enqueue({ kind: 'greeting.send', resourceId: name, userId: c.var.user.id, maxAttempts: 1 });
          return c.json({ text: `hello ${name} `.repeat(settings.repeat).trim() }, 201);
        },
      },
    ],
    jobs: [{ kind: 'greeting.send', handler: async (job) => void ran.push(job.resourceId), maxAttempts: 1, backoffMs: () => 1000, timeLimitMs: 10_000, onExhausted: () => {} }],
  }),
});

let h: Harness;
beforeAll(() => {
  h = harness({ MIMIC_GREETING_REPEAT: '2' }, {}, [...MODULES, greetingsModule]);
});
afterAll(() => h.close());

describe('capability modules', () => {
  it('have unique names, and no two modules mount the same operation', () => {
    const names = MODULES.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    const ops = h.services.routes.map((r) => `${r.method} ${r.path}`);
    expect(ops.filter((op, i) => ops.indexOf(op) !== i)).toEqual([]);
  });

  it('serves a module’s route behind the API key, validates with its schema, and documents it', async () => {
    const { key } = h.user();
    expect((await h.call('POST', '/greetings', { body: { name: 'ada' } })).status).toBe(401);
    const bad = await h.call('POST', '/greetings', { key, body: { name: '' } });
    expect(bad.status).toBe(400);
    expect(bad.body.kind).toBe('BadRequestError');
    const ok = await h.call('POST', '/greetings', { key, body: { name: 'ada' } });
    expect(ok).toMatchObject({ status: 201, body: { text: 'hello ada hello ada' } });
    const doc = (await h.call('GET', '/openapi.json')).body;
    expect(doc.paths['/greetings'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Greeting' });
    expect(doc.components.schemas.Greeting.properties.name.maxLength).toBe(20);
  });

  it('runs a module’s job kind on the platform’s job runner', async () => {
    const { key } = h.user();
    await h.call('POST', '/greetings', { key, body: { name: 'grace' } });
    await h.services.worker.drain();
    expect(ran).toContain('grace');
  });

  it('refuses to start with a bad value in a module’s settings, naming the variable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mimic-modules-'));
    try {
      const config = loadConfig({ MIMIC_DATA_DIR: dir, MIMIC_GREETING_REPEAT: '9' });
      expect(() => createServices(config, {}, [greetingsModule])).toThrow(ConfigurationError);
      expect(() => createServices(config, {}, [greetingsModule])).toThrow(/MIMIC_GREETING_REPEAT/);
      const tools = loadConfig({ MIMIC_DATA_DIR: dir, MIMIC_TOOL_TIMEOUT_MS: '5' });
      expect(() => createServices(tools)).toThrow(/MIMIC_TOOL_TIMEOUT_MS must be an integer from 100/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
