/**
 * The consent endpoints without a video's verification: the challenge, its 30 minutes, the
 * upload's rules, lists, deletion and tenancy (verification: verify.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { CONSENT_LANGUAGES, findLanguage } from '../../src/consents/languages/index.ts';
import { sqliteOf } from '../helpers/stores.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function withClock(start = Date.UTC(2026, 10, 24, 9, 0, 0)) {
  let now = start;
  h = harness({}, { clock: { now: () => now } });
  return { h, advance: (ms: number) => void (now += ms) };
}

const upload = { name: 'Maria Lopez', source_url: 'https://videos.example/consent.mp4' };

describe('POST /consents', () => {
  it('hands out the statement of each language with [user name] and three passcode words, valid 30 minutes', async () => {
    const { h } = withClock();
    const u = h.user();
    for (const lang of CONSENT_LANGUAGES) {
      const res = await h.call('POST', '/consents', { key: u.key, body: { language: lang.name } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['created_at', 'created_by', 'expires_at', 'id', 'language', 'passcode', 'text']);
      expect(res.body).toMatchObject({ created_by: u.id, language: lang.name });
      expect(res.body.id).toMatch(/^cns_/);
      expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(30 * 60 * 1000);
      const [before, after] = lang.template.split('{passcode}') as [string, string];
      expect(res.body.text.startsWith(before)).toBe(true);
      expect(res.body.text.endsWith(after)).toBe(true);
      const code = res.body.text.slice(before.length, res.body.text.length - after.length).split(' ');
      expect(code).toHaveLength(3);
      for (const w of code) expect(lang.words).toContain(w);
      // The same words on their own, for a page that shows them large; and on the record.
      expect(res.body.passcode).toEqual(code);
      expect((await h.call('GET', `/consents/${res.body.id}`, { key: u.key })).body.passcode).toEqual(code);
      expect(res.body.text).toContain('[user name]');
    }
  });

  it('takes the language in any case, as the interface writes it ("English") or as the API answers ("english")', async () => {
    h = harness();
    const u = h.user();
    for (const language of ['English', 'english', 'ENGLISH', 'Portuguese']) {
      const res = await h.call('POST', '/consents', { key: u.key, body: { language } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.language).toBe(language.toLowerCase());
      const got = (await h.call('GET', `/consents/${res.body.id}`, { key: u.key })).body;
      expect(got.language).toBe(language.toLowerCase());
    }
  });

  it('refuses an unknown language with a 400 that lists the 18', async () => {
    h = harness();
    const u = h.user();
    for (const language of ['klingon', 'Englisch', '', 'en']) {
      const res = await h.call('POST', '/consents', { key: u.key, body: { language } });
      expect(res.status).toBe(400);
      expect(res.body.kind).toBe('BadRequestError');
      if (language) {
        expect(res.body.description).toContain('english');
        expect(res.body.details[0].allowed).toHaveLength(18);
      }
    }
    expect((await h.call('POST', '/consents', { key: u.key, body: { language: 'english', extra: 1 } })).status).toBe(400);
    expect((await h.call('POST', '/consents', { key: u.key, body: {} })).status).toBe(400);
    expect((await h.call('POST', '/consents', { body: { language: 'english' } })).status).toBe(401);
    const langs = (await h.call('GET', '/consents/languages', { key: u.key })).body.languages;
    expect(langs.map((l: { name: string }) => l.name)).toEqual(CONSENT_LANGUAGES.map((l) => l.name));
    expect(langs.find((l: { name: string }) => l.name === 'german').recognised).toBe(false);
  });
});

describe('a consent record', () => {
  it('is shown, listed newest first in pages, and deleted, only to its owner', async () => {
    h = harness();
    const u = h.user(), other = h.user();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await h.call('POST', '/consents', { key: u.key, body: { language: 'english' } })).body.id);
    const got = (await h.call('GET', `/consents/${ids[0]}`, { key: u.key })).body;
    expect(got).toMatchObject({ id: ids[0], object: 'consent', status: 'created', name: null, video_url: null, thumbnail_url: null, used_by: null, language: 'english', verification: { steps: [] } });
    const p1 = (await h.call('GET', '/consents?limit=2', { key: u.key })).body;
    expect(p1.consents.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
    const p2 = (await h.call('GET', `/consents?limit=2&token=${p1.token}`, { key: u.key })).body;
    expect(p2.consents.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    expect(p2.token).toBeUndefined();

    for (const [method, body] of [['GET', undefined], ['POST', upload], ['DELETE', undefined]] as const) {
      const res = await h.call(method, `/consents/${ids[0]}`, { key: other.key, ...(body ? { body } : {}) });
      expect(res.status).toBe(404);
      expect(res.body.kind).toBe('NotFoundError');
    }
    expect((await h.call('GET', '/consents', { key: other.key })).body.consents).toEqual([]);
    expect((await h.call('DELETE', `/consents/${ids[0]}`, { key: u.key })).body.id).toBe(ids[0]);
    expect((await h.call('GET', `/consents/${ids[0]}`, { key: u.key })).status).toBe(404);
  });

  it('takes one upload: validating, its job queued; a second upload is a 409; bad bodies are 400s and change nothing', async () => {
    h = harness();
    const u = h.user();
    const id = (await h.call('POST', '/consents', { key: u.key, body: { language: 'english' } })).body.id;
    for (const bad of [{ ...upload, name: '  ' }, { ...upload, source_url: 'http://videos.example/c.mp4' }, { ...upload, webhook: 'http://hooks.example/x' }, { name: 'x' }, { ...upload, source_url: 's3://nowhere/none.mp4' }]) {
      const res = await h.call('POST', `/consents/${id}`, { key: u.key, body: bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await h.call('GET', `/consents/${id}`, { key: u.key })).body.status).toBe('created');
    const res = await h.call('POST', `/consents/${id}`, { key: u.key, body: { ...upload, name: ' Maria   Lopez ' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'validating', name: 'Maria Lopez' });
    const jobs = sqliteOf(h.services.store).sqlite.prepare('SELECT kind FROM jobs WHERE resource_id = ?').all(id) as { kind: string }[];
    expect(jobs.map((j) => j.kind)).toEqual(['consent.verify']);
    const again = await h.call('POST', `/consents/${id}`, { key: u.key, body: upload });
    expect(again.status).toBe(409);
    expect(again.body.kind).toBe('ConflictError');
  });

  it('expires 30 minutes after creation: an upload then is refused, and the consent can never be used', async () => {
    const { h, advance } = withClock();
    const u = h.user();
    const made = (await h.call('POST', '/consents', { key: u.key, body: { language: 'german' } })).body;
    advance(30 * 60 * 1000);
    // At the limit it is still valid to look at; a millisecond later it is expired.
    expect((await h.call('GET', `/consents/${made.id}`, { key: u.key })).body.status).toBe('created');
    advance(1);
    const shown = (await h.call('GET', `/consents/${made.id}`, { key: u.key })).body;
    expect(shown.status).toBe('error');
    expect(shown.error.kind).toBe('ConsentExpiredError');
    const res = await h.call('POST', `/consents/${made.id}`, { key: u.key, body: upload });
    expect(res.status).toBe(400);
    expect(res.body.kind).toBe('ConsentExpiredError');
    expect(res.body.description).toMatch(/expired/);
    // Ended for good: a later upload is refused too, and no job was queued.
    expect((await h.call('GET', `/consents/${made.id}`, { key: u.key })).body).toMatchObject({ status: 'error', error: { kind: 'ConsentExpiredError' } });
    const later = await h.call('POST', `/consents/${made.id}`, { key: u.key, body: upload });
    expect([later.status, later.body.kind]).toEqual([400, 'ConsentExpiredError']);
    expect(sqliteOf(h.services.store).sqlite.prepare('SELECT count(*) AS n FROM jobs WHERE resource_id = ?').get(made.id)).toEqual({ n: 0 });
    expect(findLanguage('german')).toBeDefined();
  });
});
