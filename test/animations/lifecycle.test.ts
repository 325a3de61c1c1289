import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { createFakeBackend } from '../helpers/fake-backend.ts';
import { RenderError } from '../../src/errors.ts';
import { Webhook } from 'standardwebhooks';
import { startTlsServer } from '../helpers/tls.ts';
import { sqliteOf } from '../helpers/stores.ts';
import { storedFile } from '../media/stored-file.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const credits = (hh: Harness, id: string) =>
  (sqliteOf(hh.services.store).sqlite.prepare('SELECT credits FROM users WHERE id = ?').get(id) as { credits: number }).credits;

describe('animation lifecycle', () => {
  it('goes created → started → done with a signed, fetchable result and every record field', async () => {
    h = harness();
    const u = h.user({ credits: 3 });
    const created = await h.call('POST', '/animations', {
      key: u.key,
      body: { driver_url: 'bank://fun/', user_data: 'order-42', config: { result_format: 'mov', mute: false } },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const fresh = (await h.call('GET', `/animations/${id}`, { key: u.key })).body;
    expect(fresh.status).toBe('created');
    expect(fresh.source_url).toMatch(/^http:\/\/mimic\.test\/media\/.+\?expires=/);
    expect(fresh.result_url).toBeUndefined();
    await h.services.worker.drain();

    const rec = (await h.call('GET', `/animations/${id}`, { key: u.key })).body;
    expect(rec).toMatchObject({
      id,
      object: 'animation',
      status: 'done',
      created_by: u.id,
      user_id: u.id,
      driver_url: 'bank://fun/',
      user_data: 'order-42',
      task: true,
      face_ids: [0],
      config: { mute: false, result_format: '.mov', motion_factor: 1, stitch: false },
    });
    for (const f of ['created_at', 'modified_at', 'started_at']) expect(new Date(rec[f]).toISOString()).toBe(rec[f]);
    expect(rec.metadata.driver_url).toMatch(/^bank:\/\/fun\/driver-\d\d$/);
    expect(rec.metadata).toMatchObject({ num_frames: 10, video_fps: 25, resolution: ['64', '64'] });
    expect(rec.source_url).toMatch(/^http:\/\/mimic\.test\/media\/usr_\w+\/samples\/sample-source\.png\?expires=\d+&signature=/);
    expect(rec.result_url).toMatch(/^http:\/\/mimic\.test\/media\/.+\/result\.mov\?expires=\d+&signature=/);
    expect(rec.error).toBeUndefined();
    expect(credits(h, u.id)).toBe(2);

    // The signed URLs resolve without an API key; a tampered one does not.
    const path = rec.result_url.replace('http://mimic.test', '');
    const media = await h.app.request(path);
    expect(media.status).toBe(200);
    expect(media.headers.get('content-type')).toBe('video/quicktime');
    const tampered = path.replace(/signature=(.)/, (_m: string, ch: string) => `signature=${ch === 'A' ? 'B' : 'A'}`);
    expect(tampered).not.toBe(path);
    expect((await h.app.request(tampered)).status).toBe(403);
    const src = await h.app.request(rec.source_url.replace('http://mimic.test', ''));
    expect(src.status).toBe(200);
    expect(src.headers.get('content-type')).toBe('image/png');
  });

  it('passes the request through to the compute backend', async () => {
    const backend = createFakeBackend();
    h = harness({}, { backend });
    const u = h.user({ permissions: ['stitch'] });
    await h.call('POST', '/animations', {
      key: u.key,
      body: { driver_url: 'bank://classics/driver-rigoletto', face: { size: 100, top_left: [10, 20] }, config: { mute: false, stitch: true, max_animated_faces: 2 } },
    });
    await h.services.worker.drain();
    expect(backend.calls[0]).toMatchObject({
      driver: { kind: 'bank', category: 'classics', name: 'driver-rigoletto' },
      face: { size: 100, top_left: [10, 20] },
      mute: false,
      stitch: true,
      maxAnimatedFaces: 2,
      resultFormat: 'mp4',
    });
  });

  it('ends in error with the render kind, refunds the credit, and shows no result', async () => {
    h = harness({}, { backend: createFakeBackend({ failWith: new RenderError('FaceError', 'no face detected in the source image') }) });
    const u = h.user({ credits: 1 });
    const id = (await h.call('POST', '/animations', { key: u.key, body: {} })).body.id;
    expect(credits(h, u.id)).toBe(0);
    await h.services.worker.drain();
    const rec = (await h.call('GET', `/animations/${id}`, { key: u.key })).body;
    expect(rec.status).toBe('error');
    expect(rec.error).toEqual({ kind: 'FaceError', description: 'no face detected in the source image' });
    expect(rec.result_url).toBeUndefined();
    expect(credits(h, u.id)).toBe(1);
  });

  it('retries a backend fault and gives up with UnknownError after the last attempt', async () => {
    const backend = createFakeBackend({ fault: new Error('GPU fell over') });
    h = harness({ MIMIC_JOB_MAX_ATTEMPTS: '2' }, { backend });
    const u = h.user({ credits: 1 });
    const id = (await h.call('POST', '/animations', { key: u.key, body: {} })).body.id;
    await h.services.worker.drain();
    // The second attempt waits for its backoff; make it due now.
    sqliteOf(h.services.store).sqlite.prepare(`UPDATE jobs SET run_at = 0 WHERE status = 'queued'`).run();
    await h.services.worker.drain();
    expect(backend.calls).toHaveLength(2);
    const rec = (await h.call('GET', `/animations/${id}`, { key: u.key })).body;
    expect(rec.status).toBe('error');
    expect(rec.error.kind).toBe('UnknownError');
    expect(JSON.stringify(rec)).not.toContain('GPU fell over');
    expect(credits(h, u.id)).toBe(1);
  });

  it('refuses a source URL the egress policy refuses at request time, and fails with SourceError when it is refused at fetch time', async () => {
    const dns: Record<string, string[]> = { 'photos.example.test': ['93.184.216.34'] };
    h = harness({}, { resolve: async (host) => dns[host] ?? [] });
    const u = h.user({ credits: 1 });
    const refused = await h.call('POST', '/animations', { key: u.key, body: { source_url: 'https://127.0.0.1/face.jpg' } });
    expect(refused.status).toBe(400);
    expect(refused.body.details[0].field).toBe('source_url');
    const id = (await h.call('POST', '/animations', { key: u.key, body: { source_url: 'https://photos.example.test/face.jpg' } })).body.id;
    // The name resolves elsewhere by the time the job fetches it.
    dns['photos.example.test'] = ['127.0.0.1'];
    await h.services.worker.drain();
    const rec = (await h.call('GET', `/animations/${id}`, { key: u.key })).body;
    expect(rec.status).toBe('error');
    expect(rec.error.kind).toBe('SourceError');
  });

  it('deletes a record and its media, refunding an unfinished one', async () => {
    h = harness();
    const u = h.user({ credits: 2 });
    const done = (await h.call('POST', '/animations', { key: u.key, body: {} })).body.id;
    await h.services.worker.drain();
    const rec = (await h.call('GET', `/animations/${done}`, { key: u.key })).body;
    const del = await h.call('DELETE', `/animations/${done}`, { key: u.key });
    expect(del.status).toBe(200);
    expect(del.body.id).toBe(done);
    expect((await h.call('GET', `/animations/${done}`, { key: u.key })).status).toBe(404);
    expect((await h.app.request(rec.result_url.replace('http://mimic.test', ''))).status).toBe(404);
    expect(credits(h, u.id)).toBe(1);

    const pending = (await h.call('POST', '/animations', { key: u.key, body: {} })).body.id;
    expect(credits(h, u.id)).toBe(0);
    await h.call('DELETE', `/animations/${pending}`, { key: u.key });
    expect(credits(h, u.id)).toBe(1);
    await h.services.worker.drain();
    const job = sqliteOf(h.services.store).sqlite.prepare('SELECT status FROM jobs WHERE resource_id = ?').get(pending) as { status: string };
    expect(job.status).toBe('cancelled');
  });

  it('writes the result to a storage-scheme result_url key', async () => {
    h = harness();
    const u = h.user();
    const id = (await h.call('POST', '/animations', { key: u.key, body: { result_url: 's3://out/clips/mine.mp4' } })).body.id;
    await h.services.worker.drain();
    const rec = (await h.call('GET', `/animations/${id}`, { key: u.key })).body;
    expect(rec.result_url).toContain('/out/clips/mine.mp4?');
    expect(storedFile(h.services.mediaStore, u.id, 'out/clips/mine.mp4')).not.toBeNull();
  });

  it('sends the finished record to the webhook, signed, and retries until the receiver takes it', async () => {
    const receiver = await startTlsServer();
    try {
      let answers = [500, 200];
      receiver.handle((_req, res) => void res.writeHead(answers.shift() ?? 200).end());
      h = harness({ MIMIC_EGRESS_ALLOW: 'localhost', MIMIC_WEBHOOK_RETRY_SCHEDULE_MS: '0' }, { ca: [receiver.ca] });
      const u = h.user();
      const id = (await h.call('POST', '/animations', { key: u.key, body: { webhook: `${receiver.url}/hook`, user_data: 'ud' } })).body.id;
      await h.services.worker.drain();
      await h.services.modules.webhooks.dispatcher.runOnce();
      await h.services.modules.webhooks.dispatcher.runOnce();
      expect(receiver.received).toHaveLength(2);
      const [first, second] = receiver.received;
      expect(first!.headers['webhook-id']).toBe(second!.headers['webhook-id']);
      const { secret } = (await h.call('GET', '/webhooks/secret', { key: u.key })).body;
      const body = new Webhook(secret).verify(second!.body.toString(), second!.headers as Record<string, string>) as any;
      const record = (await h.call('GET', `/animations/${id}`, { key: u.key })).body;
      expect(Object.keys(body).sort()).toEqual(Object.keys(record).sort());
      expect(body).toMatchObject({ id, status: 'done', user_data: 'ud' });

      const deliveries = (await h.call('GET', `/webhooks/messages?resource_id=${id}`, { key: u.key })).body.messages;
      expect(deliveries).toHaveLength(1);
      expect(deliveries[0]).toMatchObject({ status: 'delivered', attempts: 2 });
      const other = h.user();
      expect((await h.call('GET', `/webhooks/messages?resource_id=${id}`, { key: other.key })).body.messages).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('sends no webhook when the field is empty', async () => {
    h = harness();
    const u = h.user();
    const id = (await h.call('POST', '/animations', { key: u.key, body: { webhook: '' } })).body.id;
    await h.services.worker.drain();
    expect((await h.call('GET', `/webhooks/messages?resource_id=${id}`, { key: u.key })).body.messages).toEqual([]);
  });

  it('uploads the result with PUT to an https result_url and hands that URL back', async () => {
    const receiver = await startTlsServer();
    try {
      h = harness({ MIMIC_EGRESS_ALLOW: 'localhost' }, { ca: [receiver.ca] });
      const u = h.user();
      const target = `${receiver.url}/bucket/out.mp4?X-Amz-Signature=abc`;
      const id = (await h.call('POST', '/animations', { key: u.key, body: { result_url: target } })).body.id;
      await h.services.worker.drain();
      const rec = (await h.call('GET', `/animations/${id}`, { key: u.key })).body;
      expect(rec.status).toBe('done');
      expect(rec.result_url).toBe(target);
      const put = receiver.received.find((r) => r.method === 'PUT')!;
      expect(put.path).toBe('/bucket/out.mp4?X-Amz-Signature=abc');
      expect(put.headers['content-type']).toBe('video/mp4');
      expect(put.body.subarray(4, 8).toString()).toBe('ftyp');
      expect(h.logs.join('\n')).not.toContain('X-Amz-Signature=abc');
    } finally {
      await receiver.close();
    }
  });
});
