import { afterEach, describe, expect, it } from 'vitest';
import { SignJWT, decodeProtectedHeader, generateKeyPair } from 'jose';
import { harness, person, userDeps, type Harness } from '../helpers/harness.ts';
import { revokeKey } from '../../src/users/accounts.ts';
import { csrfOf, signIn } from './studio-client.ts';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const EMAIL = 'ann@example.org';
const PASSWORD = 'correct horse battery';
const DAY = 24 * 3600 * 1000;
const ISSUER = 'http://mimic.test';

/** A clock the test moves. */
function testClock(start = Date.UTC(2026, 10, 28, 5, 0, 0)) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

async function sessionToken(h: Harness): Promise<string> {
  const client = await signIn(h, EMAIL, PASSWORD);
  const res = await client.post('/studio/token', {}, { 'x-csrf-token': await csrfOf(h, client) });
  return ((await res.json()) as { access_token: string }).access_token;
}

describe('bearer tokens', () => {
  it("a session's token works as Bearer on every route with the person's permissions, rate-limited per session", async () => {
    h = harness({ MIMIC_RATE_LIMIT: '1000', MIMIC_RATE_LIMIT_BURST: '50' });
    const { key } = await person(h, { email: EMAIL, password: PASSWORD });
    const token = await sessionToken(h);
    const header = decodeProtectedHeader(token);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    for (const path of ['/secrets', '/agents/me']) {
      const res = await h.call('GET', path, { token });
      expect(res.status, path).toBe(200);
    }
    const byToken = await h.call('GET', '/secrets', { token });
    const byKey = await h.call('GET', '/secrets', { key });
    // Separate buckets: the key's first request is its first, whatever the token used.
    expect(Number(byToken.headers.get('ratelimit-remaining'))).toBeLessThan(Number(byKey.headers.get('ratelimit-remaining')));
    expect(byKey.headers.get('ratelimit-remaining')).toBe('49');
  });

  it('refuses expired, tampered, alg:none, foreign-issuer, foreign-audience and unknown-kid tokens (401, Bearer invalid_token)', async () => {
    const clock = testClock();
    h = harness({}, { clock });
    const { id } = await person(h, { email: EMAIL, password: PASSWORD });
    const token = await sessionToken(h);
    const sid = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid as string;
    const { kid, key: ours } = await h.services.modules.accounts.ring.signer(clock.now());
    const iat = Math.floor(clock.now() / 1000);
    const forge = (claims: { iss?: string; aud?: string; kid?: string }, key: Parameters<SignJWT['sign']>[0] = ours) =>
      new SignJWT({ sid })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: claims.kid ?? kid })
        .setIssuer(claims.iss ?? ISSUER)
        .setAudience(claims.aud ?? ISSUER)
        .setSubject(id)
        .setJti('j')
        .setIssuedAt(iat)
        .setExpirationTime(iat + 600)
        .sign(key);
    // The forge itself is right: with our key and our claims it verifies.
    expect((await h.call('GET', '/secrets', { token: await forge({}) })).status).toBe(200);

    const [head, body, sig] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
    const tampered = `${head}.${Buffer.from(JSON.stringify({ ...claims, sub: 'usr_other' })).toString('base64url')}.${sig}`;
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid })).toString('base64url')}.${body}.`;
    const stranger = (await generateKeyPair('ES256')).privateKey;
    const bad = {
      tampered,
      none,
      'foreign iss': await forge({ iss: 'https://evil.example' }),
      'foreign aud': await forge({ aud: 'https://evil.example' }),
      'unknown kid': await forge({ kid: 'sk_unknown' }),
      'a stranger key under our kid': await forge({}, stranger),
    };
    for (const [what, t] of Object.entries(bad)) {
      const res = await h.call('GET', '/secrets', { token: t });
      expect(res.status, what).toBe(401);
      expect(res.body.kind, what).toBe('AuthorizationError');
      expect(res.headers.get('www-authenticate'), what).toBe('Bearer error="invalid_token"');
    }
    expect((await h.call('GET', '/secrets', { token })).status).toBe(200);
    clock.advance(600_000 + 6000); // past exp and the 5 s tolerance
    expect((await h.call('GET', '/secrets', { token })).status).toBe(401);
  });

  it('rotates keys: the new kid signs after it was published, the old token verifies until its key drops, JWKS lists both', async () => {
    const clock = testClock();
    h = harness({ MIMIC_TOKEN_KEY_DAYS: '1' }, { clock });
    await person(h, { email: EMAIL, password: PASSWORD });
    const jwks = async () => ((await h.call('GET', '/.well-known/jwks.json')).body as { keys: { kid: string; kty: string; d?: string }[] }).keys;
    const first = await sessionToken(h);
    const kidA = decodeProtectedHeader(first).kid;
    const keysA = await jwks();
    expect(keysA.map((k) => k.kid)).toEqual([kidA]);
    expect(keysA[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(keysA[0]!.d).toBeUndefined();
    const res = await h.call('GET', '/.well-known/jwks.json');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');

    clock.advance(DAY + 1);
    // A new key is made and published, but the old one still signs for ten minutes.
    const during = await sessionToken(h);
    expect(decodeProtectedHeader(during).kid).toBe(kidA);
    const both = (await jwks()).map((k) => k.kid);
    expect(both).toHaveLength(2);
    const kidB = both.find((k) => k !== kidA)!;

    clock.advance(10 * 60 * 1000);
    const after = await sessionToken(h);
    expect(decodeProtectedHeader(after).kid).toBe(kidB);
    expect((await h.call('GET', '/secrets', { token: during })).status).toBe(200); // signed by A, not expired
    expect((await jwks()).map((k) => k.kid).sort()).toEqual([kidA, kidB].sort());

    clock.advance(600_000 + 6000); // A's last token has expired: A is no longer published
    expect((await jwks()).map((k) => k.kid)).toEqual([kidB]);
    expect((await h.call('GET', '/secrets', { token: after })).status).toBe(401); // expired too
  });

  it('a revoked session kills its tokens on the next call', async () => {
    h = harness();
    await person(h, { email: EMAIL, password: PASSWORD });
    const client = await signIn(h, EMAIL, PASSWORD);
    const csrf = await csrfOf(h, client);
    const token = ((await (await client.post('/studio/token', {}, { 'x-csrf-token': csrf })).json()) as { access_token: string }).access_token;
    expect((await h.call('GET', '/secrets', { token })).status).toBe(200);
    expect((await client.post('/studio/sign-out', { _csrf: csrf })).status).toBe(303);
    expect((await h.call('GET', '/secrets', { token })).status).toBe(401);
  });

  it('POST /auth/token exchanges an API key; a token cannot mint a token; a revoked key kills its tokens', async () => {
    h = harness();
    const { id, key } = h.user();
    const res = await h.call('POST', '/auth/token', { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 600 });
    const token = res.body.access_token as string;
    const me = await h.call('GET', '/agents/me', { token });
    expect(me.status).toBe(200);

    const again = await h.call('POST', '/auth/token', { token });
    expect(again.status).toBe(403);
    expect(again.body.kind).toBe('PermissionError');

    const keyId = (await userDeps(h.services).users.listKeys(id))[0]!.id;
    expect(JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid).toBe(keyId);
    expect(await revokeKey(userDeps(h.services), keyId)).toBe(true);
    expect((await h.call('GET', '/agents/me', { token })).status).toBe(401);
  });

  it('a header that is neither a key nor a token keeps the Basic challenge', async () => {
    h = harness();
    const res = await h.call('GET', '/secrets', { headers: { authorization: 'Bearer not-a-token' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="mimic"');
  });
});
