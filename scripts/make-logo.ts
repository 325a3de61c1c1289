/**
 * Draws the project's default logo, `assets/logo.png`: a "mimic" mark and wordmark in white
 * on a translucent dark pill, so it reads on light and dark pictures alike. Everything is
 * drawn with shapes and stroked paths (no fonts: a server may have none installed).
 *
 *   npx tsx scripts/make-logo.ts
 */
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const WIDTH = 572, HEIGHT = 180;
/** The wordmark's x-height runs from TOP to BASE. */
const TOP = 62, BASE = 128;
const STROKE = 15;

/** Lowercase letters as stroke paths starting at `x`; returns the path and the advance. */
const letters = {
  m(x: number): [string, number] {
    const shoulder = TOP + 18;
    const arch = `a 15 18 0 0 1 30 0 V ${BASE}`;
    return [`M ${x} ${BASE} V ${shoulder} ${arch} M ${x + 30} ${shoulder} ${arch}`, 60];
  },
  i(x: number): [string, number] {
    return [`M ${x} ${BASE} V ${TOP} M ${x} ${TOP - 24} v 0`, 0];
  },
  c(x: number): [string, number] {
    const r = (BASE - TOP) / 2, cy = (TOP + BASE) / 2, cx = x + r;
    const dx = r * Math.cos(Math.PI / 4), dy = r * Math.sin(Math.PI / 4);
    return [`M ${cx + dx} ${cy - dy} A ${r} ${r} 0 1 0 ${cx + dx} ${cy + dy}`, r + dx];
  },
};

function wordmark(x: number, word: string, gap: number): string {
  const parts: string[] = [];
  for (const ch of word) {
    const [d, advance] = letters[ch as keyof typeof letters](x);
    parts.push(d);
    x += advance + gap;
  }
  return parts.join(' ');
}

export function logoSvg(): string {
  const r = 40, cy = HEIGHT / 2;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">
  <rect x="0" y="0" width="${WIDTH}" height="${HEIGHT}" rx="${HEIGHT / 2}" fill="#0b0d12" fill-opacity="0.42"/>
  <circle cx="${62 + r}" cy="${cy}" r="${r}" fill="#ffffff"/>
  <circle cx="${62 + 2.2 * r}" cy="${cy}" r="${r - 5}" fill="none" stroke="#ffffff" stroke-width="10"/>
  <path d="${wordmark(236, 'mimic', 27)}" fill="none" stroke="#ffffff" stroke-width="${STROKE}" stroke-linecap="round" stroke-linejoin="round"/>
</svg>`;
}

async function main(): Promise<void> {
  const out = fileURLToPath(new URL('../assets/logo.png', import.meta.url));
  await sharp(Buffer.from(logoSvg())).png({ compressionLevel: 9, palette: false }).toFile(out);
  const meta = await sharp(out).metadata();
  console.log(`wrote ${out}: ${meta.width}x${meta.height}, ${meta.channels} channels`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
