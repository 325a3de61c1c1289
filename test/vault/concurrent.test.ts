import { spawn } from 'node:child_process';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/db/client.ts';
import type { Vault } from '../../src/vault/index.ts';
import { ROOT } from '../helpers/cli.ts';
import { addSecret, addUser, KEY_A, kekIdsInUse, makeVault, readFields, useTempStores, writeFields } from './helpers.ts';

const { open, data: currentData } = useTempStores();

/** Secrets with known values; `expected` is updated in the same tick as every write. */
async function populate(store: Store, vault: Vault, n: number) {
  addUser(store, 'usr_a');
  const expected = new Map<string, string>();
  const ids = Array.from({ length: n }, (_, i) => `sec_${i}`);
  store.sqlite.transaction(() => ids.forEach((id) => addSecret(store, 'usr_a', id)))();
  for (const id of ids) {
    writeFields(store, id, await vault.seal('usr_a', id, { token: `v0-${id}` }));
    expected.set(id, `v0-${id}`);
  }
  return { ids, expected };
}

/**
 * Opens and re-seals random secrets through the given vaults until `stop()` says so; every
 * open is checked against the value last written. Returns counts and what went wrong.
 */
async function traffic(vaults: { vault: Vault; store: Store }[], ids: string[], expected: Map<string, string>, stop: () => boolean) {
  const failures: string[] = [];
  const seenKeks = new Set<string>();
  let opens = 0;
  let seals = 0;
  const worker = async (w: number) => {
    for (let i = 0; !stop(); i++) {
      const { vault, store } = vaults[(w + i) % vaults.length]!;
      const id = ids[Math.floor(Math.random() * ids.length)]!;
      try {
        if (i % 5 === 4) {
          const value = `v${w}.${i}-${id}`;
          const sealed = await vault.seal('usr_a', id, { token: value });
          writeFields(store, id, sealed); // a PUT
          expected.set(id, value);
          seals++;
        } else {
          const rows = readFields(store, id);
          const want = expected.get(id);
          const got = await vault.open('usr_a', id, rows);
          seenKeks.add(rows[0]!.kekId);
          if (got.token !== want) failures.push(`${id}: got another value`);
          opens++;
        }
      } catch (e) {
        failures.push(`${id}: ${(e as Error).message}`);
      }
      await nextTurn(); // let the rotation (and the other workers) run between operations
    }
  };
  await Promise.all([0, 1, 2, 3].map(worker));
  return { failures, opens, seals, seenKeks };
}

describe('rotation under load', () => {
  it('serves concurrent opens and seals from two vaults on one database while one of them rotates', async () => {
    const storeA = open();
    const vaultA = makeVault(storeA);
    await vaultA.ready();
    const storeB = open(); // a second process: its own connection, its own key cache
    const vaultB = makeVault(storeB);
    await vaultB.ready();
    const { ids, expected } = await populate(storeA, vaultA, 300);
    const oldKek = (await vaultA.status()).primary!;

    let done = false;
    const rotation = vaultB.rotate({ batchSize: 8 }).finally(() => (done = true));
    const load = traffic(
      [
        { vault: vaultA, store: storeA },
        { vault: vaultB, store: storeB },
      ],
      ids,
      expected,
      () => done,
    );
    const [report, { failures, opens, seals, seenKeks }] = await Promise.all([rotation, load]);

    expect(failures).toEqual([]);
    expect(opens).toBeGreaterThan(100);
    expect(seals).toBeGreaterThan(20);
    expect(seenKeks).toEqual(new Set([oldKek, report.primary])); // A loaded B's new KEK on demand
    expect(report.retired).toEqual([oldKek]);
    expect(kekIdsInUse(storeA)).toEqual([report.primary]);
    const [sealedByA] = await vaultA.seal('usr_a', 'sec_0', { token: 'x' });
    expect(sealedByA!.kekId).toBe(report.primary); // A picked the new primary up without a restart
    for (const id of ids) expect((await vaultA.open('usr_a', id, readFields(storeA, id))).token).toBe(expected.get(id));
  });

  it('keeps serving while `vault rotate` runs in another process', async () => {
    const store = open();
    const vault = makeVault(store);
    await vault.ready();
    const { ids, expected } = await populate(store, vault, 3000);
    const oldKek = (await vault.status()).primary!;

    const child = spawn(process.execPath, ['--import', 'tsx', 'test/vault/rotate-child.ts', currentData().file, KEY_A.toString('hex'), '10'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    let exited = false;
    const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code))).finally(() => (exited = true));

    // Also watch the table: the test only proves something if it saw rows under both KEKs at once.
    let sawMixed = false;
    const watcher = (async () => {
      while (!exited) {
        if (kekIdsInUse(store).length > 1) sawMixed = true;
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const { failures, opens, seals, seenKeks } = await traffic([{ vault, store }], ids, expected, () => exited);
    const code = await exit;
    await watcher;

    expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
    const report = JSON.parse(stdout.trim()) as { primary: string; rewrapped: number; retired: string[]; unreadable: unknown[] };
    expect(report.rewrapped).toBeGreaterThan(ids.length / 2); // the rest were re-sealed by PUTs under the new primary
    expect(report.retired).toEqual([oldKek]);
    expect(stderr).toMatch(/vault rotate: re-wrapped \d+ data keys/);
    expect(failures).toEqual([]);
    expect(opens).toBeGreaterThan(50);
    expect(seals).toBeGreaterThan(10);
    expect(sawMixed).toBe(true);
    expect(seenKeks.has(report.primary)).toBe(true);
    expect(kekIdsInUse(store)).toEqual([report.primary]);
    for (const id of ids) expect((await vault.open('usr_a', id, readFields(store, id))).token).toBe(expected.get(id));
  });
});
