import type { PageCursor } from '../pagination.ts';
import type { AnimationDeps } from './deps.ts';
import { readAnimation } from './kind.ts';
import { presentAnimation, type AnimationView } from './present.ts';

const LABEL = 'Animation';

export async function fetchAnimation(deps: AnimationDeps, userId: string, id: string): Promise<AnimationView> {
  return presentAnimation(readAnimation(await deps.lifecycle.fetch(userId, id, LABEL)), deps.media);
}

export async function pageAnimations(deps: AnimationDeps, userId: string, limit: number, cursor: PageCursor | null) {
  const page = await deps.lifecycle.page(userId, limit, cursor);
  return { animations: page.items.map((r) => presentAnimation(readAnimation(r), deps.media)), ...(page.token ? { token: page.token } : {}) };
}

/**
 * DELETE /animations/{id}: removes the record (refunding the credit when no result was
 * produced, in the same conditional delete), cancels its job, and removes its stored media.
 * Returns the record as it was.
 */
export async function removeAnimation(deps: AnimationDeps, userId: string, id: string): Promise<AnimationView> {
  const row = await deps.lifecycle.remove(userId, id, LABEL);
  // A job that starts before this cancel finds no record and ends; one that runs is stopped at its next lease renewal.
  await deps.queue.cancelFor(id);
  await deps.media.removePrefix(userId, `animations/${id}/`);
  return presentAnimation(readAnimation(row), deps.media);
}
