import type { PageCursor } from '../pagination.ts';
import { readTalk, type TalkDeps } from './kind.ts';
import { presentTalk, type TalkView } from './present.ts';

const LABEL = 'Talk';

export async function fetchTalk(deps: TalkDeps, userId: string, id: string): Promise<TalkView> {
  return presentTalk(readTalk(await deps.lifecycle.fetch(userId, id, LABEL)), deps.media, deps.pending);
}

export async function pageTalks(deps: TalkDeps, userId: string, limit: number, cursor: PageCursor | null) {
  const page = await deps.lifecycle.page(userId, limit, cursor);
  return { talks: page.items.map((r) => presentTalk(readTalk(r), deps.media, deps.pending)), ...(page.token ? { token: page.token } : {}) };
}

/** DELETE /talks/{id}: removes the record (refunding an unfinished one), cancels its job, removes its media and pending video. */
export async function removeTalk(deps: TalkDeps, userId: string, id: string): Promise<TalkView> {
  const row = await deps.lifecycle.remove(userId, id, LABEL);
  await deps.queue.cancelFor(id);
  await deps.media.removePrefix(userId, `talks/${id}/`);
  await deps.pending.remove(id);
  return presentTalk(readTalk(row), deps.media, deps.pending);
}
