import { and, desc, eq, lt, or } from 'drizzle-orm';
import type { Store } from '../db/client.ts';
import { tools, type ToolRow } from '../db/schema.ts';
import type { PageCursor } from '../http/pagination.ts';

export function getTool(store: Store, userId: string, id: string): ToolRow | undefined {
  return store.db.select().from(tools).where(and(eq(tools.id, id), eq(tools.userId, userId))).get();
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
