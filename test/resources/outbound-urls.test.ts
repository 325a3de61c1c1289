import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { toneCatalogue } from '../helpers/tone-voice.ts';
import { sqliteOf } from '../helpers/stores.ts';

/**
 * Every URL of a request that the service will contact later is checked against the egress
 * policy when the request arrives: a 400 naming the field, nothing stored or charged. Before,
 * a clip whose result_url the policy refused was rendered three times and ended UnknownError.
 */
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A resolver the test controls: names of example.test answer what `dns` says now. */
const dns: Record<string, string[]> = {};
const resolve = async (host: string) => dns[host] ?? Promise.reject(new Error('ENOTFOUND'));

function make(env: Record<string, string> = {}) {
  Object.assign(dns, { 'loop.example.test': ['127.0.0.1'], 'public.example.test': ['93.184.216.34'], 'mixed.example.test': ['93.184.216.34', '10.1.2.3'] });
  h = harness(env, { voices: toneCatalogue('local').catalogue, resolve });
  return h;
}

const credits = (hh: Harness, id: string) => (sqliteOf(hh.services.store).sqlite.prepare('SELECT credits FROM users WHERE id = ?').get(id) as { credits: number }).credits;
const rows = (hh: Harness, table: 'resources' | 'jobs') => (sqliteOf(hh.services.store).sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

const script = { type: 'text', input: 'Maybe more bread please' };
const bodies = {
  clips: (extra: object) => ({ presenter_id: 'eileen-Nc7kQ2rT5x', script, ...extra }),
  talks: (extra: object) => ({ source_url: 'https://public.example.test/face.jpg', script, ...extra }),
  animations: (extra: object) => ({ driver_url: 'bank://fun/', ...extra }),
} as const;
type Kind = keyof typeof bodies;

const REFUSED_HOSTS = [
  ['the metadata address 169.254.169.254', '169.254.169.254', /link-local/],
  ['the private address 10.0.0.1', '10.0.0.1', /private/],
  ['a name resolving to loopback', 'loop.example.test', /resolves to a loopback address/],
  ['a name with one private answer among public ones', 'mixed.example.test', /resolves to a private address/],
] as const;

describe.each(['clips', 'talks', 'animations'] as const)('POST /%s', (kind: Kind) => {
  it.each(REFUSED_HOSTS)('refuses a result_url on %s with a 400 naming result_url, storing and charging nothing', async (_, host, why) => {
    const hh = make();
    const u = hh.user();
    const res = await hh.call('POST', `/${kind}`, { key: u.key, body: bodies[kind]({ result_url: `https://${host}/out/r.mp4?X-Amz-Signature=s3cr3t` }) });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.kind).toBe('BadRequestError');
    expect(res.body.details).toEqual([{ field: 'result_url', message: expect.stringMatching(/^is refused by the egress policy: host /) }]);
    expect(res.body.details[0].message).toMatch(why);
    expect(JSON.stringify(res.body)).not.toContain('s3cr3t');
    expect(credits(hh, u.id)).toBe(10);
    expect(rows(hh, 'resources')).toBe(0);
    expect(rows(hh, 'jobs')).toBe(0);
  });

  it('refuses a webhook on a private address, naming webhook', async () => {
    const hh = make();
    const u = hh.user();
    const res = await hh.call('POST', `/${kind}`, { key: u.key, body: bodies[kind]({ webhook: 'https://10.0.0.1/hook' }) });
    expect(res.status).toBe(400);
    expect(res.body.details[0].field).toBe('webhook');
    expect(rows(hh, 'resources')).toBe(0);
  });

  it('accepts an empty webhook (none), as the hosted clients send it', async () => {
    const hh = make();
    const u = hh.user();
    const res = await hh.call('POST', `/${kind}`, { key: u.key, body: bodies[kind]({ webhook: '' }) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });

  it('accepts a host the allow list names, a public one, and one that does not resolve now', async () => {
    const hh = make({ MIMIC_EGRESS_ALLOW: 'loop.example.test' });
    const u = hh.user({ credits: 100 });
    for (const host of ['loop.example.test', 'public.example.test', 'nowhere.example.test']) {
      const res = await hh.call('POST', `/${kind}`, { key: u.key, body: bodies[kind]({ result_url: `https://${host}/r.mp4` }) });
      expect(res.status, `${host}: ${JSON.stringify(res.body)}`).toBe(201);
    }
  });
});

describe('the kinds with a webhook and an uploaded video', () => {
  it('refuses a consent upload whose webhook or video the policy refuses, leaving the consent waiting for its video', async () => {
    const hh = make();
    const u = hh.user();
    const consent = await hh.call('POST', '/consents', { key: u.key, body: { language: 'english' } });
    expect(consent.status, JSON.stringify(consent.body)).toBe(201);
    for (const [field, over] of [['webhook', { webhook: 'https://10.0.0.1/hook' }], ['source_url', { source_url: 'https://169.254.169.254/c.mp4' }]] as const) {
      const res = await hh.call('POST', `/consents/${consent.body.id}`, { key: u.key, body: { name: 'Maria Lopez', source_url: 'https://public.example.test/c.mp4', ...over } });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.details[0].field).toBe(field);
    }
    expect((await hh.call('GET', `/consents/${consent.body.id}`, { key: u.key })).body.status).toBe('created');
  });

  it('refuses an avatar whose webhook or footage the policy refuses, before its consent is looked at', async () => {
    const hh = make();
    const u = hh.user({ credits: 100 });
    const avatar = { name: 'Maria Lopez', gender: 'female', consent_id: 'cns_missing', source_url: 'https://public.example.test/f.mp4' };
    for (const [field, over] of [['webhook', { webhook: 'https://loop.example.test/hook' }], ['source_url', { source_url: 'https://192.168.1.1/f.mp4' }]] as const) {
      const res = await hh.call('POST', '/clips/avatars', { key: u.key, body: { ...avatar, ...over } });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.details[0].field).toBe(field);
    }
    expect(credits(hh, u.id)).toBe(100);
    expect(rows(hh, 'jobs')).toBe(0);
  });
});

describe('the fetched inputs', () => {
  it.each([
    ['clips', bodies.clips({ background: { source_url: 'https://loop.example.test/bg.png' } }), 'background.source_url'],
    ['clips', bodies.clips({ config: { logo: { url: 'https://10.0.0.1/logo.png', position: [0, 0] } } }), 'config.logo.url'],
    ['clips', { presenter_id: 'eileen-Nc7kQ2rT5x', script: { type: 'audio', audio_url: 'https://loop.example.test/a.mp3' } }, 'script.audio_url'],
    ['talks', bodies.talks({ source_url: 'https://169.254.169.254/face.jpg' }), 'source_url'],
    ['animations', { source_url: 'https://loop.example.test/face.jpg' }, 'source_url'],
    ['animations', { driver_url: 'https://10.0.0.1/driver.mp4' }, 'driver_url'],
  ])('%s: refuses %j naming its field', async (kind, body, field) => {
    const hh = make();
    const u = hh.user();
    const res = await hh.call('POST', `/${kind}`, { key: u.key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.details).toEqual([{ field, message: expect.stringMatching(/^is refused by the egress policy/) }]);
    expect(rows(hh, 'resources')).toBe(0);
  });
});

describe('a result_url refused at delivery (its name resolves elsewhere since the request)', () => {
  it.each([
    ['clips', bodies.clips({})],
    ['animations', bodies.animations({})],
  ])('%s: fails on the first attempt with ResultUrlError, refunded', async (kind, body) => {
    const hh = make();
    dns['flip.example.test'] = ['93.184.216.34'];
    const u = hh.user();
    const created = await hh.call('POST', `/${kind}`, { key: u.key, body: { ...body, result_url: 'https://flip.example.test/r.mp4' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const charged = credits(hh, u.id);
    expect(charged).toBeLessThan(10);
    dns['flip.example.test'] = ['127.0.0.1'];
    await hh.services.worker.drain();
    const rec = (await hh.call('GET', `/${kind}/${created.body.id}`, { key: u.key })).body;
    expect(rec.status).toBe('error');
    expect(rec.error).toEqual({ kind: 'ResultUrlError', description: expect.stringMatching(/^The result could not be delivered to result_url: host flip\.example\.test resolves to a loopback address/) });
    const job = sqliteOf(hh.services.store).sqlite.prepare('SELECT attempts, status FROM jobs WHERE resource_id = ?').get(created.body.id) as { attempts: number; status: string };
    expect(job.attempts).toBe(1);
    expect(credits(hh, u.id)).toBe(10);
  });
});
