import { and, eq, lt, or, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { PageCursor } from '../pagination.ts';

/**
 * The keyset condition of every newest-first list: rows strictly after `cursor` in
 * (time desc, id desc) order; undefined (no condition) for the first page.
 */
export function olderThan(time: SQLiteColumn, id: SQLiteColumn, cursor: PageCursor | null | undefined): SQL | undefined {
  return cursor ? or(lt(time, cursor.createdAt), and(eq(time, cursor.createdAt), lt(id, cursor.id))) : undefined;
}
