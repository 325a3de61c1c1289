import { readFile } from 'node:fs/promises';
import { ApiError } from '../errors.ts';
import type { MediaAccess } from '../media/index.ts';
import type { FrameFaces } from '../footage/faces.ts';
import type { ConsentLifecycle } from './kind.ts';
import type { StoredFaces } from './verify.ts';

/** What the avatars capability asks of consents (`Platform.consents`, provided by the consents module). */
export interface ConsentsForAvatars {
  /**
   * A consent an avatar named `name` may be made with: the caller's own (404 otherwise),
   * verified (`done`), uploaded within its 30 minutes, for the same name. Whether it was used
   * before is settled atomically when the avatar is created (a claim). Throws ConsentError.
   */
  usable(userId: string, consentId: string, name: string): Promise<{ language: string }>;
  /** The frames (with face descriptors) of a verified consent video; null when gone. */
  faces(userId: string, consentId: string): Promise<FrameFaces[] | null>;
}

/** Names are compared as people write them: case, accents' composition and spacing aside. */
export const sameName = (a: string, b: string): boolean => {
  const norm = (s: string) => s.normalize('NFC').trim().replace(/\s+/g, ' ').toLocaleLowerCase();
  return norm(a) === norm(b);
};

export function consentsForAvatars(lifecycle: ConsentLifecycle, media: Pick<MediaAccess, 'localFile'>): ConsentsForAvatars {
  const refuse = (description: string) => new ApiError('ConsentError', description, [{ field: 'consent_id', message: description }]);
  return {
    async usable(userId, consentId, name) {
      const c = await lifecycle.record(userId, consentId);
      if (c.row.status !== 'done') throw refuse(`The consent is ${c.row.status === 'validating' ? 'still being verified' : c.row.status === 'created' ? 'waiting for its video' : 'not verified'} (status ${c.row.status}); only a verified consent (status done) may be used`);
      if (c.details.uploadedAt === undefined || c.details.uploadedAt > c.details.expiresAt) throw refuse('The consent video was uploaded after the consent expired');
      if (!sameName(c.details.name ?? '', name)) throw refuse(`The consent was given by '${c.details.name}'; the avatar's name must be the same`);
      if (c.row.claimedBy) throw refuse(`The consent was used already (by ${c.row.claimedBy}); each consent makes one avatar`);
      return { language: c.details.language };
    },
    async faces(userId, consentId) {
      const row = await lifecycle.getById(consentId);
      if (!row || row.userId !== userId) return null;
      const key = lifecycle.read(row).details.facesKey;
      const path = key ? await media.localFile(userId, key) : null;
      if (!path) return null;
      return (JSON.parse(await readFile(path, 'utf8')) as StoredFaces).frames;
    },
  };
}
