import { copyFile, mkdir, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { readFileSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, extname, join, resolve, sep } from 'node:path';
import { assertValidKey, assertValidOwner, isValidKey, isValidOwner } from './keys.ts';

/**
 * Local media store: object `key` of owner U lives at `<mediaDir>/<U>/<key>`.
 *
 * Content type: kept in a sidecar `.<name>.meta.json` next to the file (`{"contentType": ...}`);
 * when the sidecar is missing it is derived from the extension. Names starting with `.` are
 * never valid keys, so sidecars and temporary files cannot collide with objects.
 * Writes go to a temporary file in the target folder and are renamed into place, so a
 * reader never sees half an object.
 */
export interface MediaObject {
  path: string;
  size: number;
  contentType: string;
  modifiedAt: number;
}

export interface LocalMediaStore {
  readonly root: string;
  /** Stores bytes, or a local file (copied, or moved with `{move: true}`). */
  put(owner: string, key: string, source: Buffer | string, contentType: string, opts?: { move?: boolean }): Promise<MediaObject>;
  /** Local path of the object (which may not exist); throws on an invalid owner or key. */
  path(owner: string, key: string): string;
  /** Local path of an existing object, or null (also for invalid keys). */
  find(owner: string, key: string): string | null;
  /** The object's metadata, or null when it does not exist or the key is invalid. */
  stat(owner: string, key: string): MediaObject | null;
  /** True when something was removed. */
  remove(owner: string, key: string): Promise<boolean>;
  /** Removes every object under a folder prefix such as `animations/anm_1/` (whole segments only). */
  removePrefix(owner: string, prefix: string): Promise<void>;
  /** Removes everything the owner has. */
  removeOwner(owner: string): Promise<void>;
}

const BY_EXTENSION: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.mov': 'video/quicktime',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.m4a': 'audio/mp4',
  '.json': 'application/json',
  '.txt': 'text/plain',
};

export const contentTypeOfName = (name: string): string => BY_EXTENSION[extname(name).toLowerCase()] ?? 'application/octet-stream';

const sidecarOf = (file: string): string => join(dirname(file), `.${basename(file)}.meta.json`);

export function createLocalMediaStore(mediaDir: string): LocalMediaStore {
  const root = resolve(mediaDir);

  function path(owner: string, key: string): string {
    assertValidOwner(owner);
    assertValidKey(key);
    const ownerDir = join(root, owner);
    const file = resolve(ownerDir, key);
    // The key rules already make this impossible; this is the second lock on the door.
    if (!file.startsWith(ownerDir + sep)) throw new Error('object path escapes its owner folder');
    return file;
  }

  function stat(owner: string, key: string): MediaObject | null {
    if (!isValidOwner(owner) || !isValidKey(key)) return null;
    const file = path(owner, key);
    const st = statSync(file, { throwIfNoEntry: false });
    if (!st?.isFile()) return null;
    let contentType = contentTypeOfName(file);
    try {
      const meta = JSON.parse(readFileSync(sidecarOf(file), 'utf8')) as { contentType?: unknown };
      if (typeof meta.contentType === 'string' && meta.contentType) contentType = meta.contentType;
    } catch {
      // no sidecar: the extension decides
    }
    return { path: file, size: st.size, contentType, modifiedAt: Math.floor(st.mtimeMs) };
  }

  return {
    root,
    path,
    stat,
    find: (owner, key) => stat(owner, key)?.path ?? null,

    async put(owner, key, source, contentType, opts = {}) {
      const file = path(owner, key);
      const dir = dirname(file);
      await mkdir(dir, { recursive: true });
      const tmp = join(dir, `.tmp-${randomBytes(8).toString('hex')}`);
      try {
        if (typeof source !== 'string') await writeFile(tmp, source);
        else if (opts.move) await rename(source, tmp).catch(async () => {
          await copyFile(source, tmp);
          await unlink(source);
        });
        else await copyFile(source, tmp);
        await writeFile(sidecarOf(file), JSON.stringify({ contentType }));
        await rename(tmp, file);
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
      return stat(owner, key)!;
    },

    async remove(owner, key) {
      const file = path(owner, key);
      const existed = statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
      await rm(file, { force: true });
      await rm(sidecarOf(file), { force: true });
      return existed;
    },

    async removePrefix(owner, prefix) {
      const folder = prefix.replace(/\/+$/, '');
      const target = path(owner, folder);
      await rm(target, { recursive: true, force: true });
      await rm(sidecarOf(target), { force: true });
    },

    async removeOwner(owner) {
      assertValidOwner(owner);
      await rm(join(root, owner), { recursive: true, force: true });
    },
  };
}
