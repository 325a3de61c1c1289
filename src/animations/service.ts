import { notFound } from '../errors.ts';
import { byCreation, toPage, type PageCursor } from '../pagination.ts';
import { ANIMATION_COST, type AnimationDeps } from './deps.ts';
import { presentAnimation, type AnimationView } from './present.ts';
import { deleteAnimationRow, getAnimation, listAnimations, refundCredits } from './store.ts';

export function fetchAnimation(deps: AnimationDeps, userId: string, id: string): AnimationView {
  const row = getAnimation(deps.store, userId, id);
  if (!row) throw notFound('Animation');
  return presentAnimation(row, deps.media);
}

export function pageAnimations(deps: AnimationDeps, userId: string, limit: number, cursor: PageCursor | null) {
  const page = toPage(listAnimations(deps.store, userId, limit + 1, cursor), limit, byCreation);
  return { animations: page.items.map((r) => presentAnimation(r, deps.media)), ...(page.token ? { token: page.token } : {}) };
}

/**
 * DELETE /animations/{id}: cancels its job, removes the record and its stored media, and
 * refunds the credit when no result was produced. Returns the record as it was.
 */
export async function removeAnimation(deps: AnimationDeps, userId: string, id: string): Promise<AnimationView> {
  const row = getAnimation(deps.store, userId, id);
  if (!row) throw notFound('Animation');
  const view = presentAnimation(row, deps.media);
  deps.store.sqlite.transaction(() => {
    const current = getAnimation(deps.store, userId, id);
    if (!current) throw notFound('Animation');
    deps.queue.cancelFor(id);
    deleteAnimationRow(deps.store, id);
    if (current.status === 'created' || current.status === 'started') refundCredits(deps.store, userId, ANIMATION_COST);
  })();
  await deps.media.removePrefix(userId, `animations/${id}/`);
  return view;
}

