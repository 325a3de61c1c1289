import { afterEach, describe, expect, it } from 'vitest';
import { harness, person, type Harness } from '../helpers/harness.ts';
import { csrfOf, signIn, type StudioClient } from './studio-client.ts';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const EMAIL = 'ann@example.org';
const PASSWORD = 'correct horse battery';

async function tokenOf(client: StudioClient): Promise<string> {
  const res = await client.post('/studio/token', {}, { 'x-csrf-token': await csrfOf(h, client) });
  return ((await res.json()) as { access_token: string }).access_token;
}

describe('the account API', () => {
  it('GET /account says who the caller is, by key or by token', async () => {
    h = harness();
    const { id, key } = await person(h, { email: EMAIL, password: PASSWORD, permissions: ['stitch'] });
    const byKey = await h.call('GET', '/account', { key });
    expect(byKey.status).toBe(200);
    expect(byKey.body).toEqual({ id, name: null, email: EMAIL, permissions: ['stitch'], via: 'api-key' });
    const client = await signIn(h, EMAIL, PASSWORD);
    const byToken = await h.call('GET', '/account', { token: await tokenOf(client) });
    expect(byToken.body).toMatchObject({ id, email: EMAIL, via: 'token', session_id: expect.stringMatching(/^ses_/) });
    const { key: other } = h.user();
    expect((await h.call('GET', '/account', { key: other })).body.email).toBeNull();
  });

  it('lists the live sessions marking the current one; revoking another ends it; another person cannot', async () => {
    h = harness();
    await person(h, { email: EMAIL, password: PASSWORD });
    const { key: stranger } = await person(h, { email: 'bob@example.org', password: PASSWORD });
    const laptop = await signIn(h, EMAIL, PASSWORD);
    const phone = await signIn(h, EMAIL, PASSWORD);
    const token = await tokenOf(laptop);
    const list = await h.call('GET', '/account/sessions', { token });
    expect(list.status).toBe(200);
    expect(list.body.sessions).toHaveLength(2);
    const current = list.body.sessions.filter((s: { current: boolean }) => s.current);
    expect(current).toHaveLength(1);
    const phoneId = list.body.sessions.find((s: { current: boolean }) => !s.current).id as string;

    expect((await h.call('DELETE', `/account/sessions/${phoneId}`, { key: stranger })).status).toBe(404);
    expect((await h.call('DELETE', `/account/sessions/${phoneId}`, { token })).status).toBe(204);
    expect((await h.call('DELETE', `/account/sessions/${phoneId}`, { token })).status).toBe(404);
    expect((await phone.get('/studio/')).status).toBe(303);
    expect((await laptop.get('/studio/')).status).toBe(200);
    expect((await h.call('GET', '/account/sessions', { token })).body.sessions).toHaveLength(1);
  });

  it('PUT /account/password checks the current password, signs the other sessions out, and the new one signs in', async () => {
    h = harness();
    await person(h, { email: EMAIL, password: PASSWORD });
    const laptop = await signIn(h, EMAIL, PASSWORD);
    const phone = await signIn(h, EMAIL, PASSWORD);
    const token = await tokenOf(laptop);
    const wrong = await h.call('PUT', '/account/password', { token, body: { current_password: 'nope nope', new_password: 'a new password' } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.kind).toBe('PermissionError');
    const short = await h.call('PUT', '/account/password', { token, body: { current_password: PASSWORD, new_password: 'short' } });
    expect(short.status).toBe(400);
    const ok = await h.call('PUT', '/account/password', { token, body: { current_password: PASSWORD, new_password: 'a new password' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ revoked_sessions: 1 });
    expect((await phone.get('/studio/')).status).toBe(303);
    expect((await laptop.get('/studio/')).status).toBe(200);
    await expect(signIn(h, EMAIL, PASSWORD)).rejects.toThrow(/answered 200/);
    await signIn(h, EMAIL, 'a new password');
  });
});
