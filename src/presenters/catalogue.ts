import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isoTime } from '../clock.ts';
import { notFound } from '../errors.ts';
import type { MediaAccess } from '../media/index.ts';
import { runFfmpeg } from '../media/ffmpeg.ts';
import type { PresenterView } from './schemas.ts';
import { BUILT_IN_PRESENTERS, SYSTEM_OWNER, type BuiltInPresenter } from './built-in.ts';
import { resolveAlias, type PresenterAlias } from './aliases.ts';

/**
 * Presenters: the built-in ones (src/presenters/built-in.ts) and, later, each user's own
 * (premium-plus avatars, the avatars issue) through `UserPresenterSource`. The built-ins'
 * pictures live in the media store under the system owner `mimic`, copied there once, so
 * every URL on a record is a signed media URL like any other.
 */

/** One presenter as the clips engine needs it. */
export interface PresenterEntry {
  id: string;
  name: string;
  gender: 'female' | 'male' | 'other';
  ownerId: string;
  createdAt: number;
  modifiedAt: number;
  /** The media owner and key of its picture, thumbnail, preview still and talking preview. */
  owner: string;
  keys: { image: string; thumbnail: string; preview: string; talking: string };
  /** A local file of the picture the renderer animates. */
  imagePath: string;
  voice: { type: string; voice_id: string };
  isStreamable: boolean;
}

/** The user's own presenters (trained premium-plus avatars, src/avatars/). */
export interface UserPresenterSource {
  list(userId: string): Promise<PresenterEntry[]>;
  /** Renames one of the user's presenters; undefined when it is not theirs. */
  rename(userId: string, presenterId: string, name: string): Promise<PresenterEntry | undefined>;
  /** Deletes one of the user's presenters (its avatar and stored media); false when it is not theirs. */
  remove(userId: string, presenterId: string): Promise<boolean>;
}
export const noUserPresenters: UserPresenterSource = { list: async () => [], rename: async () => undefined, remove: async () => false };

export const presenterKeys = (id: string, imageExt = 'png') => ({
  image: `presenters/${id}/image.${imageExt}`,
  thumbnail: `presenters/${id}/thumbnail.png`,
  preview: `presenters/${id}/preview.png`,
  talking: `presenters/${id}/talking-preview.mp4`,
});

const imageExt = (path: string): 'jpg' | 'png' => (/\.jpe?g$/i.test(path) ? 'jpg' : 'png');
const IMAGE_TYPE = { jpg: 'image/jpeg', png: 'image/png' } as const;

function builtInEntry(p: BuiltInPresenter): PresenterEntry {
  const t = Date.parse(p.createdAt);
  return {
    id: p.id, name: p.name, gender: p.gender, ownerId: SYSTEM_OWNER, createdAt: t, modifiedAt: t,
    owner: SYSTEM_OWNER, keys: presenterKeys(p.id, imageExt(p.image)), imagePath: p.image, voice: p.voice, isStreamable: true,
  };
}

export interface PresenterCatalogue {
  /** The presenters a user may use: the built-ins first, then the user's own. */
  all(userId: string): Promise<PresenterEntry[]>;
  /** One of them, or NotFoundError. */
  get(userId: string, id: string): Promise<PresenterEntry>;
  /** One of them, or undefined; a presenter alias (src/presenters/aliases.ts) gives its built-in presenter. */
  find(userId: string, id: string): Promise<PresenterEntry | undefined>;
  builtIns: readonly PresenterEntry[];
  /** The user's own presenters: renamed, deleted (a built-in one is refused: PermissionError). */
  users: UserPresenterSource;
  /** Puts the built-ins' pictures (image, thumbnail, preview) in the media store, once. */
  ensureAssets(): Promise<void>;
  present(p: PresenterEntry): PresenterView;
}

/** A still of `side` pixels on its larger side, as PNG. */
export async function scaled(src: string, side: number, dir: string, name: string): Promise<string> {
  const out = join(dir, name);
  const { code, stderr } = await runFfmpeg(['-y', '-v', 'error', '-i', src, '-vf', `scale='if(gt(iw,ih),${side},-2)':'if(gt(iw,ih),-2,${side})'`, '-frames:v', '1', out], { timeoutMs: 30_000 });
  if (code !== 0) throw new Error(`presenter still: ffmpeg failed: ${stderr.trim().split('\n').at(-1) ?? ''}`);
  return out;
}

export function createPresenterCatalogue(deps: { media: MediaAccess; users?: UserPresenterSource; aliases?: readonly PresenterAlias[] }): PresenterCatalogue {
  const builtIns = BUILT_IN_PRESENTERS.map(builtInEntry);
  const users = deps.users ?? noUserPresenters;
  let assets: Promise<void> | undefined;

  async function copyAssets(): Promise<void> {
    const { media } = deps;
    for (const p of builtIns) {
      if ((await Promise.all([p.keys.image, p.keys.thumbnail, p.keys.preview].map((key) => media.exists(p.owner, key)))).every(Boolean)) continue;
      const dir = await mkdtemp(join(tmpdir(), 'mimic-presenter-'));
      try {
        const ext = imageExt(p.imagePath);
        const image = join(dir, `image.${ext}`);
        await copyFile(p.imagePath, image);
        await media.putFile(p.owner, p.keys.image, image, IMAGE_TYPE[ext]);
        await media.putFile(p.owner, p.keys.thumbnail, await scaled(p.imagePath, 128, dir, 'thumbnail.png'), 'image/png');
        await media.putFile(p.owner, p.keys.preview, await scaled(p.imagePath, 256, dir, 'preview.png'), 'image/png');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  }

  const catalogue: PresenterCatalogue = {
    builtIns,
    users,
    async all(userId) {
      return [...builtIns, ...(await users.list(userId))];
    },
    async find(userId, id) {
      const own = builtIns.find((p) => p.id === id) ?? (await users.list(userId)).find((p) => p.id === id);
      if (own) return own;
      // Only an id that names nothing of mimic's is an alias.
      const target = resolveAlias(deps.aliases ?? [], id);
      return target === undefined ? undefined : builtIns.find((p) => p.id === target);
    },
    async get(userId, id) {
      const p = await catalogue.find(userId, id);
      if (!p) throw notFound('Presenter');
      return p;
    },
    ensureAssets() {
      // One copy per process; a failure is retried by the next call.
      assets ??= copyAssets().catch((err: unknown) => {
        assets = undefined;
        throw err;
      });
      return assets;
    },
    present(p) {
      const { media } = deps;
      return {
        presenter_id: p.id,
        name: p.name,
        gender: p.gender,
        owner_id: p.ownerId,
        created_at: isoTime(p.createdAt),
        modified_at: isoTime(p.modifiedAt),
        preview_url: media.signedUrl(p.owner, p.keys.preview),
        thumbnail_url: media.signedUrl(p.owner, p.keys.thumbnail),
        image_url: media.signedUrl(p.owner, p.keys.image),
        talking_preview_url: media.signedUrl(p.owner, p.keys.talking),
        voice: { type: p.voice.type, voice_id: p.voice.voice_id },
        is_streamable: p.isStreamable,
      };
    },
  };
  return catalogue;
}
