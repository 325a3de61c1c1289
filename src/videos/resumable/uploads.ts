/**
 * Resumable video uploads (tus 1.0.0 core, creation, expiration, termination), kept on disk:
 * `<root>/<userId>/<upl_id>/{info.json, data, lock}`. README.md beside this file states the
 * invariants; the HTTP shape is in ../routes.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError } from '../../errors.ts';
import type { Clock, IdFactory } from '../../clock.ts';
import { isValidOwner } from '../../media/keys.ts';
import { storeVideoFile, type UploadedVideo, type VideoUploadDeps } from '../upload.ts';

export interface ResumableDeps {
  /** `<dataDir>/uploads` */
  root: string;
  clock: Clock;
  newId: IdFactory;
  /** How a finished upload is checked and stored: exactly as POST /videos. */
  video: Pick<VideoUploadDeps, 'media' | 'newId' | 'storageScheme'>;
  /** The largest Upload-Length (MIMIC_VIDEO_UPLOAD_MAX_BYTES, POST /videos' cap). */
  maxBytes: number;
  /** Unfinished uploads one user may have at once (MIMIC_VIDEO_UPLOADS_PER_USER). */
  perUser: number;
  /** An upload is removed this long after its creation, finished or not. */
  ttlMs: number;
}

export type UploadStatus = 'uploading' | 'finishing' | 'done' | 'failed';

/** info.json: what was declared at creation, and the outcome once the last byte came. */
interface UploadInfo {
  id: string;
  userId: string;
  length: number;
  metadata: Record<string, string>;
  createdAt: number;
  expiresAt: number;
  outcome?: { status: 'done'; video: UploadedVideo } | { status: 'failed'; error: { kind: string; description: string } };
}

/** An upload as the API shows it (GET /videos/uploads/{id}). */
export interface UploadState {
  id: string;
  status: UploadStatus;
  /** Bytes received so far: where the next PATCH starts. */
  offset: number;
  length: number;
  metadata: Record<string, string>;
  created_at: string;
  expires_at: string;
  video?: UploadedVideo;
  error?: { kind: string; description: string };
}

const ID = /^upl_[A-Za-z0-9]{1,64}$/;
/** Tells this process's lock files from a dead process's that had the same pid (pid 1 in a container). */
const PROCESS_TOKEN = randomBytes(8).toString('hex');

export type ResumableUploads = ReturnType<typeof createResumableUploads>;

export function createResumableUploads(deps: ResumableDeps) {
  /** `<userId>/<id>` of the uploads this process is writing (or deleting) now. */
  const busy = new Set<string>();
  /** Creations run one at a time per user, so two at once cannot both pass the cap. */
  const creating = new Map<string, Promise<unknown>>();

  const userDir = (userId: string) => {
    if (!isValidOwner(userId)) throw new Error('not a user id');
    return join(deps.root, userId);
  };
  const dirOf = (userId: string, id: string) => join(userDir(userId), id);
  const notFound = () => new ApiError('NotFoundError', 'Upload not found');

  async function readInfo(dir: string): Promise<UploadInfo | null> {
    try {
      return JSON.parse(await readFile(join(dir, 'info.json'), 'utf8')) as UploadInfo;
    } catch {
      return null;
    }
  }

  async function writeInfo(dir: string, info: UploadInfo): Promise<void> {
    const tmp = join(dir, `.info-${randomBytes(4).toString('hex')}`);
    await writeFile(tmp, JSON.stringify(info));
    await rename(tmp, join(dir, 'info.json'));
  }

  const sizeOf = async (dir: string): Promise<number> => (await stat(join(dir, 'data')).catch(() => null))?.size ?? 0;

  /** The caller's own upload, not expired: else 404 (another user's upload is not found either). */
  async function load(userId: string, id: string): Promise<{ dir: string; info: UploadInfo }> {
    if (!ID.test(id)) throw notFound();
    const dir = dirOf(userId, id);
    const info = await readInfo(dir);
    if (!info || info.userId !== userId) throw notFound();
    if (info.expiresAt <= deps.clock.now()) throw new ApiError('NotFoundError', `The upload ${id} expired at ${new Date(info.expiresAt).toISOString()}; start a new one`);
    return { dir, info };
  }

  async function stateOf(dir: string, info: UploadInfo): Promise<UploadState> {
    const offset = info.outcome ? info.length : await sizeOf(dir);
    const status: UploadStatus = info.outcome?.status ?? (offset === info.length ? 'finishing' : 'uploading');
    return {
      id: info.id,
      status,
      offset,
      length: info.length,
      metadata: info.metadata,
      created_at: new Date(info.createdAt).toISOString(),
      expires_at: new Date(info.expiresAt).toISOString(),
      ...(info.outcome?.status === 'done' ? { video: info.outcome.video } : {}),
      ...(info.outcome?.status === 'failed' ? { error: info.outcome.error } : {}),
    };
  }

  // -- one writer at a time: this process's set, and a lock file for other processes ----------

  async function lockIsStale(file: string): Promise<boolean> {
    let holder: { pid?: unknown; token?: unknown };
    try {
      holder = JSON.parse(await readFile(file, 'utf8')) as typeof holder;
    } catch {
      // Unreadable: a writer crashed while making it, or one is making it this instant.
      const made = await stat(file).catch(() => null);
      return !made || deps.clock.now() - made.mtimeMs > 10_000;
    }
    // Ours, but not in `busy`: left by a release that failed half-way.
    if (holder.token === PROCESS_TOKEN) return true;
    if (typeof holder.pid !== 'number' || holder.pid === process.pid) return true;
    try {
      process.kill(holder.pid, 0);
      return false;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ESRCH';
    }
  }

  /** Runs `work` as the upload's only writer; 409 when another request holds it. */
  async function exclusively<T>(userId: string, id: string, dir: string, work: () => Promise<T>): Promise<T> {
    const key = `${userId}/${id}`;
    const busyError = () => new ApiError('ConflictError', 'Another request is writing to this upload; retry when it has ended (HEAD shows the offset)');
    if (busy.has(key)) throw busyError();
    busy.add(key);
    const lock = join(dir, 'lock');
    try {
      let held = false;
      for (let attempt = 0; attempt < 2 && !held; attempt++) {
        try {
          await writeFile(lock, JSON.stringify({ pid: process.pid, token: PROCESS_TOKEN, at: deps.clock.now() }), { flag: 'wx' });
          held = true;
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'ENOENT') throw notFound(); // deleted meanwhile
          if (code !== 'EEXIST') throw err;
          if (!(await lockIsStale(lock))) throw busyError();
          await rm(lock, { force: true });
        }
      }
      if (!held) throw busyError();
      try {
        return await work();
      } finally {
        await rm(lock, { force: true });
      }
    } finally {
      busy.delete(key);
    }
  }

  // -- the verbs ------------------------------------------------------------------------------

  /** POST /videos/uploads: a new, empty upload of `length` bytes. */
  async function create(userId: string, input: { length: number; metadata: Record<string, string> }): Promise<UploadState> {
    if (input.length > deps.maxBytes) {
      throw new ApiError('PayloadTooLargeError', `The video is larger than the limit of ${deps.maxBytes} bytes`, [{ field: 'Upload-Length', message: `must be at most ${deps.maxBytes}` }]);
    }
    if (input.length === 0) throw new ApiError('BadRequestError', 'An empty file is not a video', [{ field: 'Upload-Length', message: 'must be at least 1' }]);
    const before = creating.get(userId) ?? Promise.resolve();
    const run = before.then(async () => {
      const count = await unfinished(userId);
      if (count >= deps.perUser) {
        throw new ApiError('TooManyRequestsError', `You have ${count} unfinished uploads, the most one user may have at once: finish or DELETE one first`, [
          { field: 'Upload-Length', message: `at most ${deps.perUser} unfinished uploads` },
        ]);
      }
      const now = deps.clock.now();
      const info: UploadInfo = { id: deps.newId('upl'), userId, length: input.length, metadata: input.metadata, createdAt: now, expiresAt: now + deps.ttlMs };
      const dir = dirOf(userId, info.id);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'data'), '');
      await writeInfo(dir, info);
      return stateOf(dir, info);
    });
    const settled = run.catch(() => undefined);
    creating.set(userId, settled);
    void settled.then(() => {
      if (creating.get(userId) === settled) creating.delete(userId);
    });
    return run;
  }

  /** The user's uploads that are neither finished nor expired. */
  async function unfinished(userId: string): Promise<number> {
    const names = await readdir(userDir(userId)).catch(() => [] as string[]);
    let n = 0;
    for (const name of names) {
      if (!ID.test(name)) continue;
      const info = await readInfo(dirOf(userId, name));
      if (info && !info.outcome && info.expiresAt > deps.clock.now()) n++;
    }
    return n;
  }

  /**
   * GET /videos/uploads: the user's uploads not expired, newest first, so a client that lost
   * its upload's URL (a page reloaded, a script restarted) finds it again by its metadata.
   */
  async function list(userId: string): Promise<UploadState[]> {
    const names = await readdir(userDir(userId)).catch(() => [] as string[]);
    const found: { dir: string; info: UploadInfo }[] = [];
    for (const name of names) {
      if (!ID.test(name)) continue;
      const dir = dirOf(userId, name);
      const info = await readInfo(dir);
      if (info && info.userId === userId && info.expiresAt > deps.clock.now()) found.push({ dir, info });
    }
    found.sort((a, b) => b.info.createdAt - a.info.createdAt || (a.info.id < b.info.id ? 1 : -1));
    return Promise.all(found.map(({ dir, info }) => stateOf(dir, info)));
  }

  /** GET (and HEAD) /videos/uploads/{id}. */
  async function get(userId: string, id: string): Promise<UploadState> {
    const { dir, info } = await load(userId, id);
    return stateOf(dir, info);
  }

  /**
   * PATCH /videos/uploads/{id}: appends the body at `offset` (which must be the bytes received
   * so far) as it arrives. Each chunk is on disk before the next is read, so a connection
   * that drops keeps every byte written; the offset is the data file's size, never a counter
   * that could disagree with it. The byte that completes the upload stores the video exactly
   * as POST /videos does.
   */
  async function append(userId: string, id: string, offset: number, body: ReadableStream<Uint8Array> | null, declaredLength: number | undefined): Promise<UploadState> {
    const { dir } = await load(userId, id);
    return exclusively(userId, id, dir, async () => {
      // Read again under the lock: the request that held it before may have finished the upload.
      const { info } = await load(userId, id);
      if (info.outcome) throw new ApiError('ConflictError', `The upload is finished (${info.outcome.status}): GET it for the result`);
      const start = await sizeOf(dir);
      if (offset !== start) {
        throw new ApiError('ConflictError', `Upload-Offset is ${offset}, but ${start} bytes were received: resume from ${start}`, [{ field: 'Upload-Offset', message: `must be ${start}` }]);
      }
      const room = info.length - start;
      const tooLarge = () => new ApiError('PayloadTooLargeError', `The body goes past Upload-Length (${info.length} bytes): at most ${room} more bytes`, [{ field: 'body', message: `must be at most ${room} bytes` }]);
      if (declaredLength !== undefined && declaredLength > room) throw tooLarge();
      const written = await appendBody(join(dir, 'data'), body, start, room, tooLarge);
      if (declaredLength !== undefined && written < declaredLength) throw interrupted(start + written);
      if (start + written === info.length) await finish(userId, dir, info);
      return stateOf(dir, info);
    });
  }

  /** The last byte came: check and store the video (POST /videos' code), and keep the outcome. */
  async function finish(userId: string, dir: string, info: UploadInfo): Promise<void> {
    const file = join(dir, 'data');
    try {
      info.outcome = { status: 'done', video: await storeVideoFile(deps.video, userId, file, info.length) };
    } catch (err) {
      // A file that is not a video fails for good; a fault of ours (a full disk) leaves the
      // bytes, so a PATCH of no bytes at the end offset tries again.
      if (!(err instanceof ApiError)) throw err;
      info.outcome = { status: 'failed', error: { kind: err.kind, description: err.description } };
      await writeInfo(dir, info);
      await rm(file, { force: true });
      throw err;
    }
    await writeInfo(dir, info);
    await rm(file, { force: true });
  }

  /** DELETE /videos/uploads/{id}: the upload and its bytes (a video it made stays: DELETE /videos/{id}). */
  async function remove(userId: string, id: string): Promise<{ id: string; deleted: true }> {
    const { dir } = await load(userId, id);
    await exclusively(userId, id, dir, async () => {
      // info.json first: from here on the upload is not found, whatever is left of it.
      await rm(join(dir, 'info.json'), { force: true });
    });
    await rm(dir, { recursive: true, force: true });
    return { id, deleted: true };
  }

  /** Removes every expired upload no live writer holds (the module runs it on a timer): the ids removed. */
  async function sweep(): Promise<string[]> {
    const removed: string[] = [];
    const now = deps.clock.now();
    for (const userId of await readdir(deps.root).catch(() => [] as string[])) {
      if (!isValidOwner(userId)) continue;
      for (const id of await readdir(userDir(userId)).catch(() => [] as string[])) {
        if (!ID.test(id) || busy.has(`${userId}/${id}`)) continue;
        const dir = dirOf(userId, id);
        const info = await readInfo(dir);
        // No info.json: a creation that crashed half-way, or a deletion that did: by its age.
        const expiresAt = info?.expiresAt ?? ((await stat(dir).catch(() => null))?.mtimeMs ?? 0) + deps.ttlMs;
        if (expiresAt > now) continue;
        const lock = join(dir, 'lock');
        if ((await stat(lock).catch(() => null)) && !(await lockIsStale(lock))) continue;
        await rm(dir, { recursive: true, force: true });
        removed.push(id);
      }
      await rmdir(userDir(userId)).catch(() => undefined); // only when empty
    }
    return removed;
  }

  return { create, list, get, append, remove, sweep };
}

const interrupted = (offset: number) => new ApiError('BadRequestError', `The upload was interrupted at byte ${offset}; HEAD the upload for its offset and resume from there`);

/**
 * Appends `body` to `file` chunk by chunk, each written before the next is read: at most
 * `room` bytes, else the file is cut back to `start` (the whole PATCH is refused) and
 * `tooLarge()` thrown. A body that breaks off keeps what was written. Answers the bytes appended.
 */
async function appendBody(file: string, body: ReadableStream<Uint8Array> | null, start: number, room: number, tooLarge: () => Error): Promise<number> {
  if (!body) return 0;
  const handle = await open(file, 'a');
  const reader = body.getReader();
  let written = 0;
  try {
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch {
        throw interrupted(start + written);
      }
      if (next.done) return written;
      if (written + next.value.length > room) {
        // The rest of the body is left unread: the error's answer closes the connection (src/http/errors.ts).
        await handle.truncate(start);
        throw tooLarge();
      }
      await handle.write(next.value);
      written += next.value.length;
    }
  } finally {
    await handle.close();
  }
}
