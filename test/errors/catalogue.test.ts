/**
 * The one error catalogue, merged at start: the core's kinds, and each module's own
 * (`errors` on the module, typed by its `ErrorKinds` augmentation, as src/consents/errors.ts does).
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { harness } from '../helpers/harness.ts';
import { createFakeBackend } from '../helpers/fake-backend.ts';
import { MODULES } from '../../src/modules.ts';
import { defineModule, type Route } from '../../src/platform/module.ts';
import { loadConfig } from '../../src/config.ts';
import { createServices } from '../../src/services.ts';
import { buildApp } from '../../src/server.ts';
import { ApiError, errorStatus, type ErrorCatalogue, type ErrorKind } from '../../src/errors.ts';
import { errorHandler, UNDECLARED_KIND } from '../../src/http/errors.ts';
import type { AppEnv } from '../../src/http/env.ts';
import { createLogger } from '../../src/log.ts';

// A test module's own kind, typed the way a capability types its kinds.
declare module '../../src/errors.ts' {
  interface ErrorKinds {
    TeapotError: 418;
  }
}

/** A kind the type allows but no module declares: the defect the catalogue catches. */
const FORGOTTEN = 'ForgottenError' as string as ErrorKind;

const route = (path: string, kind: ErrorKind, errors: ErrorKind[] = [kind]): Route => ({
  method: 'get', path, summary: path, tag: 'Test', ok: { status: 200, description: 'never' }, errors,
  handler: () => {
    throw new ApiError(kind, `${kind} from ${path}`);
  },
});

const teapotModule = defineModule({
  name: 'teapot',
  errors: { TeapotError: 418 },
  create: () => ({ routes: [route('/teapot', 'TeapotError'), route('/forgotten', FORGOTTEN, [])] }),
});

function withConfig(run: (config: ReturnType<typeof loadConfig>) => void | Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), 'mimic-errors-'));
  return Promise.resolve(run(loadConfig({ MIMIC_DATA_DIR: dir }))).finally(() => rmSync(dir, { recursive: true, force: true }));
}

describe('the error catalogue', () => {
  it('merges a module’s own kind with its status: thrown, it answers that status, and the OpenAPI document lists it', async () => {
    const h = harness({}, {}, [...MODULES, teapotModule]);
    try {
      const { key } = h.user();
      expect(errorStatus('TeapotError')).toBe(418);
      const res = await h.call('GET', '/teapot', { key });
      expect(res).toMatchObject({ status: 418, body: { kind: 'TeapotError', description: 'TeapotError from /teapot' } });
      const doc = (await h.call('GET', '/openapi.json')).body;
      expect(doc.paths['/teapot'].get.responses['418'].description).toBe('TeapotError');
      // The capabilities' own kinds are merged the same way.
      expect([errorStatus('ConsentError'), errorStatus('ConsentExpiredError'), errorStatus('SessionError')]).toEqual([400, 400, 400]);
      expect(doc.paths['/clips/avatars'].post.responses['400'].description).toContain('ConsentError');
    } finally {
      await h.close();
    }
  });

  it('refuses to start when two modules give one kind different statuses, naming both', () =>
    withConfig((config) => {
      const kettle = defineModule({ name: 'kettle', errors: { TeapotError: 409 } as unknown as ErrorCatalogue, create: () => ({}) });
      expect(() => createServices(config, {}, [teapotModule, kettle])).toThrow(/TeapotError .*418 by module teapot, 409 by module kettle/);
      // A module may not give a core kind another status either.
      const rogue = defineModule({ name: 'rogue', errors: { NotFoundError: 400 } as unknown as ErrorCatalogue, create: () => ({}) });
      expect(() => createServices(config, {}, [rogue])).toThrow(/NotFoundError .*404 by the core \(src\/errors\.ts\), 400 by module rogue/);
      expect(errorStatus('NotFoundError')).toBe(404);
    }));

  it('refuses to start when a route lists a kind no module declares, naming the route', () =>
    withConfig(async (config) => {
      const forgetful = defineModule({ name: 'forgetful', create: () => ({ routes: [route('/forgotten', FORGOTTEN)] }) });
      const services = createServices(config, { backend: createFakeBackend() }, [forgetful]);
      try {
        expect(() => buildApp(services)).toThrow('GET /forgotten lists error kind ForgottenError, which no module declares');
      } finally {
        await services.close();
      }
    }));

  it('answers an undeclared kind thrown at run time with a 500, logged as a defect that fails the test harness', async () => {
    const logs: string[] = [];
    const app = new Hono<AppEnv>();
    app.onError(errorHandler(createLogger((l) => logs.push(l))));
    app.get('/forgotten', route('/forgotten', FORGOTTEN).handler);
    const res = await app.request('/forgotten');
    expect(res.status).toBe(500);
    expect(((await res.json()) as { kind: string }).kind).toBe('InternalServerError');
    expect(logs.filter((l) => l.includes(UNDECLARED_KIND) && l.includes('ForgottenError'))).toHaveLength(1);

    const h = harness({}, {}, [...MODULES, teapotModule]);
    const { key } = h.user();
    expect((await h.call('GET', '/forgotten', { key })).status).toBe(500);
    await expect(h.close()).rejects.toThrow(/1 error\(s\) of an undeclared kind/);
  });
});
