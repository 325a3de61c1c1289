/**
 * `config.logo` on the record is `{url, position}` as the interface shows it, also for the
 * default logo: a signed URL that serves the default logo, and the top-left corner where the
 * renderer (src/compute/local/compose.ts) draws it on the result frame.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { harness, type Harness } from '../helpers/harness.ts';
import { startTlsServer } from '../helpers/tls.ts';
import { ROOT } from '../helpers/cli.ts';
import { loadLogo } from '../../src/compute/local/compose.ts';
import { storedFile } from '../media/stored-file.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const png = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#808080' } }).png().toBuffer();

/** Where the local renderer puts the default logo on a width x height result. */
async function drawnAt(width: number, height: number): Promise<[number, number]> {
  const layer = (await loadLogo({ kind: 'default' }, width, height))!;
  return [layer.x, layer.y];
}

async function record(hh: Harness, key: string, body: unknown) {
  const created = await hh.call('POST', '/animations', { key, body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return async () => (await hh.call('GET', `/animations/${created.body.id}`, { key })).body;
}

describe('config.logo on the animation record', () => {
  it('shows the default logo as a signed URL that serves it and the position the renderer draws it at', async () => {
    h = harness();
    const u = h.user();
    for (const body of [{}, { config: { logo: true } }]) {
      const get = await record(h, u.key, body);
      for (const rec of [await get(), (await h.services.worker.drain(), await get())]) {
        const { logo } = rec.config;
        expect(Object.keys(logo).sort()).toEqual(['position', 'url']);
        expect(logo.position).toEqual(await drawnAt(512, 512));
        expect(logo.url).toMatch(/^http:\/\/mimic\.test\/media\/usr_\w+\/samples\/logo\.png\?expires=\d+&signature=/);
        const res = await h.app.request(logo.url.replace('http://mimic.test', ''));
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('image/png');
        expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(join(ROOT, 'assets/logo.png')))).toBe(true);
      }
    }
    // The bottom-right corner of the 512x512 crop, inside it.
    const [x, y] = await drawnAt(512, 512);
    expect(x).toBeGreaterThan(256);
    expect(y).toBeGreaterThan(256);
  });

  it('places the default logo on the stitched frame of a stored source, known at creation', async () => {
    h = harness();
    const u = h.user({ permissions: ['stitch'] });
    await h.services.mediaStore.put(u.id, 'b/wide.png', await png(801, 400), 'image/png');
    const get = await record(h, u.key, { source_url: 's3://b/wide.png', config: { stitch: true } });
    // The stitched frame is the source cut to even sides: 800x400.
    expect((await get()).config.logo.position).toEqual(await drawnAt(800, 400));
    expect(await drawnAt(800, 400)).not.toEqual(await drawnAt(512, 512));
  });

  it('places the default logo on the stitched frame of a fetched source once the render has read it', async () => {
    const receiver = await startTlsServer();
    try {
      const photo = await png(640, 360);
      receiver.handle((_req, res) => void res.writeHead(200, { 'content-type': 'image/png' }).end(photo));
      h = harness({ MIMIC_EGRESS_ALLOW: 'localhost' }, { ca: [receiver.ca] });
      const u = h.user({ permissions: ['stitch'] });
      const get = await record(h, u.key, { source_url: `${receiver.url}/face.png`, config: { stitch: true } });
      // Before the render fetched the source, the frame (and so the position) is not known yet.
      const before = (await get()).config.logo;
      expect(before.url).toMatch(/\/samples\/logo\.png\?/);
      expect(before.position).toBeUndefined();
      await h.services.worker.drain();
      const after = await get();
      expect(after.status).toBe('done');
      expect(after.config.logo.position).toEqual(await drawnAt(640, 360));
    } finally {
      await receiver.close();
    }
  });

  it('shows a custom logo as requested and a turned-off logo as false', async () => {
    h = harness();
    const u = h.user();
    const custom = { url: 'https://example.com/brand.png', position: [10, -20] };
    expect((await (await record(h, u.key, { config: { logo: custom } }))()).config.logo).toEqual(custom);
    expect((await (await record(h, u.key, { config: { logo: false } }))()).config.logo).toBe(false);
    // Neither puts the default logo into the user's media store.
    expect(storedFile(h.services.mediaStore, u.id, 'samples/logo.png')).toBeNull();
  });
});
