import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.ts';
import { createServices, type ServiceOptions, type Services } from '../../src/services.ts';
import { buildApp } from '../../src/server.ts';
import { issueKey, type UserDeps } from '../../src/users/accounts.ts';
import { USERS } from '../../src/users/contract.ts';
import { userStoreOn } from '../../src/users/store-pg.ts';
import { deriveKey } from '../../src/keys.ts';
import { randomId } from '../../src/clock.ts';
import { createLogger } from '../../src/log.ts';
import type { Permission } from '../../src/users/permissions.ts';
import { createFakeBackend } from './fake-backend.ts';
import { leakedIn } from './canaries.ts';
import { UNDECLARED_KIND } from '../../src/http/errors.ts';
import { normalizeEmail } from '../../src/accounts/email.ts';
import { sqliteOf } from './stores.ts';

export interface Harness {
  config: Config;
  services: Services;
  app: ReturnType<typeof buildApp>;
  logs: string[];
  /** Every response this harness's call() saw (status, headers, body), for the leak-canary check in close(). */
  seen: string[];
  user(opts?: { credits?: number; permissions?: Permission[] }): { id: string; key: string };
  /** `key` sends `Authorization: Basic <key>`; `token` sends `Authorization: Bearer <token>`. */
  call(
    method: string,
    path: string,
    opts?: { key?: string; token?: string; body?: unknown; raw?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

/**
 * The operator verbs on the users of a running service (tests create users and revoke keys with
 * them), on the users module's store (its own writes move the key verifier's version at once),
 * or on one of their own when the service is built without that module.
 */
export function userDeps(services: Services): UserDeps {
  return {
    users: services.find(USERS) ?? userStoreOn(services.store),
    clock: services.clock,
    newId: randomId,
    apiKeyHashKey: deriveKey(services.config.masterKey, 'api-key-hash'),
  };
}

/**
 * A person who signs in to the studio: a user (with an API key) and an account with this email
 * and password, written through the accounts module's store and password hasher.
 */
export async function person(
  h: Harness,
  { email, password, permissions = [], name = null }: { email: string; password: string; permissions?: Permission[]; name?: string | null },
): Promise<{ id: string; key: string; email: string }> {
  const accounts = h.services.modules.accounts;
  const { id, key } = h.user({ permissions });
  await h.call('GET', '/health'); // lets the user's insert settle
  if (name !== null) sqliteOf(h.services.store).sqlite.prepare('UPDATE users SET name = ? WHERE id = ?').run(name, id);
  const created = await accounts.store.createAccount({
    userId: id,
    email: normalizeEmail(email),
    passwordHash: await accounts.passwords.hash(password),
    createdAt: h.services.clock.now(),
  });
  if (!created) throw new Error(`person(): the account for ${email} was not created (email taken?)`);
  return { id, key, email: normalizeEmail(email) };
}

/** The real app over a real SQLite file in a temp folder; the worker is driven by the test. */
export function harness(env: Record<string, string> = {}, opts: ServiceOptions = {}, modules?: Parameters<typeof createServices>[2]): Harness {
  const dataDir = mkdtempSync(join(tmpdir(), 'mimic-test-'));
  const config = loadConfig({
    MIMIC_DATA_DIR: dataDir,
    PORT: '8080',
    MIMIC_PUBLIC_URL: 'http://mimic.test',
    MIMIC_JOB_POLL_MS: '20',
    MIMIC_WEBHOOK_POLL_MS: '20',
    // Tests send bursts far above a production limit; test/http/rate-limit.test.ts sets its own.
    MIMIC_RATE_LIMIT: '1000000',
    ...env,
  });
  const logs: string[] = [];
  const services = createServices(config, { backend: createFakeBackend(), log: createLogger((l) => logs.push(l)), ...opts }, modules);
  const app = buildApp(services);
  const seen: string[] = [];
  const users = userDeps(services);
  // user() stays synchronous for the tests: the SQLite store has written the rows before its
  // promise settles, and call() and close() await it, so a failed insert still fails the test.
  const pending: Promise<unknown>[] = [];
  return {
    config,
    services,
    app,
    logs,
    seen,
    user({ credits = 10, permissions = [] } = {}) {
      const { row, apiKey } = issueKey(users);
      const id = randomId('usr');
      pending.push(users.users.create({ id, name: null, credits, permissions, createdAt: row.createdAt }, row));
      return { id, key: apiKey };
    },
    async call(method, path, { key, token, body, raw, headers = {} } = {}) {
      await Promise.all(pending);
      const h: Record<string, string> = { ...headers };
      if (key) h.authorization = `Basic ${key}`;
      if (token) h.authorization = `Bearer ${token}`;
      let payload: string | undefined = raw;
      if (body !== undefined) {
        payload = JSON.stringify(body);
        h['content-type'] ??= 'application/json';
      }
      const res = await app.request(path, { method, headers: h, ...(payload !== undefined ? { body: payload } : {}) });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      seen.push(`${method} ${path} ${res.status} ${JSON.stringify([...res.headers])} ${text}`);
      return { status: res.status, body: parsed, headers: res.headers };
    },
    async close() {
      await Promise.all(pending);
      // The leak canaries: no planted credential in any response, log line or audit row of this run.
      const audit = sqliteOf(services.store).sqlite.prepare('SELECT * FROM audit_events').all();
      const leaks = [...new Set([...seen, ...logs, JSON.stringify(audit)].flatMap(leakedIn))];
      await services.worker.stop(0);
      await services.drainModules();
      await services.stopModules();
      await services.close();
      // At rest too: the database files hold no credential in clear text.
      for (const f of readdirSync(dataDir).filter((n) => n.startsWith('mimic.db'))) {
        for (const leak of leakedIn(readFileSync(join(dataDir, f)).toString('latin1'))) leaks.push(`${leak.slice(0, 8)}… in ${f}`);
      }
      rmSync(dataDir, { recursive: true, force: true });
      if (leaks.length) throw new Error(`leak canary: ${leaks.length} planted credential form(s) appeared in a response, log line or audit row`);
      // An ApiError of a kind no module declares answered 500: a defect, whatever the test asserted.
      const undeclared = logs.filter((l) => l.includes(UNDECLARED_KIND));
      if (undeclared.length) throw new Error(`${undeclared.length} error(s) of an undeclared kind: ${undeclared[0]}`);
    },
  };
}
