import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { freshBucket, swiftOrSkip } from './swift.ts';

/** The service with its media on S3 (Swift): an animation end to end, inputs from the bucket, its result into it. */
const swift = swiftOrSkip('test/media/s3-service.test.ts');

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const logo = () => sharp({ create: { width: 64, height: 64, channels: 4, background: { r: 200, g: 20, b: 20, alpha: 1 } } }).png().toBuffer();

describe.skipIf(!swift)('media on S3', () => {
  it('MIMIC_MEDIA_URLS=presigned: an animation reads its s3:// logo from the bucket, stores its result there, and result_url downloads from Swift', async () => {
    const { env } = await freshBucket(swift!, { MIMIC_MEDIA_URLS: 'presigned', MIMIC_S3_PREFIX: 'mimic' });
    h = harness(env);
    expect(h.services.mediaStore.kind).toBe('s3');
    const u = h.user({ credits: 3 });
    await h.services.mediaStore.put(u.id, 'b/logo.png', await logo(), 'image/png');
    const created = await h.call('POST', '/animations', {
      key: u.key,
      body: { driver_url: 'bank://fun/', result_url: 's3://out/mine.mov', config: { result_format: 'mov', logo: { url: 's3://b/logo.png', position: [1, 2] } } },
    });
    expect(created.status).toBe(201);
    await h.services.worker.drain();
    const rec = (await h.call('GET', `/animations/${created.body.id}`, { key: u.key })).body;
    expect(rec.status).toBe('done');

    const stored = await h.services.mediaStore.stat(u.id, 'out/mine.mov');
    expect(stored).toMatchObject({ contentType: 'video/quicktime' });
    expect(stored!.size).toBeGreaterThan(0);
    expect(rec.result_url).toMatch(new RegExp(`^${swift!.endpoint}/${env.MIMIC_S3_BUCKET}/mimic/${u.id}/out/mine\\.mov\\?.*X-Amz-Signature=`));
    const download = await fetch(rec.result_url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).length).toBe(stored!.size);
    // The sample source was copied into the bucket too, and its URL is the bucket's.
    expect((await fetch(rec.source_url)).status).toBe(200);
    expect(await h.services.mediaStore.exists(u.id, 'samples/sample-source.png')).toBe(true);

    // Deleting the record removes its folder from the bucket (the result named by result_url is the user's own).
    expect((await h.call('DELETE', `/animations/${created.body.id}`, { key: u.key })).status).toBe(200);
    const left: string[] = [];
    for await (const o of h.services.mediaStore.list(u.id)) left.push(o.key);
    expect(left.filter((k) => k.startsWith(`animations/${created.body.id}/`))).toEqual([]);
  });

  it('MIMIC_MEDIA_URLS=signed: result_url is mimic\'s, and GET /media streams it from the bucket; a missing s3:// input is a 400', async () => {
    const { env } = await freshBucket(swift!);
    h = harness(env);
    const u = h.user({ credits: 3 });
    const missing = await h.call('POST', '/animations', { key: u.key, body: { source_url: 's3://b/none.png' } });
    expect(missing.status).toBe(400);
    const created = await h.call('POST', '/animations', { key: u.key, body: { driver_url: 'bank://fun/' } });
    await h.services.worker.drain();
    const rec = (await h.call('GET', `/animations/${created.body.id}`, { key: u.key })).body;
    expect(rec.result_url).toMatch(/^http:\/\/mimic\.test\/media\/.+\/result\.mp4\?expires=/);
    const res = await h.app.request(rec.result_url.replace('http://mimic.test', ''), { headers: { range: 'bytes=0-7' } });
    expect(res.status).toBe(206);
    const head = Buffer.from(await res.arrayBuffer());
    expect(head.toString('latin1', 4, 8)).toBe('ftyp');
  });
});
