import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { harness, type Harness } from '../helpers/harness.ts';

let h: Harness;
let key: string;
let stitcher: string;

beforeAll(() => {
  h = harness();
  key = h.user({ credits: 1000 }).key;
  stitcher = h.user({ credits: 1000, permissions: ['stitch'] }).key;
});
afterAll(() => h.close());

const long = (n: number) => 'x'.repeat(n);

const valid: [string, unknown][] = [
  ['an empty object', {}],
  ['a jpg source', { source_url: 'https://example.com/a.jpg' }],
  ['an upper-case JPG source', { source_url: 'https://example.com/a.JPG' }],
  ['jpeg, tiff, png, bmp', { source_url: 'https://example.com/a.jpeg' }],
  ['tiff', { source_url: 'https://example.com/a.tiff' }],
  ['PNG', { source_url: 'https://example.com/dir/a.PNG' }],
  ['BMP', { source_url: 'https://example.com/a.BMP' }],
  ['a signed source URL with a query', { source_url: 'https://bucket.example.com/a.png?X-Amz-Signature=abc&X-Amz-Expires=60' }],
  ['a bank category', { driver_url: 'bank://nostalgia' }],
  ['a bank category with slash', { driver_url: 'bank://dance/' }],
  ['a named bank driver', { driver_url: 'bank://classics/driver-la-cucaracha' }],
  ['a stitch driver', { driver_url: 'bank://stitch/driver-33' }],
  ['an https driver', { driver_url: 'https://example.com/driver.mp4' }],
  ['an https result_url', { result_url: 'https://example.com/upload/out.mp4?sig=1' }],
  ['a storage result_url', { result_url: 's3://bucket/results/out.mp4' }],
  ['an empty webhook', { webhook: '' }],
  ['an https webhook', { webhook: 'https://example.com/hook' }],
  ['user_data of 1 character', { user_data: 'a' }],
  ['user_data of 1000 characters', { user_data: long(1000) }],
  ['user_data with surrounding spaces', { user_data: '  a  ' }],
  ['logo true', { config: { logo: true } }],
  ['logo false', { config: { logo: false } }],
  ['a custom logo with a negative position', { config: { logo: { url: 'https://example.com/logo.png', position: [0, -10] } } }],
  ['mute false', { config: { mute: false } }],
  ['stitch false', { config: { stitch: false } }],
  ['max_animated_faces 1', { config: { max_animated_faces: 1 } }],
  ['max_animated_faces 5', { config: { max_animated_faces: 5 } }],
  ['max_animated_faces as a double', { config: { max_animated_faces: 2.5 } }],
  ['result_format mov', { config: { result_format: 'mov' } }],
  ['result_format mp4', { config: { result_format: 'mp4' } }],
  ['an overlay', { config: { overlay: 'https://example.com/o.MP4' } }],
  ['a .mov result_url without result_format (mov is inferred)', { result_url: 'https://example.com/out.mov?sig=1' }],
  ['a .MOV result_url with result_format mov', { result_url: 's3://bucket/out.MOV', config: { result_format: 'mov' } }],
  ['a result_url without an extension', { result_url: 'https://example.com/upload?id=1', config: { result_format: 'mov' } }],
  ['a result_url with a non-video extension', { result_url: 'https://example.com/out.bin' }],
  ['max_animated_faces without stitch (no effect, harmless)', { config: { max_animated_faces: 2 } }],
  ['a face of the minimum size, half inside the sample', { face: { size: 16, top_left: [-8, 0] } }],
  ['a logo on the last pixel of the 512x512 crop', { config: { logo: { url: 'https://example.com/l.png', position: [511, -1] } } }],
  ['an mpeg overlay', { config: { overlay: 'https://example.com/o.mpeg' } }],
  // Schema-valid; with an https source the picture's size is known only at render time.
  ['a face at negative coordinates and Dimension 8000', { source_url: 'https://example.com/a.jpg', face: { size: 16, top_left: [-5, 8000] } }],
  [
    'a face with every field',
    {
      face: {
        size: 256,
        top_left: [10.5, 20],
        overlap: 'PARTIAL',
        face_id: 'f1',
        detect_confidence: 0.9,
        sharpness: 0.5,
        face_occluded: false,
        face_occluded_confidence: 0.1,
        detection: { top: 1, left: 2, bottom: 300, right: 400 },
      },
    },
  ],
];

const invalid: [string, unknown, string][] = [
  ['an unknown field', { foo: 1 }, 'foo'],
  ['an unknown config field', { config: { motion_factor: 1 } }, 'config.motion_factor'],
  ['an http source', { source_url: 'http://example.com/a.jpg' }, 'source_url'],
  ['an ftp source', { source_url: 'ftp://example.com/a.jpg' }, 'source_url'],
  ['a gif source', { source_url: 'https://example.com/a.gif' }, 'source_url'],
  ['a mixed-case extension', { source_url: 'https://example.com/a.Jpg' }, 'source_url'],
  ['a source without extension', { source_url: 'https://example.com/a' }, 'source_url'],
  ['a source with whitespace', { source_url: 'https://example.com/a b.jpg' }, 'source_url'],
  ['another storage scheme', { source_url: 'gs://bucket/a.jpg' }, 'source_url'],
  ['a number source', { source_url: 5 }, 'source_url'],
  ['bank:// with nothing after it', { driver_url: 'bank://' }, 'driver_url'],
  ['an http driver', { driver_url: 'http://example.com/d.mp4' }, 'driver_url'],
  ['an unknown bank category', { driver_url: 'bank://nope/' }, 'driver_url'],
  ['a driver missing from the bank', { driver_url: 'bank://nostalgia/driver-13' }, 'driver_url'],
  ['stitch driver 28 (not in the bank)', { driver_url: 'bank://stitch/driver-28' }, 'driver_url'],
  ['an http result_url', { result_url: 'http://example.com/out.mp4' }, 'result_url'],
  ['an http webhook', { webhook: 'http://example.com/hook' }, 'webhook'],
  ['a webhook with whitespace', { webhook: 'https://example.com/a hook' }, 'webhook'],
  ['a webhook with leading whitespace', { webhook: ' https://example.com/hook' }, 'webhook'],
  ['a whitespace webhook', { webhook: ' ' }, 'webhook'],
  ['empty user_data', { user_data: '' }, 'user_data'],
  ['whitespace-only user_data', { user_data: ' \t\n ' }, 'user_data'],
  ['user_data of 1001 characters', { user_data: long(1001) }, 'user_data'],
  ['user_data not a string', { user_data: 42 }, 'user_data'],
  ['a face without size', { face: { top_left: [0, 0] } }, 'face.size'],
  ['a face without top_left', { face: { size: 10 } }, 'face.top_left'],
  ['top_left with one element', { face: { size: 10, top_left: [1] } }, 'face.top_left'],
  ['top_left with three elements', { face: { size: 10, top_left: [1, 2, 3] } }, 'face.top_left'],
  ['a Dimension over 8000', { face: { size: 10, top_left: [8000.5, 0] } }, 'face.top_left.0'],
  ['a negative size', { face: { size: -1, top_left: [0, 0] } }, 'face.size'],
  ['a fractional size (int32)', { face: { size: 1.5, top_left: [0, 0] } }, 'face.size'],
  ['a size beyond int32', { face: { size: 2 ** 31, top_left: [0, 0] } }, 'face.size'],
  ['a size given as a string', { face: { size: '10', top_left: [0, 0] } }, 'face.size'],
  ['a lower-case overlap', { face: { size: 10, top_left: [0, 0], overlap: 'no' } }, 'face.overlap'],
  ['a detection missing bottom', { face: { size: 10, top_left: [0, 0], detection: { top: 1, left: 1, right: 1 } } }, 'face.detection.bottom'],
  ['a detection over 8000', { face: { size: 10, top_left: [0, 0], detection: { top: 1, left: 1, right: 1, bottom: 9000 } } }, 'face.detection.bottom'],
  ['an unknown face field', { face: { size: 10, top_left: [0, 0], x: 1 } }, 'face.x'],
  ['a logo position of one element', { config: { logo: { url: 'https://example.com/l.png', position: [1] } } }, 'config.logo.position'],
  ['a fractional logo position', { config: { logo: { url: 'https://example.com/l.png', position: [1.5, 2] } } }, 'config.logo.position.0'],
  ['a logo without url', { config: { logo: { position: [0, 0] } } }, 'config.logo.url'],
  ['a logo with an http url', { config: { logo: { url: 'http://example.com/l.png', position: [0, 0] } } }, 'config.logo.url'],
  ['a logo string', { config: { logo: 'yes' } }, 'config.logo'],
  ['max_animated_faces 0', { config: { max_animated_faces: 0 } }, 'config.max_animated_faces'],
  ['max_animated_faces 6', { config: { max_animated_faces: 6 } }, 'config.max_animated_faces'],
  ['max_animated_faces 5.5', { config: { max_animated_faces: 5.5 } }, 'config.max_animated_faces'],
  ['an unknown result_format', { config: { result_format: 'gif' } }, 'config.result_format'],
  ['a dotted result_format', { config: { result_format: '.mp4' } }, 'config.result_format'],
  ['mute as a string', { config: { mute: 'true' } }, 'config.mute'],
  ['stitch as a number', { config: { stitch: 1 } }, 'config.stitch'],
  ['an avi overlay', { config: { overlay: 'https://example.com/o.avi' } }, 'config.overlay'],
  ['an http overlay', { config: { overlay: 'http://example.com/o.mp4' } }, 'config.overlay'],
  ['config not an object', { config: [] }, 'config'],
  ['a missing storage object', { source_url: 's3://bucket/missing.jpg' }, 'source_url'],
];

/** Schema-valid requests that break a rule knowable from the request (and the 512x512 sample): [name, body, kind, field]. */
const brokenRules: [string, unknown, string, string][] = [
  ['a result_url .mov with result_format mp4', { result_url: 'https://example.com/out.mov', config: { result_format: 'mp4' } }, 'ConfigError', 'result_url'],
  ['a storage result_url .mp4 with result_format mov', { result_url: 's3://bucket/out.mp4', config: { result_format: 'mov' } }, 'ConfigError', 'result_url'],
  ['a result_url naming a container never written', { result_url: 'https://example.com/out.webm?sig=1' }, 'ConfigError', 'result_url'],
  ['a logo starting right of the 512x512 crop', { config: { logo: { url: 'https://example.com/l.png', position: [512, 0] } } }, 'ConfigError', 'config.logo.position'],
  ['a logo starting below the 512x512 crop', { config: { logo: { url: 'https://example.com/l.png', position: [0, 600] } } }, 'ConfigError', 'config.logo.position'],
  ['a face of size 0', { face: { size: 0, top_left: [0, 0] } }, 'InvalidFaceError', 'face.size'],
  ['a face under 16 pixels, even with an https source', { source_url: 'https://example.com/a.jpg', face: { size: 15, top_left: [0, 0] } }, 'InvalidFaceError', 'face.size'],
  ['a face outside the sample', { face: { size: 100, top_left: [512, 0] } }, 'InvalidFaceError', 'face'],
  ['a face mostly above the sample', { face: { size: 100, top_left: [0, -51] } }, 'InvalidFaceError', 'face'],
];

describe('POST /animations validation', () => {
  it.each(valid)('accepts %s', async (_name, body) => {
    const res = await h.call('POST', '/animations', { key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'created_by', 'id', 'object', 'status']);
    expect(res.body.object).toBe('animation');
    expect(res.body.status).toBe('created');
    expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);
  });

  it.each(invalid)('refuses %s', async (_name, body, field) => {
    const res = await h.call('POST', '/animations', { key, body });
    expect(res.status).toBe(400);
    expect(res.body.kind).toBe('BadRequestError');
    expect(typeof res.body.description).toBe('string');
    expect(Object.keys(res.body).every((k) => ['kind', 'description', 'details'].includes(k))).toBe(true);
    const fields = (res.body.details as { field: string; message: string }[]).map((d) => d.field);
    expect(fields, JSON.stringify(res.body.details)).toContain(field);
  });

  it.each(brokenRules)('refuses %s with its own kind', async (_name, body, kind, field) => {
    const u = h.user({ credits: 1 });
    const res = await h.call('POST', '/animations', { key: u.key, body });
    expect(res.status).toBe(400);
    expect(res.body.kind).toBe(kind);
    expect(res.body.details[0].field).toBe(field);
    expect(res.body.description).not.toContain('example.com');
    // Nothing written, nothing charged: the one credit still buys an animation.
    expect((await h.call('GET', '/animations', { key: u.key })).body.animations).toEqual([]);
    expect((await h.call('POST', '/animations', { key: u.key, body: {} })).status).toBe(201);
  });

  it.each([
    ['no body at all', undefined],
    ['an empty body', ''],
    ['whitespace', '   '],
    ['invalid JSON', '{"a":'],
    ['a JSON array', '[]'],
    ['JSON null', 'null'],
    ['a JSON string', '"x"'],
  ])('refuses %s with a clear 400', async (_name, raw) => {
    const res = await h.call('POST', '/animations', { key, ...(raw !== undefined ? { raw, headers: { 'content-type': 'application/json' } } : {}) });
    expect(res.status).toBe(400);
    expect(res.body.kind).toBe('BadRequestError');
  });

  it('refuses a non-JSON content type', async () => {
    const res = await h.call('POST', '/animations', { key, raw: 'source_url=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(400);
    expect(res.body.description).toMatch(/JSON/);
  });

  it('answers 413 for a body over the limit, before parsing it', async () => {
    const res = await h.call('POST', '/animations', { key, body: { user_data: 'x'.repeat(h.config.maxBodyBytes + 10) } });
    expect(res.status).toBe(413);
    expect(res.body.kind).toBe('PayloadTooLargeError');
  });

  it('reports every invalid field at once', async () => {
    const res = await h.call('POST', '/animations', { key, body: { user_data: '', config: { max_animated_faces: 9, result_format: 'gif' } } });
    const fields = res.body.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['user_data', 'config.max_animated_faces', 'config.result_format']));
  });

  it('accepts a storage source that exists in the caller’s media store', async () => {
    const user = h.user();
    const png = await sharp({ create: { width: 64, height: 64, channels: 4, background: '#fff0' } }).png().toBuffer();
    await h.services.mediaStore.put(user.id, 'bucket/me.png', png, 'image/png');
    const ok = await h.call('POST', '/animations', {
      key: user.key,
      body: { source_url: 's3://bucket/me.png', config: { logo: { url: 's3://bucket/me.png', position: [1, 2] } } },
    });
    expect(ok.status).toBe(201);
    const noLogo = await h.call('POST', '/animations', { key: user.key, body: { config: { logo: { url: 's3://bucket/none.png', position: [1, 2] } } } });
    expect(noLogo.status).toBe(400);
    expect(noLogo.body.details[0].field).toBe('config.logo.url');
    // The same URL from another user names that user's (missing) object: tenant isolation.
    const other = await h.call('POST', '/animations', { key, body: { source_url: 's3://bucket/me.png' } });
    expect(other.status).toBe(400);
  });

  it('honours a configured storage scheme', async () => {
    const g = harness({ MIMIC_STORAGE_SCHEME: 'gs' });
    try {
      const k = g.user().key;
      expect((await g.call('POST', '/animations', { key: k, body: { result_url: 'gs://b/out.mp4' } })).status).toBe(201);
      expect((await g.call('POST', '/animations', { key: k, body: { result_url: 's3://b/out.mp4' } })).status).toBe(400);
    } finally {
      await g.close();
    }
  });
});

describe('POST /animations permissions and credits', () => {
  it('refuses stitch without the stitch permission (403) and allows it with', async () => {
    const denied = await h.call('POST', '/animations', { key, body: { config: { stitch: true } } });
    expect(denied.status).toBe(403);
    expect(denied.body.kind).toBe('PermissionError');
    const allowed = await h.call('POST', '/animations', { key: stitcher, body: { config: { stitch: true } } });
    expect(allowed.status).toBe(201);
  });

  it('answers 402 without credits, and a charge is all or nothing', async () => {
    const poor = h.user({ credits: 1 });
    expect((await h.call('POST', '/animations', { key: poor.key, body: {} })).status).toBe(201);
    const res = await h.call('POST', '/animations', { key: poor.key, body: {} });
    expect(res.status).toBe(402);
    expect(res.body.kind).toBe('InsufficientCreditsError');
    const list = await h.call('GET', '/animations', { key: poor.key });
    expect(list.body.animations).toHaveLength(1);
  });

  it('does not charge for an invalid request', async () => {
    const u = h.user({ credits: 1 });
    expect((await h.call('POST', '/animations', { key: u.key, body: { foo: 1 } })).status).toBe(400);
    expect((await h.call('POST', '/animations', { key: u.key, body: {} })).status).toBe(201);
  });
});
