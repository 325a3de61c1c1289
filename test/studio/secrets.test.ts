/**
 * The secrets pages as served (the studio app over a fake session): behind sign-in, in the
 * shell, a label and an error slot on every control, credential values only in password
 * inputs that the page never fills, the redirect URI to register, and the callback's
 * `?result=` said with fixed text (never the query's own).
 */
import { describe, expect, it } from 'vitest';
import { fakeStudio } from './fake-accounts.ts';
import { studioAssets } from '../../src/studio/routes/assets.ts';

const studio = fakeStudio();
const html = async (path: string) => {
  const res = await studio.get(path);
  expect(res.status, path).toBe(200);
  return res.text();
};
const inputsOf = (page: string) => [...page.matchAll(/<input\b[^>]*>/g)].map((m) => m[0]).filter((i) => !/type="(hidden|radio)"/.test(i));

describe('the secrets pages', () => {
  it.each(['/studio/secrets', '/studio/secrets/connect', '/studio/secrets/connect?connection=oac_x'])('%s: 303 to sign-in without a session', async (path) => {
    const res = await studio.get(path, { signedIn: false });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/studio/sign-in?next=${encodeURIComponent(path)}`);
  });

  it('the secrets page: a form per kind, values in password inputs with no value, the table, its script and style sheet', async () => {
    const page = await html('/studio/secrets');
    expect(page).toContain('<a href="/studio/secrets" aria-current="page">Secrets</a>');
    for (const type of ['bearer', 'api_key', 'basic']) expect(page).toContain(`<form id="secret-form-${type}" class="secret-form" data-type="${type}"`);
    for (const field of ['secret-bearer-token', 'secret-api_key-api_key', 'secret-basic-password']) {
      const input = inputsOf(page).find((i) => i.includes(`id="${field}"`))!;
      expect(input).toContain('type="password"');
      expect(input).toContain('autocomplete="off"');
      expect(input).not.toMatch(/\svalue=/);
    }
    expect(page).toContain(`<script type="module" src="${studioAssets().get('secrets.js')!.path}"></script>`);
    expect(page).toContain(`<link rel="stylesheet" href="${studioAssets().get('secrets.css')!.path}"/>`);
    expect(page).toContain('<th scope="col">Used by</th>');
    expect(page).toContain('href="/studio/secrets/connect"');
  });

  it.each(['/studio/secrets', '/studio/secrets/connect'])('%s: every control has a label, and each field its error slot', async (path) => {
    const page = await html(path);
    const inputs = inputsOf(page);
    expect(inputs.length).toBeGreaterThan(3);
    for (const input of inputs) {
      const id = /\bid="([^"]+)"/.exec(input)?.[1];
      expect(id, input).toBeDefined();
      expect(page.includes(`<label for="${id}">`) || /aria-label="/.test(input), id).toBe(true);
      const name = /\bname="([^"]+)"/.exec(input)?.[1];
      if (name) expect(page, name).toContain(`data-field="${name}"`);
    }
  });

  it('the connect page: the redirect URI to register, the secret field empty, the default scopes', async () => {
    const page = await html('/studio/secrets/connect');
    expect(page).toContain('value="http://mimic.test/secrets/oauth2/callback"');
    expect(inputsOf(page).find((i) => i.includes('id="connect-client_secret"'))).not.toMatch(/\svalue=/);
    expect(page).toContain('value="openid offline_access"');
    expect(page).toContain(`<script type="module" src="${studioAssets().get('secrets-connect.js')!.path}"></script>`);
    expect(page).not.toContain('id="connect-result" class="panel result" aria-labelledby="connect-result-title" tabindex');
    expect(page).toMatch(/id="connect-result"[^>]*hidden/);
  });

  it('?connection= hands the attempt to the script; ?secret= reconnects; ids of another shape are dropped', async () => {
    const page = await html('/studio/secrets/connect?connection=oac_abc123&secret=sec_xyz');
    expect(page).toContain('data-connection="oac_abc123"');
    expect(page).toContain('data-secret="sec_xyz"');
    expect(page).toContain('Reconnect an account');
    const hostile = await html(`/studio/secrets/connect?connection=${encodeURIComponent('"><img src=x>')}&secret=${encodeURIComponent('x" onfocus="y')}`);
    expect(hostile).not.toContain('data-connection');
    expect(hostile).not.toContain('data-secret');
    expect(hostile).not.toContain('<img src=x>');
  });

  it.each([
    ['bad_state', 'Unknown connection attempt'],
    ['used_state', 'Already finished'],
    ['expired', 'The connection attempt expired'],
  ])('?result=%s says why with fixed text, and Try again', async (result, title) => {
    const page = await html(`/studio/secrets/connect?result=${result}`);
    expect(page).toContain(title);
    expect(page).toContain('Nothing');
    expect(page).toContain('role="alert"');
    expect(page).toContain('Try again');
    expect(page).not.toMatch(/id="connect-result"[^>]*hidden/);
  });

  it('an unknown ?result= shows nothing of it', async () => {
    const page = await html(`/studio/secrets/connect?result=${encodeURIComponent('<b>you were hacked</b>')}`);
    expect(page).not.toContain('hacked');
    expect(page).toMatch(/id="connect-result"[^>]*hidden/);
  });
});
