import type { webcrypto } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { open, seal } from '../keys.ts';
import type { AccountStore, SigningKeyRow } from './store.ts';

/**
 * The ES256 keys bearer tokens are signed with. A key is created `publishAheadMs` before it
 * signs (longer than the JWKS document's max-age, so a verifier that cached the set already
 * knows the next key), signs for `rotationMs`, and is published until every token it signed
 * has expired. Creation is one `INSERT … WHERE NOT EXISTS (a newer key)`: two processes rotate
 * once. The private half is sealed (AES-256-GCM) under a key derived from the master key, bound
 * to its kid; `vault rotate` does not touch it.
 */
export interface KeyRing {
  signer(now: number): Promise<{ kid: string; key: CryptoKey }>;
  /** The public key of a published kid; an unknown kid reloads the keys once (another process may have made it). */
  verifier(kid: string, now: number): Promise<CryptoKey | undefined>;
  /** The published public keys (JWKS). */
  jwks(now: number): Promise<{ keys: JWK[] }>;
}

export const PUBLISH_AHEAD_MS = 10 * 60 * 1000;
/** JWKS max-age, in seconds: shorter than PUBLISH_AHEAD_MS. */
export const JWKS_MAX_AGE_SECONDS = 300;
/** An unknown kid reloads the keys at most this often (a flood of made-up kids costs one select per second). */
const RELOAD_MS = 1000;

const aad = (kid: string) => `mimic/signing-key/v1|${kid}`;

type CryptoKey = webcrypto.CryptoKey;

interface Loaded {
  row: SigningKeyRow;
  publicJwk: JWK;
  publicKey?: CryptoKey;
  privateKey?: CryptoKey;
}

export function createKeyRing(deps: {
  store: AccountStore;
  sealKey: Buffer;
  newId: (prefix: string) => string;
  rotationMs: number;
  tokenTtlMs: number;
}): KeyRing {
  const { store, rotationMs } = deps;
  /** After its successor was made, a key still signs for PUBLISH_AHEAD_MS, and its last token lives tokenTtlMs more. */
  const retiredAfterMs = PUBLISH_AHEAD_MS + deps.tokenTtlMs;
  let keys: Loaded[] = [];
  let loadedAt = -Infinity;

  const load = async () => {
    const rows = await store.signingKeys();
    const known = new Map(keys.map((k) => [k.row.kid, k]));
    keys = rows.map((row) => known.get(row.kid) ?? { row, publicJwk: JSON.parse(row.publicJwk) as JWK });
  };
  /** Newest first: a key is published from its creation until the last token it may have signed has expired. */
  const published = (now: number) => keys.filter((_, i) => i === 0 || keys[i - 1]!.row.createdAt + retiredAfterMs > now);

  /** Makes the next key when the newest is older than a rotation (or there is none). */
  const rotate = async (now: number) => {
    const newest = keys[0];
    if (newest && newest.row.createdAt > now - rotationMs) return;
    const kid = deps.newId('sk');
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
    const privateJwk = JSON.stringify({ ...(await exportJWK(privateKey)), kid, alg: 'ES256' });
    const row = { kid, alg: 'ES256', publicJwk: JSON.stringify(publicJwk), privateJwk: seal(deps.sealKey, privateJwk, aad(kid)), createdAt: now };
    await store.addSigningKeyUnlessNewer(row, now - rotationMs);
    await load();
    // Keys no token can still need are deleted (their tokens have all expired).
    const oldest = published(now).at(-1);
    if (oldest && oldest !== keys.at(-1)) {
      await store.dropSigningKeysBefore(oldest.row.createdAt);
      await load();
    }
  };

  const ready = async (now: number) => {
    if (keys.length === 0 && loadedAt === -Infinity) {
      loadedAt = now;
      await load();
    }
    await rotate(now);
  };

  return {
    async signer(now) {
      await ready(now);
      // The newest key old enough to have been published ahead; else (a first start, or a start after a long stop) the oldest published one.
      const candidates = published(now);
      const k = candidates.find((x) => x.row.createdAt <= now - PUBLISH_AHEAD_MS) ?? candidates.at(-1)!;
      k.privateKey ??= (await importJWK(JSON.parse(open(deps.sealKey, k.row.privateJwk, aad(k.row.kid))) as JWK, 'ES256')) as CryptoKey;
      return { kid: k.row.kid, key: k.privateKey };
    },
    async verifier(kid, now) {
      let k = published(now).find((x) => x.row.kid === kid);
      if (!k && now - loadedAt >= RELOAD_MS) {
        loadedAt = now;
        await load();
        k = published(now).find((x) => x.row.kid === kid);
      }
      if (!k) return undefined;
      k.publicKey ??= (await importJWK(k.publicJwk, 'ES256')) as CryptoKey;
      return k.publicKey;
    },
    async jwks(now) {
      await ready(now);
      return { keys: published(now).map((k) => k.publicJwk) };
    },
  };
}
