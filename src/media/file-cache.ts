import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Local copies of remote objects for programs that read files (ffmpeg, sharp), bounded in
 * bytes: past the bound, the least recently used copies go, except those used within the last
 * `keepMs` (a program may be about to open one). A copy is named by the object and its entity
 * tag, so a replaced object is never answered from an old copy.
 */
export interface FileCache {
  readonly dir: string;
  /** The local copy of `id` (an object and its version), downloaded with `download(to)` when missing. */
  file(id: string, extension: string, download: (to: string) => Promise<void>): Promise<string>;
}

export function createFileCache(opts: { dir: string; maxBytes: number; keepMs?: number; now?: () => number }): FileCache {
  const now = opts.now ?? Date.now;
  const keepMs = opts.keepMs ?? 10 * 60_000;
  let evicting: Promise<void> | undefined;

  async function evict(): Promise<void> {
    const files = [];
    for (const name of await readdir(opts.dir).catch(() => [] as string[])) {
      if (name.startsWith('.')) continue;
      const st = await stat(join(opts.dir, name)).catch(() => null);
      if (st?.isFile()) files.push({ name, size: st.size, usedAt: st.mtimeMs });
    }
    let total = files.reduce((n, f) => n + f.size, 0);
    for (const f of files.sort((a, b) => a.usedAt - b.usedAt)) {
      if (total <= opts.maxBytes) break;
      if (now() - f.usedAt < keepMs) continue;
      await rm(join(opts.dir, f.name), { force: true });
      total -= f.size;
    }
  }

  return {
    dir: opts.dir,
    async file(id, extension, download) {
      const name = createHash('sha256').update(id).digest('hex').slice(0, 40) + extension;
      const path = join(opts.dir, name);
      const t = new Date(now());
      if (await utimes(path, t, t).then(() => true, () => false)) return path;
      await mkdir(opts.dir, { recursive: true });
      const tmp = join(opts.dir, `.part-${randomBytes(6).toString('hex')}`);
      try {
        await download(tmp);
        await rename(tmp, path);
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
      evicting ??= evict().finally(() => (evicting = undefined));
      await evicting;
      return path;
    },
  };
}
