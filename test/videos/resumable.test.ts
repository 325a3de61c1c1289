/**
 * Resumable video uploads (tus 1.0.0 core, creation, expiration, termination) through the app:
 * create, append in parts, HEAD, the refusals (wrong offset, past the length, wrong type,
 * version, another user), completion stored exactly as POST /videos stores, the per-user cap,
 * DELETE, and expiry with the sweep.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { consentVideo } from '../helpers/avatar-videos.ts';
import { avatarBody, verifiedConsent } from '../avatars/helpers.ts';
import { uploadSweeper } from '../../src/videos/resumable/sweep.ts';
import { createLogger } from '../../src/log.ts';
import { storedFile } from '../media/stored-file.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const TUS = { 'tus-resumable': '1.0.0' };
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function client(h: Harness, key: string) {
  const auth = { authorization: `Basic ${key}` };
  const send = async (method: string, path: string, headers: Record<string, string> = {}, body?: Uint8Array) => {
    const res = await h.app.request(path, { method, headers: { ...auth, ...headers }, ...(body ? { body } : {}) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, any>) : undefined };
  };
  return {
    send,
    create: (length: number, extra: Record<string, string> = {}) => send('POST', '/videos/uploads', { ...TUS, 'upload-length': String(length), ...extra }),
    patch: (id: string, offset: number, bytes: Uint8Array, extra: Record<string, string> = {}) =>
      send('PATCH', `/videos/uploads/${id}`, { ...TUS, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream', ...extra }, bytes),
    head: (id: string) => h.app.request(`/videos/uploads/${id}`, { method: 'HEAD', headers: { ...auth, ...TUS } }),
    get: (id: string) => send('GET', `/videos/uploads/${id}`),
    del: (id: string) => send('DELETE', `/videos/uploads/${id}`, TUS),
  };
}

const videoBytes = async () => readFileSync(await consentVideo({ text: 'Hello there, this is a short test video with some words in it.' }));

describe('POST /videos/uploads', () => {
  it('creates an empty upload: 201 with Location, Upload-Expires in 24 h, Tus-Resumable, and the record', async () => {
    h = harness();
    const u = h.user();
    const c = client(h, u.key);
    const meta = `filename ${Buffer.from('my vidéo.mp4').toString('base64')},filetype ${Buffer.from('video/mp4').toString('base64')},flag`;
    const res = await c.create(1000, { 'upload-metadata': meta });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = res.body!.id as string;
    expect(id).toMatch(/^upl_/);
    expect(res.headers.get('location')).toBe(`http://mimic.test/videos/uploads/${id}`);
    expect(res.headers.get('tus-resumable')).toBe('1.0.0');
    const expires = Date.parse(res.headers.get('upload-expires')!);
    expect(Math.abs(expires - (h.services.clock.now() + 24 * 3600_000))).toBeLessThan(5_000);
    expect(res.body).toMatchObject({ id, status: 'uploading', offset: 0, length: 1000, metadata: { filename: 'my vidéo.mp4', filetype: 'video/mp4', flag: '' } });
    // Kept under the data directory, per user.
    expect(existsSync(join(h.config.dataDir, 'uploads', u.id, id, 'info.json'))).toBe(true);
  });

  it('refuses a missing or other tus version (412), a missing, bad or oversized length, and malformed metadata', async () => {
    h = harness({ MIMIC_VIDEO_UPLOAD_MAX_BYTES: String(1024 * 1024) });
    const c = client(h, h.user().key);
    const cases: [Record<string, string>, number, string][] = [
      [{ 'upload-length': '10' }, 412, 'TusVersionError'],
      [{ 'tus-resumable': '0.2.2', 'upload-length': '10' }, 412, 'TusVersionError'],
      [TUS, 400, 'BadRequestError'],
      [{ ...TUS, 'upload-length': '-1' }, 400, 'BadRequestError'],
      [{ ...TUS, 'upload-length': '1e3' }, 400, 'BadRequestError'],
      [{ ...TUS, 'upload-length': '0' }, 400, 'BadRequestError'],
      [{ ...TUS, 'upload-defer-length': '1' }, 400, 'BadRequestError'],
      [{ ...TUS, 'upload-length': String(1024 * 1024 + 1) }, 413, 'PayloadTooLargeError'],
      [{ ...TUS, 'upload-length': '10', 'upload-metadata': 'filename not!base64' }, 400, 'BadRequestError'],
      [{ ...TUS, 'upload-length': '10', 'upload-metadata': `a ${Buffer.from([0xff, 0xfe]).toString('base64')}` }, 400, 'BadRequestError'],
      [{ ...TUS, 'upload-length': '10', 'upload-metadata': 'a YQ==,a YQ==' }, 400, 'BadRequestError'],
    ];
    for (const [headers, status, kind] of cases) {
      const res = await c.send('POST', '/videos/uploads', headers);
      expect([JSON.stringify(headers), res.status, res.body?.kind]).toEqual([JSON.stringify(headers), status, kind]);
      expect(typeof res.body?.description).toBe('string');
    }
    const wrongVersion = await c.send('POST', '/videos/uploads', { 'tus-resumable': '2.0.0', 'upload-length': '10' });
    expect([wrongVersion.status, wrongVersion.headers.get('tus-version'), wrongVersion.headers.get('tus-resumable')]).toEqual([412, '1.0.0', '1.0.0']);
    expect((await c.send('POST', '/videos/uploads', { ...TUS, 'upload-length': '10' })).status).toBe(201);
    expect((await h.app.request('/videos/uploads', { method: 'POST', headers: { ...TUS, 'upload-length': '10' } })).status).toBe(401);
  });

  it('caps the unfinished uploads of one user (429), not of another, and a deleted one frees its place', async () => {
    h = harness({ MIMIC_VIDEO_UPLOADS_PER_USER: '2' });
    const c = client(h, h.user().key), other = client(h, h.user().key);
    const [a, b, third] = await Promise.all([c.create(10), c.create(10), c.create(10)]);
    expect([a.status, b.status, third.status].sort()).toEqual([201, 201, 429]);
    expect([third, a, b].find((r) => r.status === 429)!.body).toMatchObject({ kind: 'TooManyRequestsError', description: expect.stringMatching(/unfinished uploads/) });
    expect((await other.create(10)).status).toBe(201);
    const first = [a, b, third].find((r) => r.status === 201)!.body!.id as string;
    expect((await c.del(first)).status).toBe(204);
    expect((await c.create(10)).status).toBe(201);
  });
});

describe('PATCH, HEAD, GET and DELETE /videos/uploads/{id}', () => {
  it('appends in parts, answers the offset by HEAD, refuses a wrong offset (409), bytes past the length (413), another content type (415), and completes into a stored video an avatar accepts', async () => {
    h = harness();
    const u = h.user({ credits: 50 });
    const c = client(h, u.key);
    const bytes = await videoBytes();
    const half = Math.floor(bytes.length / 2);
    const id = (await c.create(bytes.length)).body!.id as string;

    const first = await c.patch(id, 0, bytes.subarray(0, half));
    expect(first.status, JSON.stringify(first.body)).toBe(204);
    expect([first.headers.get('upload-offset'), first.headers.get('tus-resumable')]).toEqual([String(half), '1.0.0']);
    expect(first.headers.get('upload-expires')).toMatch(/GMT$/);

    const head = await c.head(id);
    expect(head.status).toBe(200);
    expect([head.headers.get('upload-offset'), head.headers.get('upload-length'), head.headers.get('cache-control')]).toEqual([String(half), String(bytes.length), 'no-store']);
    expect(await head.text()).toBe('');
    expect((await c.get(id)).body).toMatchObject({ id, status: 'uploading', offset: half, length: bytes.length });

    const wrong = await c.patch(id, 0, bytes.subarray(0, 10));
    expect([wrong.status, wrong.body!.kind]).toEqual([409, 'ConflictError']);
    expect(wrong.body!.details).toEqual([{ field: 'Upload-Offset', message: `must be ${half}` }]);
    const past = await c.patch(id, half, Buffer.concat([bytes.subarray(half), Buffer.from('extra')]));
    expect([past.status, past.body!.kind]).toEqual([413, 'PayloadTooLargeError']);
    const json = await c.patch(id, half, bytes.subarray(half), { 'content-type': 'application/json' });
    expect([json.status, json.body!.kind]).toEqual([415, 'UnsupportedMediaTypeError']);
    const noVersion = await c.send('PATCH', `/videos/uploads/${id}`, { 'upload-offset': String(half), 'content-type': 'application/offset+octet-stream' }, bytes.subarray(half));
    expect([noVersion.status, noVersion.body!.kind]).toEqual([412, 'TusVersionError']);
    // None of the refused PATCHes kept a byte.
    expect((await c.head(id)).headers.get('upload-offset')).toBe(String(half));

    const last = await c.patch(id, half, bytes.subarray(half));
    expect(last.status, JSON.stringify(last.body)).toBe(204);
    expect(last.headers.get('upload-offset')).toBe(String(bytes.length));
    const done = (await c.get(id)).body!;
    expect(done).toMatchObject({ status: 'done', offset: bytes.length, video: { width: 512, height: 512, has_audio: true, size: bytes.length } });
    expect(done.video.url).toBe(`s3://videos/${done.video.id}.mp4`);
    const stored = storedFile(h.services.mediaStore, u.id, `videos/${done.video.id}.mp4`)!;
    expect(sha256(readFileSync(stored))).toBe(sha256(bytes));
    // The upload's own copy of the bytes is gone; a finished upload takes no more bytes.
    expect(existsSync(join(h.config.dataDir, 'uploads', u.id, id, 'data'))).toBe(false);
    expect((await c.patch(id, bytes.length, new Uint8Array())).status).toBe(409);

    // Its URL is a source_url like POST /videos' (an avatar's footage here).
    const consent = await verifiedConsent(h, u.id);
    const avatar = await h.call('POST', '/clips/avatars', { key: u.key, body: avatarBody(consent, done.video.url) });
    expect(avatar.status, JSON.stringify(avatar.body)).toBe(201);
  }, 120_000);

  it('another user\'s upload is not found, whatever the method; DELETE removes it and its bytes', async () => {
    h = harness();
    const u = h.user();
    const c = client(h, u.key), other = client(h, h.user().key);
    const id = (await c.create(100)).body!.id as string;
    expect((await c.patch(id, 0, Buffer.alloc(40, 1))).status).toBe(204);
    for (const res of [await other.get(id), await other.patch(id, 40, Buffer.alloc(10)), await other.del(id)]) expect([res.status, res.body?.kind]).toEqual([404, 'NotFoundError']);
    expect((await other.head(id)).status).toBe(404);
    expect((await c.get('upl_../../x')).status).toBe(404);
    expect((await c.get('upl_nothing')).status).toBe(404);
    expect((await c.head(id)).headers.get('upload-offset')).toBe('40');

    const deleted = await c.del(id);
    expect([deleted.status, deleted.headers.get('tus-resumable')]).toEqual([204, '1.0.0']);
    expect((await c.get(id)).status).toBe(404);
    expect((await c.patch(id, 40, Buffer.alloc(10))).status).toBe(404);
    expect(existsSync(join(h.config.dataDir, 'uploads', u.id, id))).toBe(false);
  });

  it('a complete upload that is not a video fails (400), is kept as failed with the reason, and keeps no bytes', async () => {
    h = harness();
    const u = h.user();
    const c = client(h, u.key);
    const junk = Buffer.from('not a video at all '.repeat(100));
    const id = (await c.create(junk.length)).body!.id as string;
    const res = await c.patch(id, 0, junk);
    expect([res.status, res.body!.kind]).toEqual([400, 'BadRequestError']);
    expect((await c.get(id)).body).toMatchObject({ status: 'failed', offset: junk.length, error: { kind: 'BadRequestError', description: 'The body is not an mp4, mov or webm video' } });
    expect(existsSync(join(h.config.dataDir, 'uploads', u.id, id, 'data'))).toBe(false);
    expect(storedFile(h.services.mediaStore, u.id, 'videos')).toBeNull();
  });

  it('all bytes in but not stored (a crash at the last byte): status finishing, and a PATCH of no bytes at the end stores it', async () => {
    h = harness();
    const u = h.user();
    const c = client(h, u.key);
    const bytes = await videoBytes();
    const id = (await c.create(bytes.length)).body!.id as string;
    writeFileSync(join(h.config.dataDir, 'uploads', u.id, id, 'data'), bytes);
    expect((await c.get(id)).body).toMatchObject({ status: 'finishing', offset: bytes.length });
    const again = await c.patch(id, bytes.length, new Uint8Array());
    expect(again.status, JSON.stringify(again.body)).toBe(204);
    expect((await c.get(id)).body).toMatchObject({ status: 'done', video: { size: bytes.length } });
  }, 120_000);

  it('expires: refused once past Upload-Expires, and the sweep removes it (not one still valid)', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    h = harness({ MIMIC_VIDEO_UPLOAD_EXPIRY_HOURS: '1', MIMIC_VIDEO_UPLOADS_PER_USER: '2' }, { clock: { now: () => now } });
    const u = h.user();
    const c = client(h, u.key);
    const old = (await c.create(100)).body!;
    expect(old.expires_at).toBe('2026-01-01T01:00:00.000Z');
    expect((await c.patch(old.id, 0, Buffer.alloc(10))).status).toBe(204);
    now += 30 * 60_000;
    const young = (await c.create(100)).body!.id as string;
    now += 31 * 60_000;
    const gone = await c.get(old.id);
    expect([gone.status, gone.body!.kind]).toEqual([404, 'NotFoundError']);
    expect(gone.body!.description).toMatch(/expired/);
    expect((await c.patch(old.id, 10, Buffer.alloc(10))).status).toBe(404);
    const uploads = h.services.modules.videos.uploads;
    expect(await uploads.sweep()).toEqual([old.id]);
    expect(existsSync(join(h.config.dataDir, 'uploads', u.id, old.id))).toBe(false);
    expect((await c.get(young)).status).toBe(200);
    expect(await uploads.sweep()).toEqual([]);
    // Only the young one counts against the cap of 2.
    expect((await c.create(100)).status).toBe(201);
    expect((await c.create(100)).status).toBe(429);
  });
});

describe('one writer per upload', () => {
  it('a PATCH or DELETE while another PATCH is writing is a 409; a lock left by a dead process is taken over, one held by a live process is not', async () => {
    h = harness();
    const u = h.user();
    const c = client(h, u.key);
    const id = (await c.create(100)).body!.id as string;
    let push!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (controller) => void (push = controller) });
    const first = h.app.request(`/videos/uploads/${id}`, {
      method: 'PATCH', body, duplex: 'half',
      headers: { authorization: `Basic ${u.key}`, ...TUS, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
    } as RequestInit);
    push.enqueue(Buffer.alloc(10, 1));
    const deadline = performance.now() + 30_000;
    while ((await c.head(id)).headers.get('upload-offset') !== '10') {
      expect(performance.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 5));
    }
    const second = await c.patch(id, 10, Buffer.alloc(10));
    expect([second.status, second.body!.kind]).toEqual([409, 'ConflictError']);
    expect(second.body!.description).toMatch(/Another request is writing/);
    expect((await c.del(id)).status).toBe(409);
    push.enqueue(Buffer.alloc(5, 2));
    push.close();
    expect((await first).status).toBe(204);
    expect((await c.head(id)).headers.get('upload-offset')).toBe('15');

    const lock = join(h.config.dataDir, 'uploads', u.id, id, 'lock');
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(lock, JSON.stringify({ pid: dead, token: 'another process', at: 0 }));
    expect((await c.patch(id, 15, Buffer.alloc(5))).status).toBe(204);
    expect(existsSync(lock)).toBe(false);
    writeFileSync(lock, JSON.stringify({ pid: process.ppid, token: 'another process', at: 0 }));
    expect((await c.patch(id, 20, Buffer.alloc(5))).status).toBe(409);
    rmSync(lock);
    expect((await c.patch(id, 20, Buffer.alloc(5))).headers.get('upload-offset')).toBe('25');
  });
});

describe('the sweeper', () => {
  it('sweeps when started, logs what it removed and a failure, and stop() waits for a sweep under way', async () => {
    const lines: string[] = [];
    let release!: () => void;
    const calls: string[] = [];
    const uploads = {
      sweep: async () => {
        calls.push('sweep');
        if (calls.length === 1) {
          await new Promise<void>((r) => (release = r));
          return ['upl_a', 'upl_b'];
        }
        throw new Error('disk gone');
      },
    };
    const sweeper = uploadSweeper(uploads, createLogger((l) => lines.push(l)), 1_000_000);
    sweeper.start();
    sweeper.start();
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual(['sweep']);
    let stopped = false;
    const stopping = sweeper.stop().then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(lines.join('\n')).toMatch(/expired video uploads removed.*"count":2/);
    const again = uploadSweeper(uploads, createLogger((l) => lines.push(l)), 1_000_000);
    again.start();
    await again.stop();
    expect(lines.join('\n')).toMatch(/video upload sweep failed.*disk gone/);
  });
});

describe('resumable uploads from a browser page (MIMIC_CORS_ORIGINS)', () => {
  it('a preflight allows the tus request headers, and answers expose the tus response headers', async () => {
    const origin = 'https://app.example.com';
    h = harness({ MIMIC_CORS_ORIGINS: origin });
    const preflight = await h.app.request('/videos/uploads/upl_x', {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization, content-type, tus-resumable, upload-offset' },
    });
    expect(preflight.status).toBe(204);
    const allowed = preflight.headers.get('access-control-allow-headers')!.toLowerCase().split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['tus-resumable', 'upload-length', 'upload-offset', 'upload-metadata']));
    const created = await client(h, h.user().key).create(10, { origin });
    expect(created.status).toBe(201);
    const exposed = created.headers.get('access-control-expose-headers')!.toLowerCase().split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['location', 'upload-offset', 'upload-length', 'upload-expires', 'tus-resumable']));
  });
});
