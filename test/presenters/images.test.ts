import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { detectFaces } from '../../src/compute/local/faces.ts';
import { cropFor, PICTURES, SIZE } from '../../scripts/presenter-images.ts';
import { ROOT } from '../helpers/cli.ts';

const dir = join(ROOT, 'assets', 'presenters');

describe('cropFor', () => {
  it('cuts a square of 1/0.36 of the face height around the face, the face centre at 42 % of the height', () => {
    expect(cropFor([400, 400, 500, 508], 2000, 2000)).toEqual({ left: 300, top: 328, size: 300 });
  });

  it('keeps the square inside the original: it shrinks to the short side and slides off the borders', () => {
    expect(cropFor([10, 5, 110, 300], 600, 500)).toEqual({ left: 0, top: 0, size: 500 });
    expect(cropFor([560, 380, 590, 440], 600, 500)).toEqual({ left: 433, top: 333, size: 167 });
  });
});

describe('assets/presenters', () => {
  it('holds exactly one picture per presenter of the script, under 1 MB in all', () => {
    const files = readdirSync(dir).sort();
    expect(files).toEqual(PICTURES.map((p) => `${p.slug}.jpg`).sort());
    const total = files.reduce((n, f) => n + statSync(join(dir, f)).size, 0);
    expect(total).toBeLessThan(1024 * 1024);
  });

  it.each(PICTURES.map((p) => p.slug))('%s is a 512x512 JPEG with one frontal face, centred, in the upper half', async (slug) => {
    const bytes = readFileSync(join(dir, `${slug}.jpg`));
    const meta = await sharp(bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', SIZE, SIZE]);
    const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const faces = await detectFaces({ width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) });
    const face = faces[0];
    if (!face) throw new Error(`no face found in ${slug}.jpg`);
    const ys = face.mesh.map((p) => p[1]), xs = face.mesh.map((p) => p[0]);
    const height = (Math.max(...ys) - Math.min(...ys)) / SIZE;
    const cx = (Math.max(...xs) + Math.min(...xs)) / 2 / SIZE, cy = (Math.max(...ys) + Math.min(...ys)) / 2 / SIZE;
    expect(height).toBeGreaterThan(0.3);
    expect(height).toBeLessThan(0.55);
    expect(Math.abs(cx - 0.5)).toBeLessThan(0.12);
    expect(cy).toBeLessThan(0.5);
    expect(Math.abs(face.pose[0])).toBeLessThan(20);
  });
});
