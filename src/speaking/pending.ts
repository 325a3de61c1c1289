import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError } from '../errors.ts';
import type { Clock } from '../clock.ts';
import { checkSignature, expiresAt, signText } from '../url-signature.ts';

/**
 * `pending_url`: a clip (or a talk) as it renders. When its render starts, the record's pending folder,
 * `<data>/pending/<id>/`, is emptied and gets an event playlist with no segment yet (a
 * valid playlist a player keeps polling), so `pending_url` is on the record from `started`
 * on. The local backend then writes the video it encodes over it, as an HLS event playlist
 * (`index.m3u8` plus one-second segments) that grows segment by segment. The playlist is served
 * at `/<owner path>/<id>/pending/<expires>.<signature>/index.m3u8`: the signature sits in the path,
 * so the playlist's relative segment names resolve to URLs that carry it too. The record shows
 * `pending_url` while the record is `started` and its playlist exists (a remote worker writes
 * none); the files stay playable until the record is deleted.
 */
export interface PendingVideos {
  /** Whose videos these are (the route serves them under `owner.path`). */
  readonly owner: PendingOwner;
  dir(id: string): string;
  /** The signed playlist URL of a clip whose playlist exists, else null. */
  url(id: string): string | null;
  /** A file of the playlist, for the route; PermissionError or NotFoundError. */
  read(id: string, token: string, file: string): Promise<{ bytes: Buffer; contentType: string }>;
  /** Empties the clip's folder and leaves an event playlist with no segment (a render starts, or starts again). */
  reset(id: string): Promise<void>;
  remove(id: string): Promise<void>;
}

/** An HLS event playlist before its first segment: players load it and poll for more. */
export const EMPTY_EVENT_PLAYLIST = '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:EVENT\n';

const FILE = /^(?:index\.m3u8|seg\d{3,6}\.ts)$/;
const TOKEN = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

/** Whose videos: the route they are served under (`clips`), their ids' prefix (`clp`) and the record's name (`clip`). */
export interface PendingOwner {
  path: string;
  idPrefix: string;
  label: string;
}

export function createPendingVideos(deps: { dataDir: string; publicUrl: string; key: Buffer; ttlSeconds: number; clock: Clock; owner: PendingOwner }): PendingVideos {
  const { owner } = deps;
  const ID = new RegExp(`^${owner.idPrefix}_[A-Za-z0-9_]{1,80}$`);
  const text = (id: string, expires: number) => `${owner.label}-pending:${id}:${expires}`;
  const dir = (id: string) => join(deps.dataDir, 'pending', id);
  const denied = (why: string) => new ApiError('PermissionError', why);
  return {
    owner,
    dir,
    url(id) {
      if (!ID.test(id) || !existsSync(join(dir(id), 'index.m3u8'))) return null;
      const expires = expiresAt(deps.clock.now(), deps.ttlSeconds);
      return `${deps.publicUrl.replace(/\/$/, '')}/${owner.path}/${id}/pending/${expires}.${signText(deps.key, text(id, expires))}/index.m3u8`;
    },
    async read(id, token, file) {
      const m = TOKEN.exec(token);
      const check = ID.test(id) && m ? checkSignature(deps.key, (e) => text(id, e), m[1], m[2], deps.clock.now()) : 'invalid';
      if (check === 'expired') throw denied(`The pending URL has expired; fetch the ${owner.label} again for a fresh one`);
      if (check !== 'ok') throw denied('The pending URL signature is missing or invalid');
      if (!FILE.test(file)) throw new ApiError('NotFoundError', 'No such file in the pending video');
      try {
        const bytes = await readFile(join(dir(id), file));
        return { bytes, contentType: file.endsWith('.m3u8') ? 'application/vnd.apple.mpegurl' : 'video/mp2t' };
      } catch {
        throw new ApiError('NotFoundError', 'No such file in the pending video');
      }
    },
    async reset(id) {
      await rm(dir(id), { recursive: true, force: true });
      await mkdir(dir(id), { recursive: true });
      await writeFile(join(dir(id), 'index.m3u8'), EMPTY_EVENT_PLAYLIST);
    },
    remove: (id) => rm(dir(id), { recursive: true, force: true }),
  };
}
