import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { toneCatalogue } from '../helpers/tone-voice.ts';
import { BUILT_IN_PRESENTERS } from '../../src/presenters/built-in.ts';
import { createPresenterCatalogue, noUserPresenters, type PresenterEntry } from '../../src/presenters/catalogue.ts';
import { pagePresenters } from '../../src/presenters/service.ts';
import { parsePage } from '../../src/pagination.ts';
import { readFileSync } from 'node:fs';
import { parsePresenterAliases, resolveAlias } from '../../src/presenters/aliases.ts';
import { ConfigurationError } from '../../src/config.ts';
import { sqliteOf } from '../helpers/stores.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const FIELDS = ['created_at', 'gender', 'image_url', 'is_streamable', 'modified_at', 'name', 'owner_id', 'presenter_id', 'preview_url', 'talking_preview_url', 'thumbnail_url', 'voice'];

describe('GET /clips/presenters', () => {
  it('lists every built-in presenter with every field of the interface, its pictures as fetchable signed URLs', async () => {
    h = harness();
    const u = h.user();
    const res = await h.call('GET', '/clips/presenters', { key: u.key });
    expect(res.status).toBe(200);
    expect(res.body.token).toBeUndefined();
    expect(res.body.presenters).toHaveLength(BUILT_IN_PRESENTERS.length);
    expect(BUILT_IN_PRESENTERS.length).toBeGreaterThanOrEqual(6);
    expect(new Set(res.body.presenters.map((x: { presenter_id: string }) => x.presenter_id)).size).toBe(BUILT_IN_PRESENTERS.length);
    for (const x of res.body.presenters) expect(x.presenter_id).toMatch(/^[a-z]+-[A-Za-z0-9]{10}$/);
    // Every picture is a file of the repository.
    for (const b of BUILT_IN_PRESENTERS) expect(readFileSync(b.image).length).toBeGreaterThan(1000);
    const p = res.body.presenters[0];
    expect(Object.keys(p).sort()).toEqual(FIELDS);
    expect(p).toMatchObject({ presenter_id: 'eileen-Nc7kQ2rT5x', name: 'Eileen', gender: 'female', owner_id: 'mimic', is_streamable: true, voice: { type: 'flite', voice_id: 'en-US-flite-slt' } });
    // Listed from the start, before it is rendered (fetching it then waits for the render: see below).
    expect(p.talking_preview_url).toMatch(/\/media\/mimic\/presenters\/eileen-Nc7kQ2rT5x\/talking-preview\.mp4\?expires=/);
    // The picture as shipped; the thumbnail and preview are PNG stills made from it.
    const image = new URL(p.image_url);
    const got = await h.app.request(image.pathname + image.search);
    expect(Buffer.from(await got.arrayBuffer()).equals(readFileSync(BUILT_IN_PRESENTERS[0]!.image))).toBe(true);
    for (const [field, side] of [['thumbnail_url', 128], ['preview_url', 256]] as const) {
      const url = new URL(p[field]);
      const got = await h.app.request(url.pathname + url.search);
      expect(got.status, field).toBe(200);
      const png = Buffer.from(await got.arrayBuffer());
      expect(png.toString('latin1', 1, 4)).toBe('PNG');
      expect(Math.max(png.readUInt32BE(16), png.readUInt32BE(20)), field).toBe(side);
    }
  });

  it('answers one presenter as {presenters: [one]}, 404 for an unknown id, 401 without a key', async () => {
    h = harness();
    const u = h.user();
    const one = await h.call('GET', '/clips/presenters/eileen-Nc7kQ2rT5x', { key: u.key });
    expect(one.status).toBe(200);
    expect(one.body.presenters).toHaveLength(1);
    expect(one.body.presenters[0].presenter_id).toBe('eileen-Nc7kQ2rT5x');
    expect((await h.call('GET', '/clips/presenters/nobody-0000000000', { key: u.key })).status).toBe(404);
    expect((await h.call('GET', '/clips/presenters')).status).toBe(401);
  });

  it('pages built-ins then the user\'s own with an opaque token (the seam for user presenters)', async () => {
    h = harness();
    const own = (id: string): PresenterEntry => ({
      id, name: id, gender: 'other', ownerId: 'usr_x', createdAt: 0, modifiedAt: 0, owner: 'usr_x',
      keys: { image: 'a/i.png', thumbnail: 'a/t.png', preview: 'a/p.png', talking: 'a/t.mp4' }, imagePath: '/nowhere', voice: { type: 'flite', voice_id: 'en-GB-flite-awb' }, isStreamable: false,
    });
    const catalogue = createPresenterCatalogue({ media: h.services.media, users: { ...noUserPresenters, list: async (userId) => (userId === 'usr_x' ? [own('mine-1'), own('mine-2')] : []) } });
    const n = BUILT_IN_PRESENTERS.length;
    const first = await pagePresenters(catalogue, 'usr_x', n + 1, null);
    expect(first.presenters.map((p) => p.presenter_id)).toEqual([...BUILT_IN_PRESENTERS.map((b) => b.id), 'mine-1']);
    const second = await pagePresenters(catalogue, 'usr_x', n + 1, parsePage({ token: first.token! }).cursor);
    expect(second.presenters.map((p) => p.presenter_id)).toEqual(['mine-2']);
    expect(second.token).toBeUndefined();
    expect((await pagePresenters(catalogue, 'usr_other', 100, null)).presenters).toHaveLength(n);
    // Over HTTP too: two pages of the built-ins.
    const u = h.user();
    const p1 = (await h.call('GET', '/clips/presenters?limit=4', { key: u.key })).body;
    const p2 = (await h.call('GET', `/clips/presenters?limit=4&token=${p1.token}`, { key: u.key })).body;
    expect([...p1.presenters, ...p2.presenters].map((p: { presenter_id: string }) => p.presenter_id)).toEqual(BUILT_IN_PRESENTERS.map((b) => b.id));
    expect(p2.token).toBeUndefined();
    expect(await catalogue.find('usr_other', 'mine-1')).toBeUndefined();
  });

  it('renders each built-in presenter\'s talking preview once, with its own voice, after which the record carries its URL', async () => {
    const tone = toneCatalogue();
    h = harness({}, { voices: tone.catalogue });
    const u = h.user();
    await h.services.modules.clips.start();
    await h.services.worker.drain();
    // The jobs are queued together; the worker may take them in any order.
    const byText = (a: [string, string], b: [string, string]) => a[0].localeCompare(b[0]);
    expect(tone.voice.calls.map((c): [string, string] => [c.text, c.voiceId]).sort(byText)).toEqual(
      BUILT_IN_PRESENTERS.map((b): [string, string] => [`Hello, I am ${b.name}. Write me a script, and I will say it for you.`, b.voice.voice_id]).sort(byText),
    );
    const p = (await h.call('GET', '/clips/presenters/eileen-Nc7kQ2rT5x', { key: u.key })).body.presenters[0];
    expect(p.talking_preview_url).toMatch(/talking-preview\.mp4\?expires=/);
    const url = new URL(p.talking_preview_url);
    expect((await h.app.request(url.pathname + url.search)).status).toBe(200);
    // A second start queues nothing: it is rendered once.
    await h.services.modules.clips.start();
    await h.services.worker.drain();
    expect(tone.voice.calls).toHaveLength(BUILT_IN_PRESENTERS.length);
  });
});

describe('talking_preview_url before the preview is rendered', () => {
  const jobsOf = (x: Harness, presenterId: string) =>
    sqliteOf(x.services.store).sqlite.prepare(`SELECT status FROM jobs WHERE kind = 'presenter.preview' AND resource_id = ?`).all(presenterId) as { status: string }[];

  it('a fetch waits for the render (queued once, however many fetch) and then serves the video', async () => {
    const tone = toneCatalogue();
    h = harness({}, { voices: tone.catalogue });
    const u = h.user();
    const p = (await h.call('GET', '/clips/presenters/grace-Hq4mW8zL2c', { key: u.key })).body.presenters[0];
    const url = new URL(p.talking_preview_url);
    const x = h;
    const fetches = [x.app.request(url.pathname + url.search), x.app.request(url.pathname + url.search)] as const;
    // Both fetches wait on one job; the worker renders it.
    await expect.poll(() => jobsOf(x, 'grace-Hq4mW8zL2c').length).toBe(1);
    await x.services.worker.drain();
    const [a, b] = await Promise.all(fetches);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await a.arrayBuffer()).toString('latin1', 4, 8)).toBe('ftyp');
    expect(jobsOf(x, 'grace-Hq4mW8zL2c')).toEqual([{ status: 'done' }]);
    expect(tone.voice.calls.map((c) => c.text)).toEqual(['Hello, I am Grace. Write me a script, and I will say it for you.']);
  });

  it('a job that ends without the video answers 503 with a JsonError, and the next fetch queues it again', async () => {
    h = harness();
    const u = h.user();
    const p = (await h.call('GET', '/clips/presenters/grace-Hq4mW8zL2c', { key: u.key })).body.presenters[0];
    const url = new URL(p.talking_preview_url);
    const x = h;
    const fetching = x.app.request(url.pathname + url.search);
    await expect.poll(() => jobsOf(x, 'grace-Hq4mW8zL2c').length).toBe(1);
    await x.services.queue.cancelFor('grace-Hq4mW8zL2c');
    const res = await fetching;
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ kind: 'ServiceUnavailableError', description: expect.stringMatching(/could not be rendered/) });
    const again = x.app.request(url.pathname + url.search);
    await expect.poll(() => jobsOf(x, 'grace-Hq4mW8zL2c').length).toBe(2);
    await x.services.worker.drain();
    expect((await again).status).toBe(200);
  });

  it('another presenter key, a missing presenter and a bad signature are not rendered', async () => {
    h = harness();
    const x = h;
    const signed = (key: string) => new URL(x.services.media.signedUrl('mimic', key));
    const nobody = signed('presenters/nobody-0000000000/talking-preview.mp4');
    expect((await x.app.request(nobody.pathname + nobody.search)).status).toBe(404);
    const other = signed('presenters/grace-Hq4mW8zL2c/other.mp4');
    expect((await x.app.request(other.pathname + other.search)).status).toBe(404);
    // A user's key for a built-in presenter is not the presenter's owner.
    const wrongOwner = new URL(x.services.media.signedUrl('usr_someone', 'presenters/grace-Hq4mW8zL2c/talking-preview.mp4'));
    expect((await x.app.request(wrongOwner.pathname + wrongOwner.search)).status).toBe(404);
    const forged = signed('presenters/grace-Hq4mW8zL2c/talking-preview.mp4');
    forged.searchParams.set('signature', 'x'.repeat(43));
    expect((await x.app.request(forged.pathname + forged.search)).status).toBe(403);
    expect(jobsOf(x, 'grace-Hq4mW8zL2c')).toEqual([]);
    expect(jobsOf(x, 'nobody-0000000000')).toEqual([]);
  });
});

describe('presenter aliases', () => {
  it('GET /clips/presenters/{id} answers the built-in presenter an alias names; the list never shows an alias', async () => {
    h = harness();
    const u = h.user();
    const byAlias = await h.call('GET', '/clips/presenters/v2_public_alex@qcvo4gupoy', { key: u.key });
    expect(byAlias.status).toBe(200);
    expect(byAlias.body.presenters[0]).toMatchObject({ presenter_id: 'ernst-Bv6tR3nK9p', gender: 'male' });
    const amber = await h.call('GET', '/clips/presenters/v2_public_amber@0zSz8kflCN', { key: u.key });
    expect(amber.body.presenters[0].gender).toBe('female');
    const list = await h.call('GET', '/clips/presenters', { key: u.key });
    expect(list.body.presenters.map((p: { presenter_id: string }) => p.presenter_id)).toEqual(BUILT_IN_PRESENTERS.map((b) => b.id));
    expect((await h.call('GET', '/clips/presenters/v2_public_nobody@x', { key: u.key })).status).toBe(404);
  });

  it('the operator\'s map replaces or extends the default one, and is validated at start', async () => {
    h = harness({ MIMIC_PRESENTER_ALIASES: 'acme_bob=aksel-Jd2xF7sY4g' });
    const u = h.user();
    expect((await h.call('GET', '/clips/presenters/acme_bob', { key: u.key })).body.presenters[0].presenter_id).toBe('aksel-Jd2xF7sY4g');
    expect((await h.call('GET', '/clips/presenters/v2_public_alex@qcvo4gupoy', { key: u.key })).status).toBe(404);
    const both = parsePresenterAliases('default,acme_*=grace-Hq4mW8zL2c,acme_bob=aksel-Jd2xF7sY4g');
    expect(resolveAlias(both, 'v2_public_alex@qcvo4gupoy')).toBe('ernst-Bv6tR3nK9p');
    expect(resolveAlias(both, 'acme_bob')).toBe('aksel-Jd2xF7sY4g');
    expect(resolveAlias(both, 'acme_sue')).toBe('grace-Hq4mW8zL2c');
    // The hosted service's public ids, as its docs write them: the name in either case, with an outfit and a place or not.
    const defaults = parsePresenterAliases(undefined);
    expect(resolveAlias(defaults, 'v2_public_Amber@0zSz8kflCN')).toBe('eileen-Nc7kQ2rT5x');
    expect(resolveAlias(defaults, 'v2_public_Amber_RedSweater_HomeOffice@atjDiWT4JK')).toBe('eileen-Nc7kQ2rT5x');
    expect(resolveAlias(defaults, 'v2_public_alex_black_suite_green_screen@u8RGmlrjpD')).toBe('ernst-Bv6tR3nK9p');
    expect(resolveAlias(defaults, 'v2_public_Adam_BlackShirt_Library@6uEefixtDc')).toBe('mehmet-Wk9cP5hT1e');
    expect(resolveAlias(defaults, 'v2_public_Alyssa_NoHands_RedSuite_Lobby@qtzjxMSwEa')).toBe('charlotte-Ys3gM6vQ8r');
    expect(resolveAlias(defaults, 'RIAN-lZC6MmWfC1')).toBeUndefined();
    expect(parsePresenterAliases('')).toEqual([]);
    for (const bad of ['alex=nobody-0000000000', 'alex', 'eileen-Nc7kQ2rT5x=grace-Hq4mW8zL2c', 'a*b=grace-Hq4mW8zL2c', 'x=grace-Hq4mW8zL2c,x=grace-Hq4mW8zL2c', '*=grace-Hq4mW8zL2c']) {
      expect(() => parsePresenterAliases(bad), bad).toThrow(ConfigurationError);
    }
  });

  it('every default alias names a built-in presenter of the gender the hosted service\'s presenter has', () => {
    const male = ['alex', 'rian', 'jack', 'adam', 'arran', 'benjamin'];
    const gender = new Map(BUILT_IN_PRESENTERS.map((b) => [b.id, b.gender]));
    for (const a of parsePresenterAliases(undefined)) {
      const name = /^(?:v2_public_)?([a-z]+)/.exec(a.from)![1]!;
      expect(gender.get(a.to), a.from).toBe(male.includes(name) ? 'male' : 'female');
    }
  });
});
