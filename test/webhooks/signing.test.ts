import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { generateSigningSecret, signatureHeader, signPayload } from '../../src/webhooks/signing.ts';
import { createWebhookSecrets, ROTATION_OVERLAP_MS } from '../../src/webhooks/secrets.ts';
import { createSqliteWebhookSecretStore } from '../../src/webhooks/secrets-store.ts';
import { webhookSecrets } from '../../src/db/schema/webhooks.ts';
import { addUser, openTestStore } from './db.ts';

describe('signPayload', () => {
  it('is what standardwebhooks verifies', () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const ts = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ type: 'animation.done', data: { id: 'anm_1', note: 'ünïcödé' } });
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': signPayload(secret, 'msg_1', ts, body) };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    // And it agrees byte for byte with the package's own signer.
    expect(signPayload(secret, 'msg_1', ts, body)).toBe(new Webhook(secret).sign('msg_1', new Date(ts * 1000), body));
  });

  it('fails verification for another id, timestamp, body or secret', () => {
    const secret = generateSigningSecret();
    const ts = Math.floor(Date.now() / 1000);
    const sig = signPayload(secret, 'msg_1', ts, '{}');
    const verify = (s: string, id: string, t: number, body: string) =>
      () => new Webhook(s).verify(body, { 'webhook-id': id, 'webhook-timestamp': String(t), 'webhook-signature': sig });
    expect(verify(secret, 'msg_1', ts, '{}')).not.toThrow();
    expect(verify(secret, 'msg_2', ts, '{}')).toThrow();
    expect(verify(secret, 'msg_1', ts + 1, '{}')).toThrow();
    expect(verify(secret, 'msg_1', ts, '{ }')).toThrow();
    expect(verify(generateSigningSecret(), 'msg_1', ts, '{}')).toThrow();
  });

  it('signs with every active secret, space-separated', () => {
    const [a, b] = [generateSigningSecret(), generateSigningSecret()];
    const header = signatureHeader([a, b], 'msg_1', 1, 'x');
    expect(header.split(' ')).toEqual([signPayload(a, 'msg_1', 1, 'x'), signPayload(b, 'msg_1', 1, 'x')]);
  });
});

describe('signing secrets', () => {
  const setup = async () => {
    const store = await openTestStore(join(mkdtempSync(join(tmpdir(), 'mimic-wh-')), 'db.sqlite'));
    addUser(store, 'usr_a');
    addUser(store, 'usr_b');
    let now = 1_000_000;
    const clock = { now: () => now };
    const secrets = createWebhookSecrets({ store: createSqliteWebhookSecretStore(store.db), clock, masterKey: Buffer.alloc(32, 3) });
    return { store, secrets, advance: (ms: number) => (now += ms), clock };
  };

  it('creates once per user, stores it sealed, and returns the same secret after', async () => {
    const { store, secrets } = await setup();
    const first = await secrets.getOrCreateSigningSecret('usr_a');
    expect(first).toMatchObject({ createdAt: 1_000_000, previousExpiresAt: null });
    expect((await secrets.getOrCreateSigningSecret('usr_a')).secret).toBe(first.secret);
    expect((await secrets.getOrCreateSigningSecret('usr_b')).secret).not.toBe(first.secret);
    const row = store.db.select().from(webhookSecrets).where(eq(webhookSecrets.userId, 'usr_a')).get()!;
    expect(row.current).not.toContain(first.secret.slice(6));
  });

  it('a sealed secret copied to another user does not open (bound by AAD)', async () => {
    const { store, secrets } = await setup();
    await secrets.getOrCreateSigningSecret('usr_a');
    await secrets.getOrCreateSigningSecret('usr_b');
    const a = store.db.select().from(webhookSecrets).where(eq(webhookSecrets.userId, 'usr_a')).get()!;
    store.db.update(webhookSecrets).set({ current: a.current }).where(eq(webhookSecrets.userId, 'usr_b')).run();
    await expect(secrets.activeSecrets('usr_b')).rejects.toThrow();
  });

  it('rotation: the previous secret signs alongside the new one for 24 h', async () => {
    const { secrets, advance } = await setup();
    const old = await secrets.getOrCreateSigningSecret('usr_a');
    advance(5000);
    const rotated = await secrets.rotateSigningSecret('usr_a');
    expect(rotated.secret).not.toBe(old.secret);
    expect(rotated).toMatchObject({ createdAt: 1_005_000, previousExpiresAt: 1_005_000 + ROTATION_OVERLAP_MS });
    expect(await secrets.activeSecrets('usr_a')).toEqual([rotated.secret, old.secret]);
    expect((await secrets.getOrCreateSigningSecret('usr_a')).secret).toBe(rotated.secret);
    advance(ROTATION_OVERLAP_MS);
    expect(await secrets.activeSecrets('usr_a')).toEqual([rotated.secret]);
    expect((await secrets.getOrCreateSigningSecret('usr_a')).previousExpiresAt).toBeNull();
  });
});
