import { and, desc, eq, sql } from 'drizzle-orm';
import type { Store } from '../db/client.ts';
import { prepared } from '../db/prepared.ts';
import { olderThan } from '../db/keyset.ts';
import { animations, users } from '../db/schema.ts';
import type { PageCursor } from '../pagination.ts';

export type AnimationRow = typeof animations.$inferSelect;
export type NewAnimation = typeof animations.$inferInsert;

/** Reads and writes of animation rows. Transactions stay here and never await. */

export function getAnimation(store: Store, userId: string, id: string): AnimationRow | undefined {
  return prepared(store.db, 'getAnimation', (db) =>
    db.select().from(animations).where(and(eq(animations.id, sql.placeholder('id')), eq(animations.userId, sql.placeholder('userId')))).prepare(),
  ).get({ id, userId });
}

export function getAnimationById(store: Store, id: string): AnimationRow | undefined {
  return store.db.select().from(animations).where(eq(animations.id, id)).get();
}

export function listAnimations(store: Store, userId: string, limit: number, cursor: PageCursor | null): AnimationRow[] {
  return store.db
    .select()
    .from(animations)
    .where(and(eq(animations.userId, userId), olderThan(animations.createdAt, animations.id, cursor)))
    .orderBy(desc(animations.createdAt), desc(animations.id))
    .limit(limit)
    .all();
}

/** Takes `cost` credits from the user; false when the balance is short. Call inside a transaction. */
export function chargeCredits(store: Store, userId: string, cost: number): boolean {
  const res = store.db
    .update(users)
    .set({ credits: sql`${users.credits} - ${cost}` })
    .where(and(eq(users.id, userId), sql`${users.credits} >= ${cost}`))
    .run();
  return res.changes > 0;
}

export function refundCredits(store: Store, userId: string, cost: number): void {
  store.db.update(users).set({ credits: sql`${users.credits} + ${cost}` }).where(eq(users.id, userId)).run();
}

export function insertAnimation(store: Store, row: NewAnimation): void {
  store.db.insert(animations).values(row).run();
}

export function updateAnimation(store: Store, id: string, patch: Partial<NewAnimation>): void {
  store.db.update(animations).set(patch).where(eq(animations.id, id)).run();
}

export function deleteAnimationRow(store: Store, id: string): void {
  store.db.delete(animations).where(eq(animations.id, id)).run();
}
