/**
 * Renders one example of every animation option with the local backend and saves one
 * representative frame of each, small, under docs/images/options/ (for
 * docs/animation-options.md). Inputs are made here from the sample portrait: a picture with
 * several faces, a driver video, a custom logo, an overlay video.
 *
 *   npx tsx scripts/option-frames.ts
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp, { type Sharp } from 'sharp';
import type { ComputeBackend, RenderRequest, RenderResult } from '../src/compute/interface.ts';
import { runFfmpeg } from '../src/media/ffmpeg.ts';
import { createLocalBackend } from '../src/compute/local/index.ts';
import { bankMotion, type MotionTrack } from '../src/compute/local/motion.ts';

const SAMPLE = fileURLToPath(new URL('../assets/sample-source.png', import.meta.url));
const OUT = fileURLToPath(new URL('../docs/images/options/', import.meta.url));
/** Width of a single-frame picture; side-by-side pictures are this tall. */
const WIDTH = 320;
const JPEG = { quality: 80, mozjpeg: true };

/** The frame where a bank driver moves most. */
function liveliest(track: MotionTrack, from = 0, to = track.frames.length): number {
  const motion = track.frames.slice(from, to).map((f) => Math.abs(f.yaw) + Math.abs(f.roll) + Math.abs(f.pitch) + 10 * f.mouth);
  return from + motion.indexOf(Math.max(...motion));
}

async function frameAt(file: string, index: number): Promise<Buffer> {
  const r = await runFfmpeg(['-v', 'error', '-i', file, '-vf', `select=eq(n\\,${index})`, '-vsync', '0', '-frames:v', '1', '-f', 'image2pipe', '-vcodec', 'png', 'pipe:1']);
  if (r.code !== 0 || r.stdout.length === 0) throw new Error(`frame ${index} of ${file}: ${r.stderr}`);
  return r.stdout;
}

async function ffmpeg(args: string[]): Promise<void> {
  const r = await runFfmpeg(['-y', '-loglevel', 'error', ...args]);
  if (r.code !== 0) throw new Error(`ffmpeg ${args.join(' ')}: ${r.stderr}`);
}

/** Pictures side by side, each scaled to `height`, with a thin white gap. */
async function sideBySide(pictures: Buffer[], height: number): Promise<Sharp> {
  const scaled = await Promise.all(pictures.map((p) => sharp(p).resize({ height }).png().toBuffer({ resolveWithObject: true })));
  const gap = 4;
  const width = scaled.reduce((w, s) => w + s.info.width, 0) + gap * (scaled.length - 1);
  let left = 0;
  const layers = scaled.map((s) => {
    const layer = { input: s.data, left, top: 0 };
    left += s.info.width + gap;
    return layer;
  });
  return sharp({ create: { width, height, channels: 3, background: '#ffffff' } }).composite(layers);
}

async function save(name: string, img: Sharp): Promise<void> {
  const path = join(OUT, `${name}.jpg`);
  const info = await img.jpeg(JPEG).toFile(path);
  console.log(`${path}: ${info.width}x${info.height}, ${(info.size / 1024).toFixed(1)} KiB`);
}

/** Inputs made from the sample portrait. */
async function makeInputs(dir: string, render: (over: Partial<RenderRequest> & { name: string }) => Promise<RenderResult>) {
  const sepia = await sharp(SAMPLE).flop().tint({ r: 150, g: 110, b: 70 }).png().toBuffer();
  const grey = await sharp(SAMPLE).greyscale().toColourspace('srgb').png().toBuffer();

  // A group picture: three strips of the sample (as is, mirrored sepia, grey), smaller and smaller.
  const strip = sharp(SAMPLE).extract({ left: 75, top: 0, width: 300, height: 512 });
  const second = await sharp(await strip.clone().flop().tint({ r: 150, g: 110, b: 70 }).png().toBuffer()).resize({ height: 435 }).toBuffer();
  const third = await sharp(await strip.clone().greyscale().toColourspace('srgb').png().toBuffer()).resize({ height: 358 }).toBuffer();
  const group = join(dir, 'group.png');
  await sharp({ create: { width: 850, height: 512, channels: 3, background: '#d8d4cc' } })
    .composite([
      { input: await strip.clone().png().toBuffer(), left: 0, top: 0 },
      { input: second, left: 340, top: 512 - 435 },
      { input: third, left: 640, top: 512 - 358 },
    ])
    .png()
    .toFile(group);

  // Two faces: the large one and a small grey copy (the `face` example asks for the small one).
  const twoFaces = join(dir, 'two-faces.png');
  await sharp({ create: { width: 880, height: 512, channels: 3, background: '#808080' } })
    .composite([{ input: SAMPLE, left: 0, top: 0 }, { input: await sharp(grey).resize(340).toBuffer(), left: 530, top: 140 }])
    .png()
    .toFile(twoFaces);

  // A driver video: 4 s of a singing (classics) animation of the sample, with its sound.
  const song = join(dir, 'song.mp4');
  await render({ name: 'song', outputPath: song, mute: false, logo: { kind: 'none' }, driver: { kind: 'bank', category: 'classics', name: 'driver-la-cucaracha' } });
  const driverVideo = join(dir, 'driver.mp4');
  await ffmpeg(['-i', song, '-t', '4', '-vf', 'scale=320:320', '-c:v', 'libx264', '-preset', 'veryfast', '-c:a', 'aac', driverVideo]);
  const mirrored = join(dir, 'mirrored.png');
  await sharp(sepia).toFile(mirrored);

  // A custom logo with alpha: a translucent rounded badge with an opaque play sign.
  const badge = join(dir, 'badge.png');
  await sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="120" height="72">
    <rect x="0" y="0" width="120" height="72" rx="18" fill="#e0306a" fill-opacity="0.8"/>
    <circle cx="36" cy="36" r="20" fill="#ffffff"/>
    <path d="M 30 25 L 48 36 L 30 47 Z" fill="#e0306a"/>
    <rect x="66" y="26" width="38" height="7" rx="3.5" fill="#ffffff"/>
    <rect x="66" y="40" width="26" height="7" rx="3.5" fill="#ffffff" fill-opacity="0.7"/>
  </svg>`)).png().toFile(badge);

  // An overlay without alpha: snow falling on black (screen-blended: the black vanishes).
  const snow = join(dir, 'snow.mp4');
  const flakes = Array.from({ length: 160 }, (_, i) => ({ x: (i * 97.3) % 320, y: (i * 53.9) % 320, r: 1 + (i % 3), v: 1.5 + (i % 5) * 0.6 }));
  const frames: Buffer[] = [];
  for (let f = 0; f < 100; f++) {
    const dots = flakes.map((k) => `<circle cx="${(k.x + 8 * Math.sin((f + k.y) / 12)).toFixed(1)}" cy="${((k.y + k.v * f) % 330) - 5}" r="${k.r}" fill="#ffffff" fill-opacity="0.85"/>`);
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="320"><rect width="320" height="320" fill="#000000"/>${dots.join('')}</svg>`;
    frames.push(await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer());
  }
  const r = await runFfmpeg(['-y', '-loglevel', 'error', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', '320x320', '-framerate', '25', '-i', 'pipe:0', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', snow], { input: Buffer.concat(frames) });
  if (r.code !== 0) throw new Error(r.stderr);

  return { group, twoFaces, driverVideo, mirrored, badge, snow };
}

/** The sound of `file` as a waveform strip, `width` x `height`. */
async function waveform(file: string, width: number, height: number): Promise<Buffer> {
  const r = await runFfmpeg(['-v', 'error', '-i', file, '-map', '0:a:0', '-ac', '1', '-ar', '8000', '-f', 's16le', 'pipe:1']);
  if (r.code !== 0) throw new Error(r.stderr);
  const pcm = new Int16Array(r.stdout.buffer, r.stdout.byteOffset, r.stdout.length / 2);
  const per = Math.max(1, Math.floor(pcm.length / width));
  const peaks = Array.from({ length: width }, (_, x) => {
    let peak = 0;
    for (let i = x * per; i < (x + 1) * per && i < pcm.length; i++) peak = Math.max(peak, Math.abs(pcm[i]!));
    return peak;
  });
  const loudest = Math.max(1, ...peaks);
  const bars = peaks.map((peak, x) => {
    const h = Math.max(1, (peak / loudest) * (height - 8));
    return `<rect x="${x}" y="${((height - h) / 2).toFixed(1)}" width="1" height="${h.toFixed(1)}" fill="#2b8a6e"/>`;
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="${width}" height="${height}" fill="#f2f5f3"/>${bars.join('')}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

async function main(): Promise<void> {
  await mkdir(OUT, { recursive: true });
  const dir = await mkdtemp(join(tmpdir(), 'mimic-option-frames-'));
  const backend: ComputeBackend = createLocalBackend();
  const render = async (over: Partial<RenderRequest> & { name: string }): Promise<RenderResult> => {
    const req: RenderRequest = {
      jobId: over.name, sourcePath: SAMPLE, driver: { kind: 'bank', category: 'fun', name: 'driver-01' },
      resultFormat: 'mp4', mute: true, stitch: false, maxAnimatedFaces: 1, logo: { kind: 'default' },
      outputPath: join(dir, `${over.name}.${over.resultFormat ?? 'mp4'}`), workDir: dir, signal: new AbortController().signal,
      ...over,
    };
    const result = await backend.run('animation.render', req);
    console.log(`rendered ${over.name}: ${result.metadata.resolution.join('x')}, ${result.metadata.num_frames} frames, faces ${result.faceIds.join(',')}`);
    return result;
  };
  const output = (name: string, format = 'mp4') => join(dir, `${name}.${format}`);
  const single = async (name: string, index: number, width = WIDTH, format = 'mp4') =>
    save(name, sharp(await frameAt(output(name, format), index)).resize({ width }));

  try {
    const inputs = await makeInputs(dir, render);
    const fun = bankMotion('fun', 'driver-01')!;
    const dance = bankMotion('dance', 'driver-02')!;
    const stitchTrack = bankMotion('fun', 'driver-03')!;
    const song = bankMotion('classics', 'driver-la-cucaracha')!;

    await render({ name: 'default' });
    await single('default', liveliest(fun));

    // The driver video's frames follow the singing track: show both at its widest mouth.
    await render({ name: 'driver-video', sourcePath: inputs.mirrored, driver: { kind: 'video', path: inputs.driverVideo } });
    const sung = liveliest(song, 0, 100);
    await save('driver-video', await sideBySide([await frameAt(inputs.driverVideo, sung), await frameAt(output('driver-video'), sung)], 200));

    const faces = await render({ name: 'faces-found', sourcePath: inputs.twoFaces, logo: { kind: 'none' }, driver: { kind: 'bank', category: 'subtle', name: 'driver-05' } });
    const small = faces.metadata.faces[1]!;
    await render({ name: 'face', sourcePath: inputs.twoFaces, face: { size: small.size, top_left: small.top_left } });
    const square = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="880" height="512"><rect x="${small.top_left[0]}" y="${small.top_left[1]}" width="${small.size}" height="${small.size}" fill="none" stroke="#ffd400" stroke-width="6"/></svg>`);
    const marked = await sharp(inputs.twoFaces).composite([{ input: square }]).png().toBuffer();
    await save('face', await sideBySide([marked, await frameAt(output('face'), liveliest(fun))], 200));

    await render({ name: 'stitch', sourcePath: inputs.group, stitch: true, maxAnimatedFaces: 5, driver: { kind: 'bank', category: 'fun', name: 'driver-03' } });
    await single('stitch', liveliest(stitchTrack), 480);

    await render({ name: 'logo-default', driver: { kind: 'bank', category: 'dance', name: 'driver-02' } });
    await single('logo-default', liveliest(dance));
    await render({ name: 'logo-custom', driver: { kind: 'bank', category: 'dance', name: 'driver-02' }, logo: { kind: 'image', path: inputs.badge, position: [-136, 16] } });
    await single('logo-custom', liveliest(dance));
    await render({ name: 'logo-false', driver: { kind: 'bank', category: 'dance', name: 'driver-02' }, logo: { kind: 'none' } });
    await single('logo-false', liveliest(dance));

    await render({ name: 'overlay', overlayPath: inputs.snow, driver: { kind: 'bank', category: 'nostalgia', name: 'driver-03' } });
    await single('overlay', 60);

    await render({ name: 'mov', resultFormat: 'mov', driver: { kind: 'bank', category: 'subtle', name: 'driver-02' } });
    await single('mov', 50, WIDTH, 'mov');

    // mute: false with a singing driver: the frame and the sound track under it.
    await render({ name: 'sound', mute: false, driver: { kind: 'bank', category: 'classics', name: 'driver-la-cucaracha' } });
    const frame = await sharp(await frameAt(output('sound'), sung)).resize({ width: WIDTH }).png().toBuffer();
    await save('mute-false', sharp({ create: { width: WIDTH, height: WIDTH + 40, channels: 3, background: '#ffffff' } })
      .composite([{ input: frame, left: 0, top: 0 }, { input: await waveform(output('sound'), WIDTH, 40), left: 0, top: WIDTH }]));
  } finally {
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
