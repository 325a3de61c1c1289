/**
 * Re-creates the built-in presenters' pictures, `assets/presenters/<slug>.jpg`, from their
 * originals in Debian packages (sources and licences: docs/presenters.md).
 *
 *   npx tsx scripts/presenter-images.ts [--sources DIR]
 *
 * The originals stay out of the repository. For each package the script looks for DIR/<package>
 * (a tree unpacked with `dpkg -x`); when it is missing it runs `apt-get download
 * <package>=<version>` and `dpkg -x` into DIR (default: a folder under the system's temporary
 * directory, kept for the next run). Every original is checked against the SHA-256 recorded
 * below, so a different file is never cropped silently. No root rights are needed.
 *
 * Each picture is cut to a square around the face (the box of the face mesh, measured once
 * on the original and recorded here), so that the face is about 36 % of the frame high,
 * horizontally centred, its centre at 42 % of the height; the square is kept inside the
 * original (never padded), which can make the face larger where the original is tight.
 * Then it is resized to 512x512 and written as a JPEG.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

/** A Debian binary package: name, exact version, file inside it. */
interface Origin {
  package: string;
  version: string;
  path: string;
}

interface PresenterPicture {
  slug: string;
  /** Where the original comes from; `repo` means a file already in this repository. */
  origin: Origin | { repo: string };
  sha256: string;
  /** The face mesh's bounding box on the original: [left, top, right, bottom] in pixels. */
  face: [number, number, number, number];
}

export const SIZE = 512;
const FACE_SHARE = 0.36;
const FACE_CENTRE_Y = 0.42;
const JPEG_QUALITY = 86;

export const PICTURES: PresenterPicture[] = [
  {
    slug: 'eileen',
    // Identical to skimage/data/astronaut.png of python3-skimage 0.19.3-8.
    origin: { repo: 'assets/sample-source.png' },
    sha256: '88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5',
    face: [178, 70, 271, 174],
  },
  {
    slug: 'grace',
    origin: {
      package: 'python-matplotlib-data',
      version: '3.6.3-1',
      path: 'usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg',
    },
    sha256: 'a8ca6d734765703b09728ab47fe59f473d93ae3967fc24c7c0288c3c7adb7130',
    face: [166, 131, 356, 332],
  },
  {
    slug: 'ernst',
    origin: { package: 'gramps', version: '5.1.5-1', path: 'usr/share/doc/gramps/example/gramps/E_W_Dahlgren.jpg' },
    sha256: 'c88a839c7619af83a81e0fbb9a45bb425afcef505b813d970467dc7cabf91deb',
    face: [295, 140, 470, 346],
  },
  {
    slug: 'aksel',
    origin: {
      package: 'gramps',
      version: '5.1.5-1',
      path: 'usr/share/doc/gramps/example/gramps/654px-Aksel_Andersson.jpg',
    },
    sha256: '008db50ce49674f9ecf70d45202010d3c291b1f8f50a171370f486dbe770a4c1',
    face: [193, 104, 345, 271],
  },
  {
    slug: 'mehmet',
    origin: { package: 'gramps', version: '5.1.5-1', path: 'usr/share/doc/gramps/example/gramps/Alimehemet.jpg' },
    sha256: 'c1a6f854038d0b953723f60655806815c19ad7637019cda0936ed2abc4f35af3',
    face: [173, 129, 284, 260],
  },
  {
    slug: 'charlotte',
    origin: {
      package: 'texlive-latex-extra-doc',
      version: '2022.20230122-4',
      path: 'usr/share/doc/texlive-doc/latex/komacv/examples/jeyre.jpg',
    },
    sha256: '603271763d14794cd7a3d82d9c4c6efd7c19108070e745bace19c8280a387e61',
    face: [180, 196, 511, 565],
  },
];

export interface Crop {
  left: number;
  top: number;
  size: number;
}

/** The square to cut from a `width` x `height` original around `face` (see the header). */
export function cropFor(face: [number, number, number, number], width: number, height: number): Crop {
  const [l, t, r, b] = face;
  const size = Math.min(Math.round((b - t) / FACE_SHARE), width, height);
  const clamp = (v: number, max: number) => Math.max(0, Math.min(Math.round(v), max));
  return {
    left: clamp((l + r) / 2 - size / 2, width - size),
    top: clamp((t + b) / 2 - size * FACE_CENTRE_Y, height - size),
    size,
  };
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function sourcesDir(): string {
  const i = process.argv.indexOf('--sources');
  const dir = (i > 0 ? process.argv[i + 1] : undefined) ?? join(tmpdir(), 'mimic-presenter-sources');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The unpacked tree of `origin`'s package under `dir`, downloading it when missing. */
function unpacked(dir: string, origin: Origin): string {
  const tree = join(dir, origin.package);
  if (existsSync(join(tree, origin.path))) return tree;
  const prefix = `${origin.package}_${origin.version.replace(/^\d+:/, '')}_`;
  let deb = readdirSync(dir).find((f) => f.startsWith(prefix) && f.endsWith('.deb'));
  if (!deb) {
    console.log(`downloading ${origin.package} ${origin.version}`);
    execFileSync('apt-get', ['download', `${origin.package}=${origin.version}`], { cwd: dir, stdio: 'inherit' });
    deb = readdirSync(dir).find((f) => f.startsWith(prefix) && f.endsWith('.deb'));
  }
  if (!deb) throw new Error(`apt-get download left no ${prefix}*.deb in ${dir}`);
  execFileSync('dpkg', ['-x', join(dir, deb), tree], { stdio: 'inherit' });
  return tree;
}

async function main(): Promise<void> {
  const dir = sourcesDir();
  const out = join(root, 'assets', 'presenters');
  mkdirSync(out, { recursive: true });
  for (const p of PICTURES) {
    const file = 'repo' in p.origin ? join(root, p.origin.repo) : join(unpacked(dir, p.origin), p.origin.path);
    const bytes = readFileSync(file);
    const digest = createHash('sha256').update(bytes).digest('hex');
    if (digest !== p.sha256) throw new Error(`${file}: sha256 ${digest}, expected ${p.sha256}`);
    const { width, height } = await sharp(bytes).metadata();
    if (!width || !height) throw new Error(`${file}: no size`);
    const c = cropFor(p.face, width, height);
    const target = join(out, `${p.slug}.jpg`);
    await sharp(bytes)
      .extract({ left: c.left, top: c.top, width: c.size, height: c.size })
      .resize(SIZE, SIZE, { kernel: 'lanczos3' })
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .jpeg({ quality: JPEG_QUALITY, mozjpeg: true, chromaSubsampling: '4:4:4' })
      .toFile(target);
    const faceShare = Math.round(((p.face[3] - p.face[1]) / c.size) * 100);
    console.log(`${p.slug}: ${width}x${height} crop ${c.size}px at (${c.left},${c.top}), face ${faceShare} % -> ${target}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
