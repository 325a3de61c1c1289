import { afterEach, describe, expect, it } from 'vitest';
import { harness, person, type Harness } from '../helpers/harness.ts';
import { ORIGIN, csrfOf, signIn, studioClient } from './studio-client.ts';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const EMAIL = 'ann@example.org';
const PASSWORD = 'correct horse battery';

describe('studio CSRF', () => {
  it('refuses the token and sign-out without the CSRF token, or with a wrong one (403 PermissionError); the right one works', async () => {
    h = harness();
    await person(h, { email: EMAIL, password: PASSWORD });
    const client = await signIn(h, EMAIL, PASSWORD);
    const csrf = await csrfOf(h, client);
    const other = await csrfOf(h, await signIn(h, EMAIL, PASSWORD));
    expect(other).not.toBe(csrf);

    for (const headers of [{}, { 'x-csrf-token': 'x' }, { 'x-csrf-token': other }] as Record<string, string>[]) {
      const token = await client.post('/studio/token', {}, headers);
      expect(token.status).toBe(403);
      expect(((await token.json()) as { kind: string }).kind).toBe('PermissionError');
    }
    for (const fields of [{}, { _csrf: '' }, { _csrf: other }] as Record<string, string>[]) {
      const out = await client.post('/studio/sign-out', fields);
      expect(out.status).toBe(403);
      expect(((await out.json()) as { kind: string }).kind).toBe('PermissionError');
    }

    const token = await client.post('/studio/token', {}, { 'x-csrf-token': csrf });
    expect(token.status).toBe(200);
    expect(token.headers.get('cache-control')).toBe('no-store');
    const body = (await token.json()) as { access_token: string; token_type: string; expires_in: number };
    expect(body.token_type).toBe('Bearer');
    expect(body.expires_in).toBe(600);
    expect((await h.call('GET', '/agents/me', { token: body.access_token })).status).toBe(200);

    // The right token from another site is still refused.
    expect((await client.post('/studio/token', {}, { 'x-csrf-token': csrf, origin: 'https://evil.example' })).status).toBe(403);
    expect((await client.post('/studio/sign-out', { _csrf: csrf }, { origin: ORIGIN })).status).toBe(303);
  });

  it('a token without a session is a 401, not a redirect (a page fetch reads it)', async () => {
    h = harness();
    const res = await studioClient(h).post('/studio/token', {}, { 'x-csrf-token': 'x' });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { kind: string }).kind).toBe('AuthorizationError');
  });
});
