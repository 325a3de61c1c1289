import type { MediaAccess } from '../media/index.ts';
import type { PresenterEntry, UserPresenterSource } from '../presenters/contract.ts';
import type { ResourceRow } from '../resources/store.ts';
import type { PageCursor } from '../pagination.ts';
import { readAvatar, type AvatarLifecycle } from './kind.ts';

/** Each user's trained avatars as presenters (`Platform.userPresenters`): listed, renamed and deleted with their avatar. */
export function avatarPresenters(deps: { lifecycle: AvatarLifecycle; media: Pick<MediaAccess, 'localFile'>; remove: (userId: string, avatarId: string) => Promise<unknown> }): UserPresenterSource {
  const { lifecycle, media } = deps;

  /** Every avatar of the user, oldest first (a user has few). */
  async function avatarsOf(userId: string): Promise<ResourceRow[]> {
    const rows: ResourceRow[] = [];
    let cursor: PageCursor | null = null;
    for (;;) {
      const page = await lifecycle.page(userId, 100, cursor);
      rows.push(...page.items);
      if (!page.token) break;
      cursor = { createdAt: page.items.at(-1)!.createdAt, id: page.items.at(-1)!.id };
    }
    return rows.reverse();
  }

  async function entryOf(row: ResourceRow): Promise<PresenterEntry | undefined> {
    if (row.status !== 'done') return undefined;
    const { req, details, result } = readAvatar(row);
    const imagePath = result ? await media.localFile(row.userId, result.keys.image) : null;
    if (!result || !imagePath) return undefined;
    return {
      id: details.presenterId, name: result.name, gender: req.gender, ownerId: row.userId,
      createdAt: row.finishedAt ?? row.createdAt, modifiedAt: row.modifiedAt, owner: row.userId,
      keys: { image: result.keys.image, thumbnail: result.keys.thumbnail, preview: result.keys.preview, talking: result.keys.talking },
      imagePath, voice: { type: result.voice.type, voice_id: result.voice.voiceId }, isStreamable: true,
    };
  }

  const find = async (userId: string, presenterId: string) => (await avatarsOf(userId)).find((r) => r.status === 'done' && readAvatar(r).details.presenterId === presenterId);

  return {
    async list(userId) {
      return (await Promise.all((await avatarsOf(userId)).map(entryOf))).flatMap((e) => e ?? []);
    },
    async rename(userId, presenterId, name) {
      const row = await find(userId, presenterId);
      if (!row) return undefined;
      const { result } = readAvatar(row);
      return entryOf(await lifecycle.amendResult(userId, row.id, { ...result!, name }, 'Presenter'));
    },
    async remove(userId, presenterId) {
      const row = await find(userId, presenterId);
      if (!row) return false;
      await deps.remove(userId, row.id);
      return true;
    },
  };
}
