import { readFileSync } from 'node:fs';
import { randomFillSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { harness, type Harness } from '../helpers/harness.ts';
import { createFakeBackend } from '../helpers/fake-backend.ts';
import { startTlsServer, type TestServer } from '../helpers/tls.ts';
import type { ComputeBackend, RenderRequest } from '../../src/compute/interface.ts';
import { sqliteOf } from '../helpers/stores.ts';
import { storedFile } from '../media/stored-file.ts';

/** Lowered byte limits, so "too large" files stay small; the sample source (773 KiB) still fits. */
const LIMITS = { MIMIC_MAX_IMAGE_BYTES: String(1024 * 1024), MIMIC_MAX_VIDEO_BYTES: '4096' };
const MAX_IMAGE = 1024 * 1024;

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 4, background: '#0000' } }).png().toBuffer();
/** Noise does not compress: a png larger than the image byte limit. */
function bigPng(): Promise<Buffer> {
  const side = 640;
  const raw = randomFillSync(Buffer.alloc(side * side * 3));
  return sharp(raw, { raw: { width: side, height: side, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
}
/** A jpeg stored `width` x `height` whose EXIF orientation 6 shows it turned: `height` x `width`. */
const sidewaysJpeg = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#888' } }).jpeg().withMetadata({ orientation: 6 }).toBuffer();
/** A 24-bit bmp (libvips cannot read bmp: its size comes from the header). */
function bmp(width: number, height: number): Buffer {
  const row = Math.ceil((width * 3) / 4) * 4;
  const b = Buffer.alloc(54 + row * height);
  b.write('BM', 0, 'latin1');
  b.writeUInt32LE(b.length, 2);
  b.writeUInt32LE(54, 10);
  b.writeUInt32LE(40, 14);
  b.writeInt32LE(width, 18);
  b.writeInt32LE(height, 22);
  b.writeUInt16LE(1, 26);
  b.writeUInt16LE(24, 28);
  return b;
}

const credits = (h: Harness, id: string) =>
  (sqliteOf(h.services.store).sqlite.prepare('SELECT credits FROM users WHERE id = ?').get(id) as { credits: number }).credits;
const recordCount = (h: Harness, id: string) =>
  (sqliteOf(h.services.store).sqlite.prepare("SELECT count(*) AS n FROM resources WHERE kind = 'animation' AND user_id = ?").get(id) as { n: number }).n;

/** A user with files in their media store. */
async function userWith(h: Harness, files: Record<string, Buffer> = {}, permissions: 'stitch'[] = []) {
  const u = h.user({ credits: 5, permissions });
  for (const [key, bytes] of Object.entries(files)) await h.services.mediaStore.put(u.id, key, bytes, 'application/octet-stream');
  return u;
}

/** A refused create: the kind, the field, and nothing written or charged. */
async function expectRefused(h: Harness, u: { id: string; key: string }, body: unknown, kind: string, field: string) {
  const res = await h.call('POST', '/animations', { key: u.key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.kind).toBe(kind);
  expect(res.body.details[0].field).toBe(field);
  expect(res.body.description.startsWith(`${field}: `)).toBe(true);
  expect(recordCount(h, u.id)).toBe(0);
  expect(credits(h, u.id)).toBe(5);
  return res.body as { kind: string; description: string; details: Record<string, unknown>[] };
}

describe('input checks at create time (stored inputs and the sample: 400, nothing written)', () => {
  let h: Harness;
  beforeAll(() => {
    h = harness(LIMITS);
  });
  afterAll(() => h.close());

  it('InvalidFileSizeError: a source or logo over the image limit, a driver over the video limit, empty files', async () => {
    const u = await userWith(h, {
      'b/big.png': await bigPng(),
      'b/empty.png': Buffer.alloc(0),
      'b/ok.png': await png(100, 100),
      'b/big.mp4': Buffer.alloc(4097, 1),
      'b/empty.mp4': Buffer.alloc(0),
    });
    const big = await expectRefused(h, u, { source_url: 's3://b/big.png' }, 'InvalidFileSizeError', 'source_url');
    expect(big.details[0]).toMatchObject({ max_bytes: MAX_IMAGE });
    expect(big.details[0]!.bytes).toBeGreaterThan(MAX_IMAGE);
    expect(big.description).toContain(`the limit is ${MAX_IMAGE} bytes (1 MiB)`);
    expect(big.description).toContain(`the file is ${big.details[0]!.bytes} bytes`);

    const empty = await expectRefused(h, u, { source_url: 's3://b/empty.png' }, 'InvalidFileSizeError', 'source_url');
    expect(empty.description).toBe('source_url: the file is empty (0 bytes)');
    await expectRefused(h, u, { config: { logo: { url: 's3://b/big.png', position: [0, 0] } } }, 'InvalidFileSizeError', 'config.logo.url');
    const driver = await expectRefused(h, u, { driver_url: 's3://b/big.mp4' }, 'InvalidFileSizeError', 'driver_url');
    expect(driver.details[0]).toMatchObject({ bytes: 4097, max_bytes: 4096 });
    await expectRefused(h, u, { config: { overlay: 's3://b/empty.mp4' } }, 'InvalidFileSizeError', 'config.overlay');
    await expectRefused(h, u, { config: { overlay: 's3://b/big.mp4' } }, 'InvalidFileSizeError', 'config.overlay');

    // At the limit is fine.
    const atLimit = await userWith(h, { 'b/ok.png': await png(100, 100), 'b/d.mp4': Buffer.alloc(4096, 1) });
    const res = await h.call('POST', '/animations', { key: atLimit.key, body: { source_url: 's3://b/ok.png', driver_url: 's3://b/d.mp4', config: { overlay: 's3://b/d.mp4' } } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });

  it('InvalidImageResolutionError: a source under the minimum side or over the maximum side', async () => {
    const u = await userWith(h, { 'b/small.png': await png(40, 30), 'b/wide.png': await png(4097, 64), 'b/tiny.bmp': bmp(40, 30) });
    const small = await expectRefused(h, u, { source_url: 's3://b/small.png' }, 'InvalidImageResolutionError', 'source_url');
    expect(small.description).toBe('source_url: the image is 40x30 pixels; the minimum side is 64');
    expect(small.details[0]).toMatchObject({ width: 40, height: 30, min_side: 64 });
    const wide = await expectRefused(h, u, { source_url: 's3://b/wide.png' }, 'InvalidImageResolutionError', 'source_url');
    expect(wide.description).toBe('source_url: the image is 4097x64 pixels; the maximum side is 4096');
    // bmp: the size comes from its header.
    const tinyBmp = await expectRefused(h, u, { source_url: 's3://b/tiny.bmp' }, 'InvalidImageResolutionError', 'source_url');
    expect(tinyBmp.details[0]).toMatchObject({ width: 40, height: 30 });
  });

  it('accepts a 1920x1080 stitch source, a 64x64 bmp, and a logo on the last pixel', async () => {
    const u = await userWith(h, { 'b/hd.png': await png(1920, 1080), 'b/ok.bmp': bmp(64, 64), 'b/logo.png': await png(32, 32) }, ['stitch']);
    const hd = await h.call('POST', '/animations', {
      key: u.key,
      body: { source_url: 's3://b/hd.png', config: { stitch: true, logo: { url: 's3://b/logo.png', position: [-1, -1] } } },
    });
    expect(hd.status, JSON.stringify(hd.body)).toBe(201);
    expect((await h.call('POST', '/animations', { key: u.key, body: { source_url: 's3://b/ok.bmp' } })).status).toBe(201);
  });

  it('InvalidImageResolutionError over the pixel-count limit (MIMIC_MAX_IMAGE_PIXELS)', async () => {
    const small = harness({ MIMIC_MAX_IMAGE_PIXELS: '10000' });
    try {
      const u = await userWith(small, { 'b/a.png': await png(128, 128) });
      const res = await expectRefused(small, u, { source_url: 's3://b/a.png' }, 'InvalidImageResolutionError', 'source_url');
      expect(res.description).toBe('source_url: the image is 128x128 pixels (16384 pixels); the maximum is 10000 pixels');
      // The bundled sample (512x512) is the service's own: the operator's limits do not refuse it ...
      const sample = await small.call('POST', '/animations', { key: u.key, body: { face: { size: 100, top_left: [0, 0] } } });
      expect(sample.status, JSON.stringify(sample.body)).toBe(201);
      await small.services.worker.drain();
      expect((await small.call('GET', `/animations/${sample.body.id}`, { key: u.key })).body.status).toBe('done');
      // ... but its size still places the face.
      const v = await userWith(small);
      await expectRefused(small, v, { face: { size: 100, top_left: [512, 0] } }, 'InvalidFaceError', 'face');
    } finally {
      await small.close();
    }
  });

  it('BadRequestError naming the field for a stored source or logo that is not a readable image', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="100" height="100"/></svg>');
    const u = await userWith(h, { 'b/text.png': Buffer.from('not an image at all'), 'b/svg.png': svg, 'b/ok.bmp': bmp(64, 64) });
    const res = await expectRefused(h, u, { source_url: 's3://b/text.png' }, 'BadRequestError', 'source_url');
    expect(res.description).toBe('source_url: the file is not a jpg, png, tiff or bmp image that can be read');
    // sharp could read an svg; only raster formats told by their first bytes get that far.
    await expectRefused(h, u, { source_url: 's3://b/svg.png' }, 'BadRequestError', 'source_url');
    // A bmp is a source format, not a logo format (jpg or png).
    await expectRefused(h, u, { config: { logo: { url: 's3://b/ok.bmp', position: [0, 0] } } }, 'BadRequestError', 'config.logo.url');
    await expectRefused(h, u, { config: { logo: { url: 's3://b/text.png', position: [0, 0] } } }, 'BadRequestError', 'config.logo.url');
  });

  it('InvalidFaceError: a face square mostly or wholly outside the picture, measured as the picture is shown (EXIF)', async () => {
    const u = await userWith(h, { 'b/side.jpg': await sidewaysJpeg(100, 300) });
    // Shown as 300x100: x = 200 is inside (it would not be in the stored 100-wide raster) ...
    const inside = await h.call('POST', '/animations', { key: u.key, body: { source_url: 's3://b/side.jpg', face: { size: 64, top_left: [200, 0] } } });
    expect(inside.status, JSON.stringify(inside.body)).toBe(201);
    // ... and y = 150 is below it (it would be inside the stored 300-tall raster).
    const v = await userWith(h, { 'b/side.jpg': await sidewaysJpeg(100, 300) });
    const below = await expectRefused(h, v, { source_url: 's3://b/side.jpg', face: { size: 64, top_left: [0, 150] } }, 'InvalidFaceError', 'face');
    expect(below.description).toBe('face: the face square of 64 pixels at [0, 150] lies entirely outside the 300x100 image');
  });

  it('InvalidFaceError on the sample: at least half of the square inside', async () => {
    const u = await userWith(h);
    const res = await expectRefused(h, u, { face: { size: 100, top_left: [463, 0] } }, 'InvalidFaceError', 'face');
    expect(res.description).toBe('face: only 49% of the face square of 100 pixels at [463, 0] lies inside the 512x512 image; at least 50% must');
    expect(res.details[0]).toMatchObject({ size: 100, x: 463, y: 0, width: 512, height: 512, inside_percent: 49 });
    expect((await h.call('POST', '/animations', { key: u.key, body: { face: { size: 100, top_left: [462, 0] } } })).status).toBe(201);
  });

  it('ConfigError: a custom logo wholly outside the result, with the logo’s own size when it is stored', async () => {
    const u = await userWith(h, { 'b/logo.png': await png(100, 40), 'b/src.png': await png(200, 101) }, ['stitch']);
    const logo = (position: number[], extra: object = {}) => ({ logo: { url: 's3://b/logo.png', position }, ...extra });
    // Without stitch the result is the 512x512 crop: starting 100 px left of it, a 100 px wide logo shows nothing.
    const left = await expectRefused(h, u, { config: logo([-612, 0]) }, 'ConfigError', 'config.logo.position');
    expect(left.description).toBe('config.logo.position: the 100x40 logo at [-612, 0] lies entirely outside the 512x512 result');
    expect(left.details[0]).toMatchObject({ x: -612, y: 0, result_width: 512, result_height: 512, logo_width: 100, logo_height: 40 });
    await expectRefused(h, u, { config: logo([0, 512]) }, 'ConfigError', 'config.logo.position');
    // With stitch the result is the picture, cut to even sides: 200x100.
    await expectRefused(h, u, { source_url: 's3://b/src.png', config: logo([0, 100], { stitch: true }) }, 'ConfigError', 'config.logo.position');
    const ok = await h.call('POST', '/animations', { key: u.key, body: { source_url: 's3://b/src.png', config: logo([-1, 99], { stitch: true }) } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  });
});

describe('input checks at render time (fetched inputs: the record ends in error with the same kind)', () => {
  let server: TestServer;
  let h: Harness;
  const seenFiles: { logo?: Buffer; overlay?: Buffer }[] = [];
  const fake = createFakeBackend();
  const served = new Map<string, { type: string; body: Buffer; chunked?: boolean }>();

  beforeAll(async () => {
    server = await startTlsServer((req, res) => {
      const file = served.get(req.path.split('?')[0]!);
      if (!file) return void res.writeHead(404).end();
      if (!file.chunked) return void res.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length }).end(file.body);
      // No content-length: the size cap must stop the stream itself.
      res.writeHead(200, { 'content-type': file.type });
      res.write(file.body.subarray(0, 1000));
      res.end(file.body.subarray(1000));
    });
    // The backend sees the files while it renders; the work folder is gone afterwards.
    const backend: ComputeBackend = {
      ...fake,
      run: (kind, task) => {
        const req = task as unknown as RenderRequest;
        seenFiles.push({
          ...(req.logo.kind === 'image' ? { logo: readFileSync(req.logo.path) } : {}),
          ...(req.overlayPath ? { overlay: readFileSync(req.overlayPath) } : {}),
        });
        return fake.run(kind, task);
      },
    };
    h = harness({ ...LIMITS, MIMIC_EGRESS_ALLOW: 'localhost' }, { ca: [server.ca], backend });
    served.set('/small.png', { type: 'image/png', body: await png(40, 30) });
    served.set('/face.png', { type: 'image/png', body: await png(300, 200) });
    served.set('/big.png', { type: 'image/png', body: await bigPng() });
    served.set('/empty.png', { type: 'image/png', body: Buffer.alloc(0) });
    served.set('/text.png', { type: 'image/png', body: Buffer.from('no image here') });
    served.set('/logo.png', { type: 'image/png', body: await png(100, 40) });
    served.set('/overlay.mov', { type: 'video/quicktime', body: Buffer.alloc(3000, 7) });
    served.set('/big.mp4', { type: 'video/mp4', body: Buffer.alloc(5000, 1), chunked: true });
  });
  afterAll(async () => {
    await h.close();
    await server.close();
  });

  /** Creates (201), renders, and returns the record; the user's credit is back when it failed. */
  async function rendered(body: Record<string, unknown>) {
    const u = h.user({ credits: 5 });
    const created = await h.call('POST', '/animations', { key: u.key, body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await h.services.worker.drain();
    const rec = (await h.call('GET', `/animations/${created.body.id}`, { key: u.key })).body;
    expect(credits(h, u.id)).toBe(rec.status === 'error' ? 5 : 4);
    return rec;
  }
  const at = (path: string) => `${server.url}${path}?X-Amz-Signature=s3cr3t`;

  it.each([
    ['a source under the minimum side', 'InvalidImageResolutionError', () => ({ source_url: at('/small.png') }), 'source_url: the image is 40x30 pixels; the minimum side is 64'],
    ['a source over the byte limit', 'InvalidFileSizeError', () => ({ source_url: at('/big.png') }), `source_url: the file is larger than the limit of ${MAX_IMAGE} bytes (1 MiB)`],
    ['an empty source', 'InvalidFileSizeError', () => ({ source_url: at('/empty.png') }), 'source_url: the file is empty (0 bytes)'],
    ['a source that is not an image', 'SourceError', () => ({ source_url: at('/text.png') }), 'source_url: the file is not a jpg, png, tiff or bmp image that can be read'],
    ['a face outside the fetched picture', 'InvalidFaceError', () => ({ source_url: at('/face.png'), face: { size: 50, top_left: [300, 0] } }), 'face: the face square of 50 pixels at [300, 0] lies entirely outside the 300x200 image'],
    ['a driver over the video limit (streamed, no length)', 'InvalidFileSizeError', () => ({ source_url: at('/face.png'), driver_url: at('/big.mp4') }), 'driver_url: the file is larger than the limit of 4096 bytes (4 KiB)'],
    ['a missing driver', 'DriverError', () => ({ source_url: at('/face.png'), driver_url: at('/gone.mp4') }), `Could not load the driver video: host localhost answered HTTP 404`],
    ['a missing logo', 'LogoError', () => ({ config: { logo: { url: at('/gone.png'), position: [0, 0] } } }), 'Could not load the logo image: host localhost answered HTTP 404'],
    ['a logo that is not an image', 'LogoError', () => ({ config: { logo: { url: at('/text.png'), position: [0, 0] } } }), 'config.logo.url: the file is not a jpg or png image that can be read'],
    ['a logo over the byte limit', 'InvalidFileSizeError', () => ({ config: { logo: { url: at('/big.png'), position: [0, 0] } } }), `config.logo.url: the file is larger than the limit of ${MAX_IMAGE} bytes (1 MiB)`],
    ['a fetched logo wholly left of the result', 'ConfigError', () => ({ config: { logo: { url: at('/logo.png'), position: [-612, 0] } } }), 'config.logo.position: the 100x40 logo at [-612, 0] lies entirely outside the 512x512 result'],
    ['a missing overlay', 'OverlayError', () => ({ config: { overlay: at('/gone.mp4') } }), 'Could not load the overlay video: host localhost answered HTTP 404'],
    ['an overlay over the video limit', 'InvalidFileSizeError', () => ({ config: { overlay: at('/big.mp4') } }), 'config.overlay: the file is larger than the limit of 4096 bytes (4 KiB)'],
  ])('%s → %s on the record', async (_name, kind, body, description) => {
    const calls = fake.calls.length;
    const rec = await rendered(body());
    expect(rec.status).toBe('error');
    expect(rec.error).toEqual({ kind, description });
    expect(rec.result_url).toBeUndefined();
    expect(fake.calls.length).toBe(calls);
  });

  it('hands a fetched logo and overlay to the backend, and the record echoes the config', async () => {
    const before = fake.calls.length;
    const rec = await rendered({
      source_url: at('/face.png'),
      result_url: 's3://out/clip.mov',
      config: { logo: { url: at('/logo.png'), position: [-100, 10] }, overlay: at('/overlay.mov'), mute: false },
    });
    expect(rec.status, JSON.stringify(rec.error)).toBe('done');
    const req = fake.calls[before]!;
    expect(req.logo).toMatchObject({ kind: 'image', position: [-100, 10] });
    expect(req.overlayPath).toEqual(expect.any(String));
    // No result_format: the .mov of result_url decides.
    expect(req.resultFormat).toBe('mov');
    expect(seenFiles[before]!.logo!.equals(served.get('/logo.png')!.body)).toBe(true);
    expect(seenFiles[before]!.overlay!.equals(served.get('/overlay.mov')!.body)).toBe(true);
    expect(rec.config).toMatchObject({
      logo: { url: at('/logo.png'), position: [-100, 10] },
      overlay: at('/overlay.mov'),
      mute: false,
      result_format: '.mov',
    });
  });

  it('passes a stored logo and overlay by their media-store files, and logo true/false as default/none', async () => {
    const u = h.user({ credits: 5 });
    await h.services.mediaStore.put(u.id, 'b/logo.png', served.get('/logo.png')!.body, 'image/png');
    await h.services.mediaStore.put(u.id, 'b/over.mp4', Buffer.alloc(100, 3), 'video/mp4');
    const before = fake.calls.length;
    for (const config of [{ logo: { url: 's3://b/logo.png', position: [5, 6] }, overlay: 's3://b/over.mp4' }, { logo: true }, { logo: false }, {}]) {
      expect((await h.call('POST', '/animations', { key: u.key, body: { config } })).status).toBe(201);
    }
    await h.services.worker.drain();
    // Jobs run several at a time (MIMIC_WORKER_CONCURRENCY), so the renders may start in any order.
    const calls = fake.calls.slice(before);
    expect(calls.map((c) => c.logo.kind).sort()).toEqual(['default', 'default', 'image', 'none']);
    const image = calls.find((c) => c.logo.kind === 'image')!;
    expect(image.logo).toEqual({ kind: 'image', path: storedFile(h.services.mediaStore, u.id, 'b/logo.png'), position: [5, 6] });
    expect(image.overlayPath).toBe(storedFile(h.services.mediaStore, u.id, 'b/over.mp4'));
    expect(calls.filter((c) => c !== image).every((c) => c.overlayPath === undefined)).toBe(true);
  });

  it('keeps the fetched source as the record’s own copy, in its real format', async () => {
    const rec = await rendered({ source_url: at('/face.png') });
    expect(rec.status).toBe('done');
    expect(rec.source_url).toMatch(/\/animations\/anm_\w+\/source\.png\?expires=/);
    expect(rec.source_url).not.toContain('s3cr3t');
  });
});
