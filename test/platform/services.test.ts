/**
 * Modules meet through services with typed keys: the kernel creates providers first whatever
 * the list's order, refuses to start when a needed service has no provider or the modules
 * wait for each other, and routes are mounted by path shape, so the list's order never
 * decides which route answers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harness, type Harness } from '../helpers/harness.ts';
import { MODULES } from '../../src/modules.ts';
import { defineModule, type Route } from '../../src/platform/module.ts';
import { defineServiceKey, provide } from '../../src/platform/service-key.ts';
import { ModuleOrderError } from '../../src/platform/order.ts';
import { loadConfig } from '../../src/config.ts';
import { createServices } from '../../src/services.ts';

const GREETER = defineServiceKey<{ greet(name: string): string }>('greeter');
const COUNTER = defineServiceKey<{ next(): number }>('counter');
const created: string[] = [];

const greeterModule = defineModule({
  name: 'greeter',
  provides: [GREETER],
  create: () => {
    created.push('greeter');
    return { provides: [provide(GREETER, { greet: (name: string) => `hello ${name}` })] };
  },
});

const welcomeModule = defineModule({
  name: 'welcome',
  needs: [GREETER],
  uses: [COUNTER],
  create: (_p, _s, services) => {
    created.push('welcome');
    const greeter = services.get(GREETER);
    const counter = services.find(COUNTER);
    // @ts-expect-error: a key the module did not declare in `needs` is refused by the compiler.
    if (Math.random() > 2) services.get(COUNTER);
    return { routes: [], greeting: greeter.greet('ada'), counted: counter?.next() };
  },
});

const counterModule = defineModule({
  name: 'counter',
  provides: [COUNTER],
  create: () => {
    created.push('counter');
    let n = 0;
    return { provides: [provide(COUNTER, { next: () => ++n })] };
  },
});

let dir: string | undefined;
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
  created.length = 0;
});
const config = () => loadConfig({ MIMIC_DATA_DIR: (dir = mkdtempSync(join(tmpdir(), 'mimic-services-'))) });

describe('module order', () => {
  it('creates a provider before the module that needs it, even when the list names it after', () => {
    h = harness({}, {}, [welcomeModule, counterModule, greeterModule]);
    expect(created).toEqual(['counter', 'greeter', 'welcome']);
    const welcome = (h.services.modules as unknown as Record<string, { greeting: string; counted?: number }>).welcome!;
    expect(welcome).toMatchObject({ greeting: 'hello ada', counted: 1 });
    expect(h.services.find(GREETER)?.greet('grace')).toBe('hello grace');
  });

  it('keeps the list’s order where nothing is needed', () => {
    h = harness({}, {}, [counterModule, greeterModule]);
    expect(created).toEqual(['counter', 'greeter']);
  });

  it('gives a used service as undefined when no module provides it', () => {
    h = harness({}, {}, [greeterModule, welcomeModule]);
    const welcome = (h.services.modules as unknown as Record<string, { counted?: number }>).welcome!;
    expect(welcome.counted).toBeUndefined();
    expect(h.services.find(COUNTER)).toBeUndefined();
  });

  it('refuses to start when a needed service has no provider, naming the module and the service', () => {
    expect(() => createServices(config(), {}, [welcomeModule, counterModule])).toThrow(ModuleOrderError);
    expect(() => createServices(config(), {}, [welcomeModule])).toThrow('the module "welcome" needs the service "greeter", which no listed module provides, and no module here provides it');
    expect(created).toEqual([]);
  });

  it('names the service’s module when the build leaves it out (avatars without consents)', () => {
    const modules = MODULES.filter((m) => m.name !== 'consents');
    expect(() => createServices(config(), {}, modules)).toThrow('the module "avatars" needs the service "consents", which no listed module provides: add the "consents" module, which provides it');
  });

  it('refuses modules that wait for each other, naming the cycle', () => {
    const A = defineServiceKey<number>('a');
    const B = defineServiceKey<number>('b');
    const first = defineModule({ name: 'first', needs: [B], provides: [A], create: () => ({ provides: [provide(A, 1)] }) });
    const second = defineModule({ name: 'second', uses: [A], provides: [B], create: () => ({ provides: [provide(B, 2)] }) });
    expect(() => createServices(config(), {}, [greeterModule, first, second])).toThrow(
      'the modules wait for each other\'s services in a cycle (second → first → second): first waits for "b" from second; second waits for "a" from first',
    );
  });

  it('refuses two providers of one service', () => {
    const twin = defineModule({ name: 'twin', provides: [GREETER], create: () => ({ provides: [provide(GREETER, { greet: () => '' })] }) });
    expect(() => createServices(config(), {}, [greeterModule, twin])).toThrow('the modules "greeter" and "twin" both provide the service "greeter"');
  });

  it('refuses an instance that leaves a declared service out', () => {
    const idle = defineModule({ name: 'idle', provides: [GREETER], create: () => ({}) });
    expect(() => createServices(config(), {}, [idle])).toThrow('the module "idle" declares it provides the service "greeter" but its instance does not');
  });

  it('serves the whole service with its modules listed backwards', async () => {
    h = harness({}, {}, [...MODULES].reverse());
    const { key } = h.user();
    const presenters = await h.call('GET', '/clips/presenters', { key });
    expect(presenters.status).toBe(200);
    expect(presenters.body.presenters.length).toBeGreaterThan(0);
    expect((await h.call('GET', '/clips/clp_missing', { key })).body.kind).toBe('NotFoundError');
  });
});

describe('route mounting', () => {
  const route = (path: string, text: string): Route => ({
    method: 'get', path, summary: text, tag: 'Service', access: 'public', security: [],
    ok: { status: 200, description: text },
    handler: (c) => c.text(`${text}${c.req.param('id') ?? ''}`),
  });
  const literal = defineModule({ name: 'literal', create: () => ({ routes: [route('/x/lit', 'literal')] }) });
  const param = defineModule({ name: 'param', create: () => ({ routes: [route('/x/{id}', 'param:'), route('/x/{id}/lit', 'param-lit:')] }) });
  const deeper = defineModule({ name: 'deeper', create: () => ({ routes: [route('/x/lit/{id}', 'deeper:')] }) });

  for (const modules of [[literal, param, deeper], [param, deeper, literal], [deeper, param, literal]]) {
    it(`answers /x/lit with its literal route and /x/{id} with its parameter, modules ${modules.map((m) => m.name).join(', ')}`, async () => {
      h = harness({}, {}, modules);
      const text = async (path: string) => (await h!.app.request(path)).text();
      expect(await text('/x/lit')).toBe('literal');
      expect(await text('/x/42')).toBe('param:42');
      expect(await text('/x/42/lit')).toBe('param-lit:42');
      expect(await text('/x/lit/7')).toBe('deeper:7');
      // The OpenAPI document keeps the modules' order.
      const doc = (await h!.call('GET', '/openapi.json')).body;
      const paths = Object.keys(doc.paths).filter((p) => p.startsWith('/x/'));
      expect(paths).toEqual(modules.flatMap((m) => m.create({} as never, undefined, {} as never).routes.map((r) => r.path)));
    });
  }
});

describe('what every module contributes', () => {
  const kind = (name: string) => ({ kind: { name }, webhookBody: async (id: string) => ({ object: name, id }) });
  const events: string[] = [];
  // Reads the kinds when it is used (as the webhooks module's dispatcher does), listed before the modules that declare them.
  const reader = defineModule({
    name: 'reader',
    create: (_p, _s, services) => ({
      kinds: () => services.resources().map((r) => r.kind.name),
      async stop() {
        events.push('reader stopped');
      },
      async drain() {
        events.push('reader drained');
      },
    }),
  });
  const notes = defineModule({ name: 'notes', create: () => ({ resources: [kind('note')] }) });
  const memos = defineModule({ name: 'memos', create: () => ({ resources: [kind('memo')] }) });

  it('hands every module all resource kinds, those of modules created after it too', async () => {
    h = harness({}, {}, [reader, notes, memos]);
    const instance = (h.services.modules as unknown as Record<string, { kinds(): string[] }>).reader!;
    expect(instance.kinds()).toEqual(['note', 'memo']);
  });

  it('drains after stopping: drainModules is its own step (the server runs it after the job runner stopped)', async () => {
    events.length = 0;
    h = harness({}, {}, [reader]);
    await h.services.stopModules();
    expect(events).toEqual(['reader stopped']);
    await h.services.drainModules();
    expect(events).toEqual(['reader stopped', 'reader drained']);
  });
});
