import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/db/client.ts';
import { createLocalKeyProvider, VaultDecryptError, type Vault } from '../../src/vault/index.ts';
import { unwrapDataKey } from '../../src/vault/envelope.ts';
import { kekContext } from '../../src/vault/keyring.ts';
import { addSecret, addUser, KEY_A, makeVault, readFields, tamper, tempDataDir, writeFields } from './helpers.ts';

let data: ReturnType<typeof tempDataDir>;
let store: Store;
let vault: Vault;

beforeEach(async () => {
  data = tempDataDir();
  store = openStore(data.file);
  vault = makeVault(store);
  await vault.ready();
  for (const u of ['usr_alice', 'usr_bob']) addUser(store, u);
  addSecret(store, 'usr_alice', 'sec_a1');
  addSecret(store, 'usr_alice', 'sec_a2');
  addSecret(store, 'usr_bob', 'sec_b1');
});

afterEach(() => {
  store.close();
  data.cleanup();
});

const TOKEN = 'ghp_canaryTOKEN0123456789abcdef';

async function expectRefused(userId: string, secretId: string, rows = readFields(store, secretId)) {
  const err = await vault.open(userId, secretId, rows).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(VaultDecryptError);
  expect((err as Error).message).not.toContain(TOKEN);
  expect(String((err as Error).cause ?? '')).not.toContain(TOKEN);
  return err as Error;
}

describe('vault seal and open', () => {
  it('round-trips every field through the database', async () => {
    const values = { token: TOKEN, refresh_token: 'rt-ünïcødé-🔑', empty: '' };
    writeFields(store, 'sec_a1', await vault.seal('usr_alice', 'sec_a1', values));
    const rows = readFields(store, 'sec_a1');
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row.ciphertext).not.toContain(TOKEN);
      expect(row.ciphertext).toMatch(/^g1\.[\w-]+\.[\w-]+\.[\w-]*$/);
      expect(row.wrappedKey).toMatch(/^g1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    }
    expect(await vault.open('usr_alice', 'sec_a1', rows)).toEqual(values);
  });

  it('uses the primary KEK and a fresh data key for every value', async () => {
    const [one] = await vault.seal('usr_alice', 'sec_a1', { token: TOKEN });
    const [two] = await vault.seal('usr_alice', 'sec_a1', { token: TOKEN });
    const status = await vault.status();
    expect(one!.kekId).toBe(status.primary);
    expect(one!.ciphertext).not.toBe(two!.ciphertext);
    expect(one!.wrappedKey).not.toBe(two!.wrappedKey);
    // Unwrap both data keys with the KEK itself: they differ (not only the IVs).
    const row = store.sqlite.prepare<[string], { wrapped: string }>('SELECT wrapped FROM vault_keys WHERE id = ?').get(one!.kekId)!;
    const kek = await createLocalKeyProvider(KEY_A).unwrap(row.wrapped, kekContext(one!.kekId));
    const owner = { userId: 'usr_alice', secretId: 'sec_a1', field: 'token' };
    const dek1 = unwrapDataKey(kek, one!.kekId, owner, one!.wrappedKey);
    const dek2 = unwrapDataKey(kek, two!.kekId, owner, two!.wrappedKey);
    expect(dek1).toHaveLength(32);
    expect(dek1.equals(dek2)).toBe(false);
    expect(dek1.equals(kek)).toBe(false);
  });

  it('does not open a value copied to another user, secret or field', async () => {
    writeFields(store, 'sec_a1', await vault.seal('usr_alice', 'sec_a1', { token: TOKEN, password: 'pw-123456' }));
    const rows = readFields(store, 'sec_a1');
    // Copied into Bob's secret, row for row, as an attacker with write access to the database would.
    writeFields(store, 'sec_b1', rows);
    await expectRefused('usr_bob', 'sec_b1');
    // Another secret of the same user.
    writeFields(store, 'sec_a2', rows);
    await expectRefused('usr_alice', 'sec_a2');
    // Right secret, claimed by the wrong owner.
    await expectRefused('usr_bob', 'sec_a1', rows);
    // Same secret, fields swapped (token's ciphertext and key under "password" and back).
    const [password, token] = rows;
    await expectRefused('usr_alice', 'sec_a1', [{ ...token!, field: 'password' }]);
    await expectRefused('usr_alice', 'sec_a1', [{ ...password!, field: 'token' }]);
    // Only the wrapped key moved: one field's key with another field's ciphertext.
    await expectRefused('usr_alice', 'sec_a1', [{ ...token!, wrappedKey: password!.wrappedKey }]);
    // The untouched rows still open.
    expect(await vault.open('usr_alice', 'sec_a1', rows)).toEqual({ token: TOKEN, password: 'pw-123456' });
  });

  it('does not open a wrapped key relabelled to another KEK', async () => {
    const [sealed] = await vault.seal('usr_alice', 'sec_a1', { token: TOKEN });
    await vault.rotate();
    const { primary } = await vault.status();
    expect(primary).not.toBe(sealed!.kekId);
    await expectRefused('usr_alice', 'sec_a1', [{ ...sealed!, kekId: primary! }]);
    // The KEK id is bound too, not only implied by the key: the right key under another id refuses.
    const row = store.sqlite.prepare<[string], { wrapped: string }>('SELECT wrapped FROM vault_keys WHERE id = ?').get(sealed!.kekId)!;
    const kek = await createLocalKeyProvider(KEY_A).unwrap(row.wrapped, kekContext(sealed!.kekId));
    const owner = { userId: 'usr_alice', secretId: 'sec_a1', field: 'token' };
    expect(unwrapDataKey(kek, sealed!.kekId, owner, sealed!.wrappedKey)).toHaveLength(32);
    expect(() => unwrapDataKey(kek, primary!, owner, sealed!.wrappedKey)).toThrow();
  });

  it('refuses altered bytes in any piece of the ciphertext or the wrapped key', async () => {
    const [sealed] = await vault.seal('usr_alice', 'sec_a1', { token: TOKEN });
    for (const piece of [1, 2, 3] as const) {
      const err = await expectRefused('usr_alice', 'sec_a1', [{ ...sealed!, ciphertext: tamper(sealed!.ciphertext, piece) }]);
      expect(err.message).toBe('cannot decrypt field "token" of secret sec_a1: the stored value was altered or belongs to another row');
      await expectRefused('usr_alice', 'sec_a1', [{ ...sealed!, wrappedKey: tamper(sealed!.wrappedKey, piece) }]);
    }
    await expectRefused('usr_alice', 'sec_a1', [{ ...sealed!, ciphertext: 'not-a-sealed-value' }]);
    await expectRefused('usr_alice', 'sec_a1', [{ ...sealed!, kekId: 'kek_missing' }]);
    expect(await vault.open('usr_alice', 'sec_a1', [sealed!])).toEqual({ token: TOKEN });
  });

  it('keeps a field named __proto__ as an ordinary field', async () => {
    const values = JSON.parse('{"__proto__":"x"}') as Record<string, string>;
    const opened = await vault.open('usr_alice', 'sec_a1', await vault.seal('usr_alice', 'sec_a1', values));
    expect(Object.getPrototypeOf(opened)).toBe(Object.prototype);
    expect(Object.keys(opened)).toEqual(['__proto__']);
  });
});
