import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/db/client.ts';
import type { Vault } from '../../src/vault/index.ts';
import { createSqliteVaultStore } from '../../src/vault/store.ts';
import { addSecret, addUser, kekIdsInUse, makeVault, readFields, tamper, tempDataDir, writeFields } from './helpers.ts';

let data: ReturnType<typeof tempDataDir>;
let store: Store;
let vault: Vault;
const N = 25;
const secretIds = Array.from({ length: N }, (_, i) => `sec_${String(i).padStart(3, '0')}`);
const valueOf = (id: string) => ({ token: `token-of-${id}`, refresh_token: `refresh-of-${id}` });

beforeEach(async () => {
  data = tempDataDir();
  store = openStore(data.file);
  vault = makeVault(store);
  await vault.ready();
  addUser(store, 'usr_a');
  for (const id of secretIds) {
    addSecret(store, 'usr_a', id);
    writeFields(store, id, await vault.seal('usr_a', id, valueOf(id)));
  }
});

afterEach(() => {
  store.close();
  data.cleanup();
});

const primaryNow = () => store.sqlite.prepare<[], { id: string }>(`SELECT id FROM vault_keys WHERE status = 'primary'`).get()!.id;
const snapshot = () => new Map(secretIds.map((id) => [id, readFields(store, id)]));

describe('vault rotate', () => {
  it('re-wraps every data key under the new primary without touching a ciphertext, and retires the old KEK', async () => {
    const before = snapshot();
    const oldKek = (await vault.status()).primary!;
    const progress: number[] = [];
    const report = await vault.rotate({ batchSize: 7, onProgress: (n) => progress.push(n) });

    expect(report.primary).not.toBe(oldKek);
    expect(report).toEqual({ primary: report.primary, rewrapped: 2 * N, retired: [oldKek], unreadable: [] });
    expect(progress).toEqual([7, 14, 21, 28, 35, 42, 49, 50]);
    expect(kekIdsInUse(store)).toEqual([report.primary]);
    for (const id of secretIds) {
      const rows = readFields(store, id);
      const old = before.get(id)!;
      expect(rows.map((r) => r.ciphertext)).toEqual(old.map((r) => r.ciphertext));
      expect(rows.map((r) => r.wrappedKey)).not.toEqual(old.map((r) => r.wrappedKey));
      expect(await vault.open('usr_a', id, rows)).toEqual(valueOf(id));
      // The retired KEK is kept: the pre-rotation copy (a backup, a reader's stale read) still opens.
      expect(await vault.open('usr_a', id, old)).toEqual(valueOf(id));
    }
    const status = await vault.status();
    expect(status.keys.map((k) => [k.id, k.status, k.data_keys, k.demoted_at === null])).toEqual([
      [oldKek, 'retired', 0, false],
      [report.primary, 'primary', 2 * N, true],
    ]);

    // A second rotation moves everything again and retires the first rotation's key too.
    const second = await vault.rotate();
    expect(second.retired).toEqual([report.primary]);
    expect(kekIdsInUse(store)).toEqual([second.primary]);
  });

  it('opens rows still under the old KEK mid-rotation, and re-wraps rows written under the old primary meanwhile', async () => {
    // Sealed before the switch, written after it (a PUT from a process that read the old primary
    // just before). It updates sec_000 in place, behind the cursor of the pass that is running.
    const late = await vault.seal('usr_a', 'sec_000', { token: 'late-token', refresh_token: 'late-refresh' });
    const oldKek = late[0]!.kekId;
    const midway: Promise<void>[] = [];
    let batches = 0;
    const report = await vault.rotate({
      batchSize: 5,
      onProgress: () => {
        if (batches++ > 0) return;
        expect(readFields(store, 'sec_000').every((r) => r.kekId === primaryNow())).toBe(true);
        writeFields(store, 'sec_000', late);
        const stillOld = secretIds.filter((id) => readFields(store, id).every((r) => r.kekId === oldKek));
        expect(stillOld.length).toBeGreaterThan(N / 2);
        for (const id of stillOld.slice(1)) {
          midway.push(vault.open('usr_a', id, readFields(store, id)).then((v) => expect(v).toEqual(valueOf(id))));
        }
      },
    });
    await Promise.all(midway);
    expect(midway.length).toBeGreaterThan(N / 2);
    expect(report.rewrapped).toBe(2 * N + 2);
    const rows = readFields(store, 'sec_000');
    expect(rows.map((r) => r.kekId)).toEqual([report.primary, report.primary]);
    expect(rows.map((r) => r.ciphertext).sort()).toEqual(late.map((r) => r.ciphertext).sort());
    expect(await vault.open('usr_a', 'sec_000', rows)).toEqual({ token: 'late-token', refresh_token: 'late-refresh' });
    expect(report.retired).toEqual([oldKek]);
  });

  it('does not clobber a row replaced (a PUT) between reading it for re-wrap and writing it back', async () => {
    const vstore = createSqliteVaultStore(store);
    const [read] = readFields(store, 'sec_001');
    await vault.rotate(); // any rewrap needs a second KEK: re-wrap the old read "back" to the old KEK
    writeFields(store, 'sec_001', await vault.seal('usr_a', 'sec_001', { token: 'after-the-put' }));
    const put = readFields(store, 'sec_001').find((r) => r.field === 'token')!;
    const changed = await vstore.applyRewraps([
      { secretId: 'sec_001', field: 'token', oldKekId: read!.kekId, oldWrappedKey: read!.wrappedKey, newKekId: read!.kekId, newWrappedKey: 'g1.x.y.z' },
      { secretId: 'sec_001', field: 'token', oldKekId: put.kekId, oldWrappedKey: read!.wrappedKey, newKekId: read!.kekId, newWrappedKey: 'g1.x.y.z' },
    ]);
    expect(changed).toBe(0);
    expect(readFields(store, 'sec_001').find((r) => r.field === 'token')).toEqual(put);
    expect(await vault.open('usr_a', 'sec_001', [put])).toEqual({ token: 'after-the-put' });
  });

  it('leaves an unreadable row as it is, reports it, keeps its KEK active, and finishes', async () => {
    const rows = readFields(store, 'sec_003');
    const token = rows.find((r) => r.field === 'token');
    writeFields(store, 'sec_003', [{ ...token!, wrappedKey: tamper(token!.wrappedKey, 3) }]);
    const oldKek = token!.kekId;
    const report = await vault.rotate({ batchSize: 4 });
    expect(report.unreadable).toEqual([{ secretId: 'sec_003', field: 'token', kekId: oldKek }]);
    expect(report.rewrapped).toBe(2 * N - 1);
    expect(report.retired).toEqual([]);
    expect(readFields(store, 'sec_003').find((r) => r.field === 'refresh_token')!.kekId).toBe(report.primary);
    const status = await vault.status();
    expect(status.keys.find((k) => k.id === oldKek)).toMatchObject({ status: 'active', data_keys: 1 });
  });
});
