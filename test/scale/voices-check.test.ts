import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgSecretStore } from '../../src/secrets/store-pg.ts';
import { VOICE_COMMANDS } from '../../src/voices/cli.ts';
import type { Config } from '../../src/config.ts';
import { clusterFor, plainVault, processesOn, seedOwner, type Processes } from './processes.ts';

/** `voices check` with MIMIC_DATABASE_URL: the secrets it checks are PostgreSQL's rows, read without a SQLite file. */
const admin = clusterFor('test/scale/voices-check.test.ts');

describe.skipIf(!admin)('voices check on PostgreSQL', () => {
  let db: Processes;
  beforeAll(async () => {
    db = await processesOn(admin!);
    const h = await db.open();
    await seedOwner(h, 'usr_voices');
    await createPgSecretStore(h).create(
      { id: 'sec_bearer', userId: 'usr_voices', provider: 'openai', type: 'bearer', headerName: null, tokenUrl: null, clientId: null, clientAuthMethod: null,
        expiresAt: null, status: 'active', version: 1, createdAt: 0, updatedAt: 0, lastUsedAt: null, refreshedAt: null, lockOwner: null, lockUntil: null },
      await plainVault.seal('usr_voices', 'sec_bearer', { token: 'not-checked' }),
      { id: 'aud_voices', userId: 'usr_voices', at: 0, action: 'secret.created', outcome: 'success', secretId: 'sec_bearer' },
    );
  });
  afterAll(async () => db?.close());

  it('finds the secret of the right type and names the one of the wrong type, with no SQLite file at all', async () => {
    const env = { MIMIC_VOICE_PROVIDERS: JSON.stringify([{ type: 'openai', secret_id: 'sec_bearer' }, { type: 'elevenlabs', secret_id: 'sec_bearer' }]) };
    const database = { url: db.url, max: 2, idleTimeoutMs: 10_000, connectionTimeoutMs: 30_000, statementTimeoutMs: 60_000 };
    const settings = { dataDir: '/nonexistent', databaseFile: '/nonexistent/mimic.db', database, env };
    const out: string[] = [];
    const err: string[] = [];
    const code = await VOICE_COMMANDS['voices check']!.run({ config: {} as Config, settings, out: (l) => out.push(l), err: (l) => err.push(l) }, {}, []);
    expect(err).toEqual([]);
    expect(out.map((l) => JSON.parse(l) as Record<string, unknown>).map((l) => [l.provider, l.ok, l.problem])).toEqual([
      ['openai', true, undefined],
      ['elevenlabs', false, expect.stringMatching(/is a bearer secret; elevenlabs needs an api_key secret/)],
    ]);
    expect(code).toBe(1);
  });
});
