import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PgDatabase } from '../../src/db/pg/database.ts';
import { createLogger } from '../../src/log.ts';
import { createSecretLock } from '../../src/secrets/lock-store.ts';
import { createOAuth2Refresher, type OAuth2Refresher, type OAuth2RefreshEvent } from '../../src/secrets/oauth2/refresher.ts';
import { createVaultTokenStore } from '../../src/secrets/oauth2-tokens.ts';
import { createPgSecretStore } from '../../src/secrets/store-pg.ts';
import type { SecretDeps } from '../../src/secrets/deps.ts';
import { createGuardedClient, type GuardedClient } from '../../src/egress/client.ts';
import { randomId } from '../../src/clock.ts';
import { clusterFor, plainVault, processesOn, seedOwner, type Processes } from './processes.ts';
import { CLIENT_ID, CLIENT_SECRET, startTokenEndpoint, type TokenEndpoint } from '../secrets/oauth2/fixtures.ts';

/**
 * The oauth2 refresh across processes on PostgreSQL: each process (processes.ts) has its own
 * secret store and refresher. They share only the database and the token endpoint, which
 * rotates refresh tokens: a second refresh with the old one would fail with invalid_grant.
 */
const admin = clusterFor('test/scale/oauth2-refresh.test.ts');

describe.skipIf(!admin)('oauth2 refresh across processes (PostgreSQL advisory lock)', () => {
  let endpoint: TokenEndpoint;
  let client: GuardedClient;
  let db: Processes;

  /** A refresher as one process has it: its own lock (and lock connection), store and in-process flights. */
  function refresherOf(h: PgDatabase, events: OAuth2RefreshEvent[]): OAuth2Refresher {
    const deps: SecretDeps = { secretStore: createPgSecretStore(h), vault: plainVault, clock: { now: () => Date.now() }, newId: randomId };
    return createOAuth2Refresher({ tokens: createVaultTokenStore(deps), lock: createSecretLock(h), client, clock: deps.clock, log: createLogger(() => {}), waitMs: 5, onEvent: (e) => events.push(e) });
  }

  async function addExpiredSecret(h: PgDatabase, id: string, refreshToken: string) {
    const deps: SecretDeps = { secretStore: createPgSecretStore(h), vault: plainVault, clock: { now: () => Date.now() }, newId: randomId };
    await deps.secretStore.create(
      { id, userId: 'usr_oauth2', provider: 'example', type: 'oauth2', headerName: null, tokenUrl: endpoint.url, clientId: CLIENT_ID, clientAuthMethod: null,
        expiresAt: Date.now() - 1000, status: 'active', version: 1, createdAt: 0, updatedAt: 0, lastUsedAt: null, refreshedAt: null, lockOwner: null, lockUntil: null },
      await plainVault.seal('usr_oauth2', id, { access_token: 'at-0', refresh_token: refreshToken, client_secret: CLIENT_SECRET }),
      { id: randomId('aud'), userId: 'usr_oauth2', at: 0, action: 'secret.created', outcome: 'success', secretId: id },
    );
  }

  beforeAll(async () => {
    endpoint = await startTokenEndpoint();
    client = createGuardedClient({ allow: ['localhost', '127.0.0.1'], ca: [endpoint.server.ca], defaultTimeoutMs: 10_000, defaultMaxBytes: 1024 * 1024 });
    db = await processesOn(admin!);
    await seedOwner(await db.open(), 'usr_oauth2');
  });
  afterAll(async () => {
    await db?.close();
    await client?.close();
    await endpoint?.server.close();
  });

  it('four processes refreshing the same expired secret at once: one exchange with the token endpoint, every caller gets its token', async () => {
    for (let round = 0; round < 5; round++) {
      const processes = await Promise.all(Array.from({ length: 4 }, () => db.open()));
      const secretId = `sec_round${round}`;
      endpoint.validRefreshToken = `rt-round${round}`;
      await addExpiredSecret(processes[0]!, secretId, endpoint.validRefreshToken);
      const before = endpoint.requests().length;
      const events: OAuth2RefreshEvent[] = [];
      const refreshers = processes.map((h) => refresherOf(h, events));
      const tokens = await Promise.all(refreshers.flatMap((r) => Array.from({ length: 5 }, () => r.accessTokenFor(secretId))));

      expect(endpoint.requests().length - before).toBe(1);
      expect(new Set(tokens).size).toBe(1);
      expect(tokens[0]).toBe(`at-${endpoint.issued}`);
      expect(events).toEqual([{ secretId, userId: 'usr_oauth2', outcome: 'success' }]);
      // The stored grant is the one exchange's: the rotated refresh token, the new expiry.
      const stored = await createPgSecretStore(processes[3]!).getById(secretId);
      expect(stored).toMatchObject({ status: 'active', version: 2 });
      expect(stored!.expiresAt).toBeGreaterThan(Date.now());
    }
  });

  it('releases the lock when the refresh throws, and when the holding process dies', async () => {
    const [a, b] = await Promise.all([db.open(), db.open()]);
    const lockA = createSecretLock(a);
    const lockB = createSecretLock(b);
    await addExpiredSecret(a, 'sec_fail', 'rt-unknown');

    // The token endpoint refuses the grant: A's refresh throws, and its lock is released.
    const events: OAuth2RefreshEvent[] = [];
    await expect(refresherOf(a, events).accessTokenFor('sec_fail')).rejects.toThrow();
    expect(events).toEqual([{ secretId: 'sec_fail', userId: 'usr_oauth2', outcome: 'failure', reason: 'invalid_grant' }]);
    expect(await lockB.take('sec_fail', 'b-1', Date.now(), 30_000)).toBe(true);
    expect(await lockA.take('sec_fail', 'a-1', Date.now(), 30_000)).toBe(false);
    await lockB.release('sec_fail', 'b-1');

    // A takes the lock and its process dies (its connections close): B can take it at once.
    expect(await lockA.take('sec_other', 'a-2', Date.now(), 30_000)).toBe(true);
    expect(await lockB.take('sec_other', 'b-2', Date.now(), 30_000)).toBe(false);
    // The one session holding an advisory lock in this database is A's.
    const killed = await b.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    expect(killed.rowCount).toBe(1);
    const deadline = Date.now() + 30_000;
    let taken = false;
    while (!taken && Date.now() < deadline) {
      taken = await lockB.take('sec_other', 'b-3', Date.now(), 30_000);
      if (!taken) await new Promise((r) => setTimeout(r, 20));
    }
    expect(taken).toBe(true);
    await lockB.release('sec_other', 'b-3');
  });
});
