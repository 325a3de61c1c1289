import { copyFile, mkdir, readdir, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { createReadStream, createWriteStream, readFileSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertValidKey, assertValidOwner, isValidKey, isValidOwner } from './keys.ts';

/**
 * Where media objects live: object `key` of owner U. Two implementations of one contract
 * (test/media/store-contract.test.ts runs it on both): a local folder (below) and an S3 bucket
 * (s3-store.ts). Every call is asynchronous and streams: no whole object is held in memory.
 */
export interface MediaObject {
  size: number;
  contentType: string;
  modifiedAt: number;
  /** Changes whenever the object's bytes do (an HTTP entity tag, quotes included). */
  etag: string;
}

/** An object as a listing shows it. */
export interface ListedObject {
  owner: string;
  key: string;
  size: number;
}

/** What `put` stores: bytes, the path of a local file, or a stream. */
export type MediaSource = Buffer | string | Readable;

export interface MediaStore {
  readonly kind: 'local' | 's3';
  /** Stores bytes, a local file (copied, or moved with `{move: true}`) or a stream, whole or not at all. */
  put(owner: string, key: string, source: MediaSource, contentType: string, opts?: { move?: boolean }): Promise<MediaObject>;
  /** The object's metadata, or null when it does not exist or the key is invalid. */
  stat(owner: string, key: string): Promise<MediaObject | null>;
  exists(owner: string, key: string): Promise<boolean>;
  /** The object's bytes (`start`..`end` inclusive when given), or null when it does not exist. */
  read(owner: string, key: string, range?: { start: number; end: number }): Promise<Readable | null>;
  /**
   * A local file with the object's bytes, for programs that read files (ffmpeg, sharp), or null.
   * The local store answers its own file; the S3 store downloads (streamed) into `workDir`,
   * which the caller removes, or else into a bounded cache of recent downloads.
   */
  localFile(owner: string, key: string, workDir?: string): Promise<string | null>;
  /** True when something was removed. */
  remove(owner: string, key: string): Promise<boolean>;
  /** Removes every object under a folder prefix such as `animations/anm_1/` (whole segments only). */
  removePrefix(owner: string, prefix: string): Promise<void>;
  /** Removes everything the owner has. */
  removeOwner(owner: string): Promise<void>;
  /** Every object (of one owner when given), in no particular order. */
  list(owner?: string): AsyncIterable<ListedObject>;
}

/** The local folder's object: its metadata and its file. */
export interface LocalMediaObject extends MediaObject {
  path: string;
}

export interface LocalMediaStore extends MediaStore {
  readonly kind: 'local';
  readonly root: string;
  put(owner: string, key: string, source: MediaSource, contentType: string, opts?: { move?: boolean }): Promise<LocalMediaObject>;
  stat(owner: string, key: string): Promise<LocalMediaObject | null>;
  /** Local path of the object (which may not exist); throws on an invalid owner or key. */
  path(owner: string, key: string): string;
  /** Local path of an existing object, or null (also for invalid keys). */
  find(owner: string, key: string): string | null;
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

/** `animations/anm_1/` to `animations/anm_1`, checked as a key. */
export function folderOfPrefix(prefix: string): string {
  const folder = prefix.replace(/\/+$/, '');
  assertValidKey(folder);
  return folder;
}

const sidecarOf = (file: string): string => join(dirname(file), `.${basename(file)}.meta.json`);

/**
 * The local folder: object `key` of owner U lives at `<mediaDir>/<U>/<key>`.
 *
 * Content type: kept in a sidecar `.<name>.meta.json` next to the file (`{"contentType": ...}`);
 * when the sidecar is missing it is derived from the extension. Names starting with `.` are
 * never valid keys, so sidecars and temporary files cannot collide with objects.
 * Writes go to a temporary file in the target folder and are renamed into place, so a
 * reader never sees half an object.
 */
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

  function statSyncOf(owner: string, key: string): LocalMediaObject | null {
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
    const modifiedAt = Math.floor(st.mtimeMs);
    return { path: file, size: st.size, contentType, modifiedAt, etag: `"${st.size.toString(16)}-${modifiedAt.toString(16)}"` };
  }

  async function* walk(dir: string): AsyncGenerator<string> {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const full = join(dir, e.name);
      if (e.isDirectory()) yield* walk(full);
      else if (e.isFile()) yield full;
    }
  }

  const store: LocalMediaStore = {
    kind: 'local',
    root,
    path,
    find: (owner, key) => statSyncOf(owner, key)?.path ?? null,
    stat: async (owner, key) => statSyncOf(owner, key),
    exists: async (owner, key) => statSyncOf(owner, key) !== null,
    async read(owner, key, range) {
      const object = statSyncOf(owner, key);
      if (!object) return null;
      return createReadStream(object.path, range ?? {});
    },
    localFile: async (owner, key) => statSyncOf(owner, key)?.path ?? null,

    async put(owner, key, source, contentType, opts = {}) {
      const file = path(owner, key);
      const dir = dirname(file);
      await mkdir(dir, { recursive: true });
      const tmp = join(dir, `.tmp-${randomBytes(8).toString('hex')}`);
      try {
        if (Buffer.isBuffer(source)) await writeFile(tmp, source);
        else if (source instanceof Readable) await pipeline(source, createWriteStream(tmp));
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
      return statSyncOf(owner, key)!;
    },

    async remove(owner, key) {
      const file = path(owner, key);
      const existed = statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
      await rm(file, { force: true });
      await rm(sidecarOf(file), { force: true });
      return existed;
    },

    async removePrefix(owner, prefix) {
      const target = path(owner, folderOfPrefix(prefix));
      await rm(target, { recursive: true, force: true });
      await rm(sidecarOf(target), { force: true });
    },

    async removeOwner(owner) {
      assertValidOwner(owner);
      await rm(join(root, owner), { recursive: true, force: true });
    },

    async *list(owner) {
      if (owner !== undefined) assertValidOwner(owner);
      const owners = owner !== undefined ? [owner] : (await readdir(root, { withFileTypes: true }).catch(() => [])).filter((e) => e.isDirectory() && isValidOwner(e.name)).map((e) => e.name);
      for (const o of owners) {
        for await (const file of walk(join(root, o))) {
          const key = relative(join(root, o), file).split(sep).join('/');
          if (!isValidKey(key)) continue;
          const st = statSync(file, { throwIfNoEntry: false });
          if (st?.isFile()) yield { owner: o, key, size: st.size };
        }
      }
    },
  };
  return store;
}
