/**
 * A compute backend that holds a clip's render part-way, for browser tests that watch a clip
 * render: without it, "the pending video advanced while the clip was still rendering" holds
 * only when the render is slower than the player's start, which a faster machine breaks.
 *
 * Around a real backend (the local renderer, which writes the pending HLS playlist as it
 * renders): a `clip.render` with a `previewDir` renders into a private folder, and what the
 * page can see is relayed from there to the real `previewDir`: the segments, then the playlist
 * listing them, up to `segments` segments (or all but the end mark, for a render shorter than
 * that). There it stops, and the task does not answer, until `release()`: the clip stays
 * `started` with a pending playlist of `segments` segments that does not end, its progress
 * stopped there too: what a slow render looks like at that point. Released, the rest (and the
 * latest progress) is relayed and the result returned.
 * The render process itself runs on meanwhile (its IPC has no seam to pause it at): the test
 * holds what the service and the page see, not the CPU. Other kinds, and renders after
 * `release()`, pass straight through.
 */
import { copyFile, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ComputeBackend } from '../../src/compute/interface.ts';
import { BANK_FPS } from '../../src/compute/local/motion.ts';

export interface HeldRenders {
  backend: ComputeBackend;
  /** Resolves when a clip's render is held with its pending playlist relayed (the number of segments it lists). */
  held: Promise<number>;
  /** Lets held renders (and every later one) go on. */
  release(): void;
}

const PLAYLIST = 'index.m3u8';

/** The playlist's header lines and its segments (each its #EXTINF line and its file name), and whether it ends. */
function parsePlaylist(text: string): { header: string[]; segments: [string, string][]; ended: boolean } {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const header: string[] = [];
  const segments: [string, string][] = [];
  let ended = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('#EXTINF')) {
      const file = lines[i + 1];
      if (file === undefined || file.startsWith('#')) break;
      segments.push([line, file]);
      i++;
    } else if (line.startsWith('#EXT-X-ENDLIST')) ended = true;
    else if (segments.length === 0) header.push(line);
  }
  return { header, segments, ended };
}

/** Copies the segments of `from` not yet in `to` (at most `limit`), then writes `to`'s playlist listing them; answers how many it lists. */
async function relay(from: string, to: string, relayed: number, limit: number, end: boolean): Promise<number> {
  const text = await readFile(join(from, PLAYLIST), 'utf8').catch(() => null);
  if (text === null) return relayed;
  const { header, segments, ended } = parsePlaylist(text);
  const shown = segments.slice(0, limit);
  for (const [, file] of shown.slice(relayed)) await copyFile(join(from, file), join(to, file));
  if (shown.length === relayed && !end) return relayed;
  const body = [...header, ...shown.flat(), ...(end && ended && shown.length === segments.length ? ['#EXT-X-ENDLIST'] : [])].join('\n') + '\n';
  // Written whole, then renamed: the player never reads half a playlist.
  await writeFile(join(to, `${PLAYLIST}.relay`), body);
  await rename(join(to, `${PLAYLIST}.relay`), join(to, PLAYLIST));
  return shown.length;
}

export function holdClipRenders(inner: ComputeBackend, { segments }: { segments: number }): HeldRenders {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let isReleased = false;
  void released.then(() => (isReleased = true));
  let onHeld!: (n: number) => void;
  const held = new Promise<number>((resolve) => (onHeld = resolve));

  const run: ComputeBackend['run'] = async (kind, req) => {
    const previewDir = (req as { previewDir?: string }).previewDir;
    if (kind !== 'clip.render' || !previewDir || isReleased) return inner.run(kind, req);
    const privateDir = await mkdtemp(join(tmpdir(), 'mimic-held-preview-'));
    try {
      let done = false;
      // Progress too stops where the page's view stops (the local renderer cuts one-second segments of
      // a speech render's BANK_FPS frames), never going back, and catches up once released.
      const heldFrames = segments * BANK_FPS;
      let shown = 0;
      let latest: [number, number] | undefined;
      const onProgress = (framesDone: number, framesTotal: number) => {
        latest = [framesDone, framesTotal];
        shown = Math.max(shown, Math.min(framesDone, isReleased ? Infinity : heldFrames));
        req.onProgress?.(shown, framesTotal);
      };
      let failed = false;
      const rendering = inner.run(kind, { ...req, previewDir: privateDir, onProgress }).finally(() => (done = true));
      rendering.catch(() => (failed = true));
      // Relay up to `segments` segments as the render writes them (a render that ends sooner: all it wrote, without the end mark).
      let relayed = 0;
      while (relayed < segments) {
        const finished = done;
        relayed = await relay(privateDir, previewDir, relayed, segments, false);
        if (finished) break;
        await Promise.race([rendering.catch(() => {}), new Promise((r) => setTimeout(r, 50))]);
      }
      if (relayed > 0) onHeld(relayed);
      // Held, it goes on reporting where it stands, as a slow render does (the service records progress at most twice a second).
      while (!isReleased && !failed) {
        if (latest) onProgress(...latest);
        await Promise.race([released, new Promise((r) => setTimeout(r, 100))]);
      }
      const result = await rendering;
      if (latest) onProgress(...latest);
      await relay(privateDir, previewDir, relayed, Infinity, true);
      return result;
    } finally {
      await rm(privateDir, { recursive: true, force: true });
    }
  };
  return { backend: { name: `held-${inner.name}`, run, close: () => inner.close() }, held, release };
}
