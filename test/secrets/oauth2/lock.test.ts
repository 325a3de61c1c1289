import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../src/db/client.ts';
import { newLockOwner, tryLock, unlock } from '../../../src/secrets/oauth2/lock.ts';

let dir: string;
let a: Store;
let b: Store;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mimic-lock-'));
  a = openStore(join(dir, 'mimic.db'));
  b = openStore(join(dir, 'mimic.db'));
  a.sqlite.prepare("INSERT INTO users (id, name, credits, permissions, created_at) VALUES ('u1', 'u', 0, '[]', 0)").run();
  a.sqlite
    .prepare("INSERT INTO secrets (id, user_id, provider, type, status, version, created_at, updated_at) VALUES ('sec_1', 'u1', 'p', 'oauth2', 'active', 1, 0, 0)")
    .run();
});
afterEach(() => {
  a.close();
  b.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('oauth2 lease lock', () => {
  it('lets one owner in at a time, across connections', async () => {
    expect(await tryLock(a.sqlite, 'sec_1', 'one', 1000, 500)).toBe(true);
    expect(await tryLock(b.sqlite, 'sec_1', 'two', 1000, 500)).toBe(false);
    expect(await tryLock(a.sqlite, 'sec_1', 'one', 1000, 500)).toBe(false);
    await unlock(a.sqlite, 'sec_1', 'one');
    expect(await tryLock(b.sqlite, 'sec_1', 'two', 1001, 500)).toBe(true);
  });

  it('ignores an unlock by someone who is not the owner', async () => {
    expect(await tryLock(a.sqlite, 'sec_1', 'one', 1000, 500)).toBe(true);
    await unlock(b.sqlite, 'sec_1', 'two');
    expect(await tryLock(b.sqlite, 'sec_1', 'two', 1000, 500)).toBe(false);
  });

  it('expires a dead owner’s lease after leaseMs, and the late owner cannot release the new lease', async () => {
    expect(await tryLock(a.sqlite, 'sec_1', 'dead', 1000, 500)).toBe(true);
    expect(await tryLock(b.sqlite, 'sec_1', 'alive', 1499, 500)).toBe(false);
    expect(await tryLock(b.sqlite, 'sec_1', 'alive', 1500, 500)).toBe(true);
    await unlock(a.sqlite, 'sec_1', 'dead');
    expect(await tryLock(a.sqlite, 'sec_1', 'third', 1600, 500)).toBe(false);
  });

  it('never locks a secret that does not exist', async () => {
    expect(await tryLock(a.sqlite, 'sec_missing', 'one', 1000, 500)).toBe(false);
  });

  it('makes a different owner id on every call', async () => {
    expect(newLockOwner()).not.toBe(newLockOwner());
  });
});
