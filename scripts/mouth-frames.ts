/**
 * Renders the mouth of every built-in presenter and of the sample portrait at a few shapes
 * (`open[:round[:smile]]`, 0..1 each), the way a clip, talk or stream draws it (the render's
 * crop, `animateFrame`), and writes one enlarged strip per face (the picture, then each shape)
 * to look at, and each crop as `<face>-<shape>.png`. `--speaking` also writes
 * `<face>-speaking.png`, the mouth in every other frame of a spoken sentence (visemes, head
 * motion, smile: a talk's motion); `--marks` adds the picture with the rig's lips marked;
 * `--time` prints the median cost of a speaking frame, and of the mouth's share of it.
 * `--doc FILE --before DIR` also writes a before/after picture for the docs (rows: faces;
 * columns: the picture, the crops found in DIR from an earlier run, this run's).
 *
 *   npx tsx scripts/mouth-frames.ts [--out DIR] [--mouth 0,0.05,0.35,0.7,1,0.5:1,0.3:0:1] [--zoom 3] [--only ernst,aksel]
 *     [--time] [--marks] [--speaking] [--doc docs/images/mouth-before-after.png --before DIR]
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { detectFaces } from '../src/compute/local/faces.ts';
import { LIPS_LOWER_INNER, LIPS_UPPER_INNER } from '../src/compute/local/landmarks.ts';
import { decodeImage } from '../src/compute/local/image.ts';
import { neutralFrame, speakingMotion, type MotionFrame } from '../src/compute/local/motion.ts';
import { mouthFromCues } from '../src/compute/local/visemes.ts';
import { mouthTones, shadeMouth } from '../src/compute/local/mouth.ts';
import { animateFrame, cropCanvas } from '../src/compute/local/render.ts';
import { buildRig, rigFrame, type Point3, type Rig } from '../src/compute/local/rig.ts';
import { warpTriangles, type RgbImage } from '../src/compute/local/warp.ts';
import { BUILT_IN_PRESENTERS } from '../src/presenters/built-in.ts';
import { scriptOptions } from './args.ts';

const USAGE = 'usage: npx tsx scripts/mouth-frames.ts [--out DIR] [--mouth 0,0.05,0.35,0.7,1,0.5:1,0.3:0:1] [--zoom 3] [--only NAME,...] [--time] [--marks] [--speaking] [--doc FILE --before DIR]';
const opts = scriptOptions(() => parseArgs({
  options: {
    out: { type: 'string', default: join(tmpdir(), 'mimic-mouth-frames') },
    mouth: { type: 'string', default: '0,0.05,0.15,0.35,0.7,1' },
    zoom: { type: 'string', default: '3' },
    only: { type: 'string' },
    time: { type: 'boolean', default: false },
    marks: { type: 'boolean', default: false },
    doc: { type: 'string' },
    speaking: { type: 'boolean', default: false },
    before: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
}), USAGE);

const SAMPLE = fileURLToPath(new URL('../assets/sample-source.png', import.meta.url));
const faces = [...BUILT_IN_PRESENTERS.map((p) => ({ name: p.name.toLowerCase(), path: p.image })), { name: 'sample', path: SAMPLE }]
  .filter((f) => !opts.only || opts.only.split(',').includes(f.name));
/** Each `--mouth` entry is `open[:round[:smile]]` (0..1 each): `0.7`, or `0.5:1` rounded, `0.3:0:1` smiling. */
const openings = opts.mouth.split(',');
const shapeOf = (entry: string): MotionFrame => {
  const [mouth = 0, round = 0, smile = 0] = entry.split(':').map(Number);
  return { ...neutralFrame(), mouth, round, smile };
};
const labelOf = (entry: string): string => {
  const [mouth, round, smile] = entry.split(':').map(Number);
  return [`${mouth}`, round ? `round ${round}` : '', smile ? `smile ${smile}` : ''].filter(Boolean).join(', ');
};
const zoom = Number(opts.zoom);

/** The render's crop and face mesh of `path`, cached under the output folder (the face search is the slow part). */
async function canvasOf(name: string, path: string): Promise<{ image: RgbImage; mesh: Point3[] }> {
  const cache = join(opts.out, `${name}.canvas.json`);
  try {
    const c = JSON.parse(await readFile(cache, 'utf8')) as { width: number; height: number; data: string; mesh: Point3[] };
    return { image: { width: c.width, height: c.height, data: new Uint8Array(Buffer.from(c.data, 'base64')) }, mesh: c.mesh };
  } catch { /* not cached yet */ }
  const src = await decodeImage(path);
  const [face] = await detectFaces(src);
  if (!face) throw new Error(`no face in ${path}`);
  const { image, meshes } = await cropCanvas(src, face);
  await writeFile(cache, JSON.stringify({ width: image.width, height: image.height, data: Buffer.from(image.data).toString('base64'), mesh: meshes[0] }));
  return { image, mesh: meshes[0]! };
}

const frameOf = (image: RgbImage): RgbImage => ({ width: image.width, height: image.height, data: new Uint8Array(image.data.length) });

/** The mouth's surroundings: nose to chin, cheek to cheek (half the face's width). */
function mouthBox(rig: Rig, mesh: Point3[]): { left: number; top: number; width: number; height: number } {
  const h = rig.faces[0]!.height;
  const cx = (mesh[61]![0] + mesh[291]![0]) / 2, cy = (mesh[13]![1] + mesh[14]![1]) / 2;
  const width = Math.round(0.5 * h), height = Math.round(0.42 * h);
  return { left: Math.round(cx - width / 2), top: Math.round(cy - 0.45 * height), width, height };
}

async function crop(img: RgbImage, box: ReturnType<typeof mouthBox>): Promise<Buffer> {
  return sharp(Buffer.from(img.data), { raw: { width: img.width, height: img.height, channels: 3 } })
    .extract(box).resize(box.width * zoom, box.height * zoom, { kernel: 'nearest' }).png().toBuffer();
}

/** The picture with the rig's lips marked: inner upper red, inner lower blue, outer lips green. */
function marked(image: RgbImage, rig: Rig): RgbImage {
  const out = { ...image, data: Uint8Array.from(image.data) };
  const dot = (i: number, c: [number, number, number]) => {
    const x = Math.round(rig.src[2 * i]!), y = Math.round(rig.src[2 * i + 1]!);
    out.data.set(c, (y * image.width + x) * 3);
  };
  for (const i of [61, 185, 40, 39, 37, 0, 267, 269, 270, 409, 291, 146, 91, 181, 84, 17, 314, 405, 321, 375]) dot(i, [0, 200, 0]);
  for (const i of LIPS_UPPER_INNER) dot(i, [255, 0, 0]);
  for (const i of LIPS_LOWER_INNER) dot(i, [0, 80, 255]);
  return out;
}

/** "Bob, show me the teeth of a map", as Flite times it (ARPAbet, ms), and its motion at 25 fps. */
function sentence(): MotionFrame[] {
  const parts: [string, number][] = [['pau', 200], ['b', 50], ['aa', 170], ['b', 60], ['sh', 120], ['ow', 180], ['m', 70], ['iy', 120], ['dh', 50],
    ['ax', 60], ['t', 60], ['iy', 170], ['th', 110], ['ax', 60], ['v', 60], ['ax', 50], ['m', 70], ['ae', 220], ['p', 90], ['pau', 300]];
  let t = 0;
  const cues = parts.map(([phoneme, ms]) => ({ phoneme, alphabet: 'arpabet' as const, startMs: t, endMs: (t += ms) }));
  const frames = Math.ceil(t / 40);
  const loudness = Array.from({ length: frames }, (_, f) => (cues.find((c) => c.startMs <= f * 40 + 20 && c.endMs > f * 40 + 20)?.phoneme === 'pau' ? 0 : 0.8));
  return speakingMotion('mouth-frames', 25, mouthFromCues(cues, frames, 25, loudness), loudness);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

await mkdir(opts.out, { recursive: true });
for (const { name, path } of faces) {
  const { image, mesh } = await canvasOf(name, path);
  const rig = buildRig([mesh], image.width, image.height, image);
  const box = mouthBox(rig, mesh);
  const tiles = [await crop(image, box)];
  await writeFile(join(opts.out, `${name}-picture.png`), tiles[0]!);
  if (opts.marks) tiles.push(await crop(marked(image, rig), box));
  for (const mouth of openings) {
    const frame = frameOf(image);
    animateFrame(image, rig, shapeOf(mouth), frame);
    tiles.push(await crop(frame, box));
    await writeFile(join(opts.out, `${name}-${mouth}.png`), tiles.at(-1)!);
    if (mouth === openings.at(-1)) {
      await sharp(Buffer.from(frame.data), { raw: { width: frame.width, height: frame.height, channels: 3 } }).png().toFile(join(opts.out, `${name}-face-${mouth}.png`));
    }
  }
  // Four tiles a row, so that a strip stays large enough to see on a screen.
  const w = box.width * zoom, h = box.height * zoom, gap = 4, across = Math.min(4, tiles.length), rows = Math.ceil(tiles.length / across);
  await sharp({ create: { width: across * (w + gap) - gap, height: rows * (h + gap) - gap, channels: 3, background: '#fff' } })
    .composite(tiles.map((input, i) => ({ input, left: (i % across) * (w + gap), top: Math.floor(i / across) * (h + gap) })))
    .png().toFile(join(opts.out, `${name}.png`));

  if (opts.speaking) {
    const motion = sentence().filter((_, i) => i % 2 === 1);
    const shots = await Promise.all(motion.map(async (m) => {
      const frame = frameOf(image);
      animateFrame(image, rig, m, frame);
      return crop(frame, box);
    }));
    const across = 8, rows = Math.ceil(shots.length / across);
    await sharp({ create: { width: across * (w + gap) - gap, height: rows * (h + gap) - gap, channels: 3, background: '#fff' } })
      .composite(shots.map((input, i) => ({ input, left: (i % across) * (w + gap), top: Math.floor(i / across) * (h + gap) })))
      .png().toFile(join(opts.out, `${name}-speaking.png`));
  }

  if (opts.time) {
    // A speaking stretch: the jaw moving through its range, with the small smile speech keeps.
    const frames: MotionFrame[] = Array.from({ length: 100 }, (_, i) => ({ ...neutralFrame(), mouth: 0.5 - 0.5 * Math.cos(i / 3), smile: 0.12, yaw: 2 * Math.sin(i / 17) }));
    const frame = frameOf(image);
    const whole: number[] = [], mouthOnly: number[] = [];
    const tones = mouthTones(image, rig.faces[0]!.pivot[0], rig.faces[0]!.pivot[1] + 0.25 * rig.faces[0]!.height, 0.3 * rig.faces[0]!.height);
    for (let round = 0; round < 3; round++) {
      for (const m of frames) {
        let t = performance.now();
        animateFrame(image, rig, m, frame);
        whole.push(performance.now() - t);
        // The mouth's share: the rig and the shading again, over an already warped frame.
        const { dst, mouths } = rigFrame(rig, m);
        warpTriangles(image, frame, rig.tris, rig.src, dst);
        t = performance.now();
        for (const g of mouths) shadeMouth(frame, g, tones);
        mouthOnly.push(performance.now() - t);
      }
    }
    console.log(`${name}: frame ${median(whole).toFixed(2)} ms, mouth ${median(mouthOnly).toFixed(3)} ms (median of ${whole.length})`);
  }
  console.log(`${name}: ${join(opts.out, `${name}.png`)} (picture, then mouth ${openings.join(', ')})`);
}

if (opts.doc) {
  if (!opts.before) throw new Error('--doc needs --before DIR (the crops of an earlier run)');
  // One row per face: the picture, the earlier crops, this run's; a label over each column.
  const names = faces.map((f) => f.name);
  const columns = [
    { label: 'picture', file: (n: string) => join(opts.out, `${n}-picture.png`) },
    ...openings.map((m) => ({ label: `before ${labelOf(m)}`, file: (n: string) => join(opts.before!, `${n}-${m}.png`) })),
    ...openings.map((m) => ({ label: `after ${labelOf(m)}`, file: (n: string) => join(opts.out, `${n}-${m}.png`) })),
  ];
  const cells = await Promise.all(names.map((n) => Promise.all(columns.map(async (c) => sharp(c.file(n)).resize({ height: 150, width: 180, fit: 'cover' }).png().toBuffer()))));
  const w = 180, h = 150, gap = 4, head = 24;
  // A wider gap between the picture, the earlier crops and this run's.
  const left = (i: number) => i * (w + gap) + (i >= 1 ? 12 : 0) + (i > openings.length ? 12 : 0);
  const width = left(columns.length - 1) + w;
  const labels = columns.map((c, i) => `<text x="${left(i) + w / 2}" y="17" font-family="sans-serif" font-size="15" text-anchor="middle">${c.label}</text>`).join('');
  const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${head}"><rect width="100%" height="100%" fill="white"/>${labels}</svg>`);
  await sharp({ create: { width, height: head + names.length * (h + gap) - gap, channels: 3, background: '#fff' } })
    .composite([{ input: svg, left: 0, top: 0 }, ...cells.flatMap((row, r) => row.map((input, i) => ({ input, left: left(i), top: head + r * (h + gap) })))])
    .png({ compressionLevel: 9, palette: true, quality: 90, effort: 10 }).toFile(opts.doc);
  console.log(`wrote ${opts.doc}`);
}
