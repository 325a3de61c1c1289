import type { PageCursor } from '../pagination.ts';
import type { ClipDeps } from './deps.ts';
import { readClip } from './kind.ts';
import { presentClip, type ClipView } from './present.ts';

const LABEL = 'Clip';

export async function fetchClip(deps: ClipDeps, userId: string, id: string): Promise<ClipView> {
  return presentClip(readClip(await deps.lifecycle.fetch(userId, id, LABEL)), deps.media, deps.pending);
}

export async function pageClips(deps: ClipDeps, userId: string, limit: number, cursor: PageCursor | null) {
  const page = await deps.lifecycle.page(userId, limit, cursor);
  return { clips: page.items.map((r) => presentClip(readClip(r), deps.media, deps.pending)), ...(page.token ? { token: page.token } : {}) };
}

/** DELETE /clips/{id}: removes the record (refunding an unfinished one), cancels its job, removes its media. */
export async function removeClip(deps: ClipDeps, userId: string, id: string): Promise<ClipView> {
  const row = await deps.lifecycle.remove(userId, id, LABEL);
  await deps.queue.cancelFor(id);
  await deps.media.removePrefix(userId, `clips/${id}/`);
  await deps.pending.remove(id);
  return presentClip(readClip(row), deps.media, deps.pending);
}
