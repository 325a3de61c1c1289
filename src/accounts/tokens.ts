import { randomBytes } from 'node:crypto';
import { SignJWT, decodeProtectedHeader, jwtVerify } from 'jose';
import { versionedMemory, type AuthUser, type BearerTokens } from '../platform/caller.ts';
import type { IssuedToken } from './contract.ts';
import type { KeyRing } from './signing-keys.ts';
import type { AccountStore } from './store.ts';

/**
 * Bearer tokens: JWS ES256 access tokens (RFC 9068: `typ: at+jwt`), `iss` = `aud` = the public
 * URL, `sub` the user, `sid` what they were minted for (a studio session `ses_…`, or the API
 * key they were exchanged for). A token verifies while its signature, times, issuer and
 * audience do, and while its `sid` is live: a revoked session or key kills its tokens on the
 * next request. Permissions are the user's at verify time, never the token's.
 */
export interface TokenService extends BearerTokens {
  issue(i: { userId: string; sid: string }): Promise<IssuedToken>;
}

/** Verified tokens remembered per process; past this many, the memory starts over. */
const REMEMBERED_TOKENS = 10_000;
/** Seconds of clock skew tolerated on exp, iat and nbf. */
const CLOCK_TOLERANCE_S = 5;

export function createTokenService(deps: {
  store: AccountStore;
  ring: KeyRing;
  clock: { now(): number };
  issuer: string;
  ttlSeconds: number;
  sessionIdleMs: number;
  /** Moves when an API key changes (the users store's keysVersion); tokens exchanged for a key follow it. */
  keysVersion: () => Promise<number>;
}): TokenService {
  const remembered = versionedMemory<{ user: AuthUser; exp: number }>(REMEMBERED_TOKENS);
  const verifyOptions = { algorithms: ['ES256'], typ: 'at+jwt', issuer: deps.issuer, audience: deps.issuer, clockTolerance: CLOCK_TOLERANCE_S, requiredClaims: ['sub', 'sid', 'exp', 'iat', 'jti'] };

  return {
    async issue({ userId, sid }) {
      const now = deps.clock.now();
      const { kid, key } = await deps.ring.signer(now);
      const iat = Math.floor(now / 1000);
      const jws = await new SignJWT({ sid })
        .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' })
        .setIssuer(deps.issuer)
        .setAudience(deps.issuer)
        .setSubject(userId)
        .setJti(randomBytes(16).toString('base64url'))
        .setIssuedAt(iat)
        .setExpirationTime(iat + deps.ttlSeconds)
        .sign(key);
      return { access_token: jws, token_type: 'Bearer', expires_in: deps.ttlSeconds };
    },
    async verify(jws) {
      const now = deps.clock.now();
      // Read before the lookups: a revocation committed after this read moves the next one.
      remembered.at(`${await deps.store.version()}:${await deps.keysVersion()}`);
      const known = remembered.get(jws);
      if (known && known.exp * 1000 + CLOCK_TOLERANCE_S * 1000 > now) return known.user;
      let payload;
      try {
        const { kid } = decodeProtectedHeader(jws);
        const key = typeof kid === 'string' ? await deps.ring.verifier(kid, now) : undefined;
        if (!key) return null;
        ({ payload } = await jwtVerify(jws, key, { ...verifyOptions, currentDate: new Date(now) }));
      } catch {
        return null; // malformed, tampered, expired, foreign: the same 401
      }
      const { sub, sid, exp } = payload as { sub: string; sid: unknown; exp: number };
      if (typeof sid !== 'string') return null;
      const owner = await deps.store.ownerOfSid(sid, now, now - deps.sessionIdleMs);
      if (!owner || owner.userId !== sub) return null;
      const user: AuthUser = Object.freeze({
        id: owner.userId,
        name: owner.name,
        permissions: Object.freeze([...owner.permissions]),
        keyId: sid,
        via: 'token' as const,
        ...(sid.startsWith('ses_') ? { sessionId: sid } : {}),
      });
      remembered.set(jws, { user, exp });
      return user;
    },
  };
}
