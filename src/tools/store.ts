import { and, desc, eq, lt, or, sql } from 'drizzle-orm';
import { prepared } from '../db/prepared.ts';
import type { Store } from '../db/client.ts';
import { tools, type ToolRow } from '../db/schema.ts';
import type { PageCursor } from '../http/pagination.ts';

export function getTool(store: Store, userId: string, id: string): ToolRow | undefined {
  return prepared(store.db, 'getTool', (db) =>
    db.select().from(tools).where(and(eq(tools.id, sql.placeholder('id')), eq(tools.userId, sql.placeholder('userId')))).prepare(),
  ).get({ id, userId });
}

export function listTools(store: Store, userId: string, limit: number, cursor: PageCursor | null): ToolRow[] {
  const after = cursor ? or(lt(tools.createdAt, cursor.createdAt), and(eq(tools.createdAt, cursor.createdAt), lt(tools.id, cursor.id))) : undefined;
  return store.db
    .select()
    .from(tools)
    .where(and(eq(tools.userId, userId), after))
    .orderBy(desc(tools.createdAt), desc(tools.id))
    .limit(limit)
    .all();
}
