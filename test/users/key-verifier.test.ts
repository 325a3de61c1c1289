import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sqlite, type OpenStores } from '../stores/dialects.ts';
import { generateApiKey, hashApiKey, keyPrefix } from '../../src/users/api-keys.ts';
import { makeKeyVerifier } from '../../src/users/accounts.ts';
import { defineModule } from '../../src/platform/module.ts';
import { harness } from '../helpers/harness.ts';
import { pastKeysRecheck } from '../stores/contracts/users.ts';

const hashKey = Buffer.alloc(32, 7);
let db: OpenStores;
let other: OpenStores;
let n = 0;

beforeEach(async () => {
  db = await sqlite.open();
  other = await db.reopen();
});
afterEach(async () => {
  await other.close();
  await db.close();
});

async function newUserKey(): Promise<{ apiKey: string; keyId: string; userId: string }> {
  const apiKey = generateApiKey();
  const userId = `usr_${++n}`;
  const keyId = `key_${n}`;
  await db.stores.users.create(
    { id: userId, name: 'Ada', credits: 1, permissions: ['stitch'], createdAt: n },
    { id: keyId, hash: hashApiKey(hashKey, apiKey), prefix: keyPrefix(apiKey), createdAt: n },
  );
  return { apiKey, keyId, userId };
}

describe('the API-key verifier', () => {
  it('answers a key it verified from memory while nothing changed', async () => {
    const { apiKey, keyId, userId } = await newUserKey();
    const lookups = vi.spyOn(db.stores.users, 'ownerOfKey');
    const verify = makeKeyVerifier({ users: db.stores.users, apiKeyHashKey: hashKey });
    for (let i = 0; i < 5; i++) expect(await verify(apiKey)).toEqual({ id: userId, name: 'Ada', permissions: ['stitch'], keyId });
    expect(lookups).toHaveBeenCalledTimes(1);
    // What it hands out cannot be changed by a request that holds it.
    expect(Object.isFrozen(await verify(apiKey))).toBe(true);
  });

  it('refuses a key revoked through another connection (another process) from KEYS_RECHECK_MS (1 ms) after the revocation', async () => {
    const { apiKey, keyId } = await newUserKey();
    const verify = makeKeyVerifier({ users: db.stores.users, apiKeyHashKey: hashKey });
    expect(await verify(apiKey)).not.toBeNull();
    expect(await other.stores.users.revokeKey({ id: keyId }, 9000)).toBe(true);
    await pastKeysRecheck();
    expect(await verify(apiKey)).toBeNull();
  });

  it('refuses a key revoked through its own store on the next call', async () => {
    const { apiKey, keyId } = await newUserKey();
    const verify = makeKeyVerifier({ users: db.stores.users, apiKeyHashKey: hashKey });
    expect(await verify(apiKey)).not.toBeNull();
    await db.stores.users.revokeKey({ id: keyId }, 9000);
    expect(await verify(apiKey)).toBeNull();
  });

  it('checks an unknown key every time, and never remembers it', async () => {
    const verify = makeKeyVerifier({ users: db.stores.users, apiKeyHashKey: hashKey });
    const lookups = vi.spyOn(db.stores.users, 'ownerOfKey');
    const guess = generateApiKey();
    expect(await verify(guess)).toBeNull();
    expect(await verify(guess)).toBeNull();
    expect(lookups).toHaveBeenCalledTimes(2);
  });
});

describe('the service’s key verifier', () => {
  it('verifies keys against the users module’s store, and no key at all in a service built without it', async () => {
    const full = harness();
    const bare = harness({}, {}, [defineModule({ name: 'bare', create: () => ({}) })]);
    try {
      const { key } = full.user();
      expect((await full.call('GET', '/animations', { key })).status).toBe(200);
      expect(await bare.services.verifyKey(key)).toBeNull();
      // The user's row is written (call() waits for it), yet without the users module nothing reads it.
      const stranger = bare.user();
      expect((await bare.call('GET', '/openapi.json')).status).toBe(200);
      expect(await bare.services.verifyKey(stranger.key)).toBeNull();
    } finally {
      await bare.close();
      await full.close();
    }
  });
});
