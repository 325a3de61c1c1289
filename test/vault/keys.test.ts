import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/db/client.ts';
import { checkMasterKey, createKeyProvider, createLocalKeyProvider, VaultDecryptError, VaultKeyError } from '../../src/vault/index.ts';
import { masterKeyCheckValue } from '../../src/vault/key-check.ts';
import { createSqliteVaultStore } from '../../src/vault/store.ts';
import { addSecret, addUser, KEY_A, KEY_B, makeVault, readFields, useTempStores, writeFields } from './helpers.ts';

const { open, stores } = useTempStores();

const checkRow = (store: Store) =>
  store.sqlite.prepare<[], { value: string }>(`SELECT value FROM vault_meta WHERE name = 'master_key_check'`).get()?.value;

describe('master key check', () => {
  it('records the check value on first use and refuses any other key afterwards', async () => {
    const store = open();
    const vstore = createSqliteVaultStore(store);
    expect(checkRow(store)).toBeUndefined();
    await checkMasterKey(vstore, KEY_A);
    expect(checkRow(store)).toMatch(/^[\w-]{43}$/);
    await expect(checkMasterKey(vstore, KEY_A)).resolves.toBeUndefined();
    await expect(checkMasterKey(vstore, KEY_B)).rejects.toThrow(VaultKeyError);
    await expect(checkMasterKey(vstore, KEY_B)).rejects.toThrow(
      /not the one this data directory was created with.*MIMIC_MASTER_KEY \(or MIMIC_MASTER_KEY_FILE\)/,
    );
    expect(checkRow(store)).toBe(masterKeyCheckValue(KEY_A)); // a refused key never overwrites it
  });

  it('keeps the check value and the KEK wrapping stable across releases', async () => {
    // Pinned vectors: a changed label or derivation purpose would lock every existing data directory out.
    const master = Buffer.alloc(32, 0x01);
    expect(masterKeyCheckValue(master)).toBe('pvQHGY6EpGfGs6A799-ZJr68rhkGsAHIfnp1R808lHE');
    const wrapped = 'g1.7DE__BWM84240-nU.qaT6errE1h3GRGcorj75Mw.2lxrxcP58TcP0ESlGzJY5Wx5F6k5ww8IO_W2GQ72IALi3cV6YN1nR8hBiQ';
    const provider = createLocalKeyProvider(master);
    expect(await provider.unwrap(wrapped, 'mimic/kek/kek_pinned')).toEqual(Buffer.alloc(32, 0x07));
    await expect(provider.unwrap(wrapped, 'mimic/kek/kek_other')).rejects.toThrow();
    await expect(createLocalKeyProvider(KEY_A).unwrap(wrapped, 'mimic/kek/kek_pinned')).rejects.toThrow();
  });
});

describe('key providers', () => {
  it('creates the local provider by name and names the known ones for anything else', () => {
    expect(createKeyProvider('local', KEY_A).name).toBe('local');
    expect(() => createKeyProvider('aws-kms', KEY_A)).toThrow('unknown key provider "aws-kms" (known: local)');
    expect(() => createKeyProvider('toString', KEY_A)).toThrow(/unknown key provider/);
  });
});

describe('vault startup', () => {
  async function sealOne(masterKey = KEY_A) {
    const store = open();
    const vault = makeVault(store, masterKey);
    await vault.ready();
    addUser(store, 'usr_a');
    addSecret(store, 'usr_a', 'sec_1');
    writeFields(store, 'sec_1', await vault.seal('usr_a', 'sec_1', { token: 'canary-value' }));
    return (await vault.status()).primary!;
  }

  it('creates one primary KEK on first start and reuses it afterwards', async () => {
    const kekId = await sealOne();
    const again = makeVault(open());
    await again.ready();
    const status = await again.status();
    expect(status.primary).toBe(kekId);
    expect(status.keys).toEqual([
      { id: kekId, provider: 'local', status: 'primary', created_at: expect.any(String), demoted_at: null, data_keys: 1 },
    ]);
  });

  it('ends with exactly one primary when two processes start on an empty vault at once', async () => {
    const [a, b] = [makeVault(open()), makeVault(open())];
    await Promise.all([a.ready(), b.ready()]);
    const keys = (await a.status()).keys;
    expect(keys).toHaveLength(1);
    expect(keys[0]!.status).toBe('primary');
    const store = stores[0]!;
    addUser(store, 'usr_a');
    addSecret(store, 'usr_a', 'sec_1');
    const [sealedByB] = await b.seal('usr_a', 'sec_1', { token: 't' });
    expect(sealedByB!.kekId).toBe(keys[0]!.id);
    expect(await a.open('usr_a', 'sec_1', [sealedByB!])).toEqual({ token: 't' });
  });

  it('refuses a wrong master key before serving anything', async () => {
    await sealOne(KEY_A);
    const wrong = makeVault(open(), KEY_B);
    await expect(wrong.ready()).rejects.toThrow(VaultKeyError);
    await expect(wrong.ready()).rejects.toThrow(/not the one this data directory was created with/);
    // Every method reports the same refusal (and nothing surfaces as an unhandled rejection).
    await expect(wrong.seal('usr_a', 'sec_1', { token: 'x' })).rejects.toThrow(VaultKeyError);
    await expect(wrong.open('usr_a', 'sec_1', readFields(stores[0]!, 'sec_1'))).rejects.toThrow(VaultKeyError);
    await expect(wrong.status()).rejects.toThrow(VaultKeyError);
  });

  it('refuses a key that cannot unwrap a stored KEK, naming it, even without a check value', async () => {
    const kekId = await sealOne(KEY_A);
    // A data directory from before the key check, or one whose check row was lost.
    stores[0]!.sqlite.prepare(`DELETE FROM vault_meta WHERE name = 'master_key_check'`).run();
    const wrong = makeVault(open(), KEY_B);
    const err = await wrong.ready().then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(VaultKeyError);
    expect(err!.message).toBe(
      `The master key cannot decrypt the vault's key-encryption key ${kekId} (wrapped by provider 'local'). ` +
        'Start the service with the MIMIC_MASTER_KEY (or MIMIC_MASTER_KEY_FILE) this data directory was created with.',
    );
  });

  it('refuses a KEK wrapped by another key provider', async () => {
    const kekId = await sealOne(KEY_A);
    stores[0]!.sqlite.prepare(`UPDATE vault_keys SET provider = 'aws-kms' WHERE id = ?`).run(kekId);
    await expect(makeVault(open()).ready()).rejects.toThrow(
      `The vault's key-encryption key ${kekId} was wrapped by key provider 'aws-kms', but this service uses 'local'.`,
    );
  });

  it('reports a KEK that stops unwrapping after startup as a decrypt failure of that row', async () => {
    await sealOne(KEY_A);
    const store = stores[0]!;
    const fresh = makeVault(open());
    await fresh.ready();
    // Another process "rotates" to a KEK this key cannot unwrap (a corrupted row).
    store.sqlite
      .prepare(`INSERT INTO vault_keys (id, provider, wrapped, status, created_at) VALUES ('kek_bad', 'local', 'g1.AAAA.AAAA.AAAA', 'active', 0)`)
      .run();
    const [row] = readFields(store, 'sec_1');
    await expect(fresh.open('usr_a', 'sec_1', [{ ...row!, kekId: 'kek_bad' }])).rejects.toThrow(VaultDecryptError);
  });
});
