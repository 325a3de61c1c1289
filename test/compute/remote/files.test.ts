import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SAMPLE, fakeVideo, remoteFixture, type RemoteFixture } from './fixture.ts';
import { sqliteOf } from '../../helpers/stores.ts';

let f: RemoteFixture;
beforeEach(async () => {
  f = await remoteFixture({ MIMIC_MAX_VIDEO_BYTES: String(64 * 1024), MIMIC_MAX_BODY_BYTES: '4096' });
});
afterEach(async () => {
  await f.close();
});

const withParam = (url: string, name: string, value: string) => {
  const u = new URL(url);
  u.searchParams.set(name, value);
  return u.toString();
};

describe('input files', () => {
  it('serves every input the task names, byte for byte, without a token', async () => {
    const driver = join(f.dir, 'driver.mp4');
    const logo = join(f.dir, 'logo.png');
    const overlay = join(f.dir, 'overlay.mov');
    writeFileSync(driver, fakeVideo('isom', 5000));
    writeFileSync(logo, readFileSync(SAMPLE).subarray(0, 300));
    writeFileSync(overlay, fakeVideo('qt  ', 3000));
    f.render({ driver: { kind: 'video', path: driver }, logo: { kind: 'image', path: logo, position: [-1, 10] }, overlayPath: overlay });
    const t = (await f.claim()).body;
    expect(t.render.logo).toMatchObject({ kind: 'image', position: [-1, 10] });
    const expectations: [string, string, Buffer][] = [
      [t.render.source_url, 'image/png', readFileSync(SAMPLE)],
      [t.render.driver.url, 'video/mp4', readFileSync(driver)],
      [t.render.logo.url, 'image/png', readFileSync(logo)],
      [t.render.overlay_url, 'video/quicktime', readFileSync(overlay)],
    ];
    for (const [url, type, bytes] of expectations) {
      const res = await fetch(url);
      expect(res.status, url.split('?')[0]).toBe(200);
      expect(res.headers.get('content-type')).toBe(type);
      // equals(), not toEqual(): a deep compare of the 800 KB photo took seconds under load, past the
      // server's keep-alive timeout, and the next fetch then met a closed socket (ECONNRESET).
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes), url.split('?')[0]).toBe(true);
    }
  });

  it('answers 404 for an input the task does not have, with a valid signature', async () => {
    f.render();
    const t = (await f.claim()).body;
    // Sign a URL for the driver of a bank-driver task the way the service would.
    const { signFileUrl } = await import('../../../src/compute/remote/signing.ts');
    const url = signFileUrl({ key: f.h.services.compute.urlKey, publicUrl: f.base, ttlSeconds: 60, now: f.clock.now(), taskId: t.task_id, lease: t.lease, name: 'driver', method: 'GET' });
    const res = await f.call('GET', url, { token: null });
    expect(res.status).toBe(404);
    expect(res.body.kind).toBe('NotFoundError');
  });

  it('refuses a tampered, expired or wrong-method URL with 403, and never logs the query', async () => {
    f.render();
    const t = (await f.claim()).body;
    const source = t.render.source_url as string;
    const sig = new URL(source).searchParams.get('signature')!;
    const flipped = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
    const tampered = [
      withParam(source, 'signature', flipped),
      withParam(source, 'expires', String(Number(new URL(source).searchParams.get('expires')) + 1)),
      withParam(source, 'lease', `lse_${'x'.repeat(22)}`),
      source.replace('/files/source', '/files/logo'),
      // Another task's id: the last character changed (to one it is not).
      source.replace(t.task_id, `${t.task_id.slice(0, -1)}${t.task_id.endsWith('0') ? '1' : '0'}`),
      source.split('?')[0]!,
    ];
    for (const url of tampered) {
      const res = await f.call('GET', url, { token: null });
      expect(res.status, url).toBe(403);
      expect(res.body.kind).toBe('PermissionError');
    }
    // Wrong method: the upload URL does not read, the source URL does not write.
    expect((await f.call('GET', t.result.upload_url, { token: null })).status).toBe(403);
    expect((await f.upload(source.replace('/files/source', '/files/result'), fakeVideo())).status).toBe(403);
    expect((await f.upload(source, fakeVideo())).status).toBe(403);
    // Expired: genuine but old.
    f.clock.advance(f.h.config.signedUrlTtlSeconds * 1000 + 1000);
    const expired = await f.call('GET', source, { token: null });
    expect(expired.status).toBe(403);
    expect(expired.body.description).toMatch(/expired/);

    const logged = f.h.logs.join('\n');
    expect(logged).toContain('/compute/v1/tasks/');
    expect(logged).not.toContain(sig);
    expect(logged).not.toContain(t.lease);
    expect(logged).not.toContain(f.token);
  });
});

describe('result upload', () => {
  it('refuses a body over the limit (declared or streamed) and a body of the wrong container', async () => {
    f.render({ resultFormat: 'mov' });
    const t = (await f.claim()).body;
    expect(t.result).toMatchObject({ content_type: 'video/quicktime', max_bytes: 64 * 1024 });
    const url = t.result.upload_url;
    const big = await f.upload(url, fakeVideo('qt  ', 64 * 1024 + 1));
    expect(big.status).toBe(413);
    expect(big.body.kind).toBe('PayloadTooLargeError');
    // No Content-Length: the limit is enforced while streaming.
    const chunks = (async function* () {
      for (let i = 0; i < 20; i++) yield fakeVideo('qt  ', 8 * 1024);
    })();
    const streamed = await fetch(url, { method: 'PUT', body: ReadableStream.from(chunks), duplex: 'half' } as RequestInit);
    expect(streamed.status).toBe(413);
    // The rest of the body is not read: the connection ends with the answer (test/http/body-limits.test.ts).
    expect(streamed.headers.get('connection')).toBe('close');
    const wrong = await f.upload(url, fakeVideo('isom'));
    expect(wrong.status).toBe(400);
    expect(wrong.body.kind).toBe('BadRequestError');
    expect((await f.upload(url, Buffer.from('not a video at all'))).status).toBe(400);
    // Nothing refused was kept: completing now finds no result.
    const done = await f.call('POST', `/compute/v1/tasks/${t.task_id}/complete`, {
      body: { lease: t.lease, metadata: (await import('./fixture.ts')).METADATA, face_ids: [0] },
    });
    expect(done.status).toBe(409);
    expect(done.body.details).toEqual({ reason: 'result_missing' });
    // A right one is accepted, larger than the JSON body limit too; uploading again replaces it.
    expect((await f.upload(url, fakeVideo('qt  ', 60 * 1024))).status).toBe(204);
    expect((await f.upload(url, fakeVideo('qt  ', 3000))).status).toBe(204);
    expect((sqliteOf(f.h.services.store).sqlite.prepare('SELECT result_bytes FROM compute_tasks WHERE id = ?').get(t.task_id) as any).result_bytes).toBe(3000);
  });
});
