import { and, desc, eq, sql } from 'drizzle-orm';
import { prepared } from '../db/prepared.ts';
import type { Store } from '../db/client.ts';
import { olderThan } from '../db/keyset.ts';
import { tools, type ToolRow } from '../db/schema.ts';
import type { PageCursor } from '../pagination.ts';

export function getTool(store: Store, userId: string, id: string): ToolRow | undefined {
  return prepared(store.db, 'getTool', (db) =>
    db.select().from(tools).where(and(eq(tools.id, sql.placeholder('id')), eq(tools.userId, sql.placeholder('userId')))).prepare(),
  ).get({ id, userId });
}

export function listTools(store: Store, userId: string, limit: number, cursor: PageCursor | null): ToolRow[] {
  return store.db
    .select()
    .from(tools)
    .where(and(eq(tools.userId, userId), olderThan(tools.createdAt, tools.id, cursor)))
    .orderBy(desc(tools.createdAt), desc(tools.id))
    .limit(limit)
    .all();
}
