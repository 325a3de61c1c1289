import { and, eq, lt, or, type Placeholder, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { PageCursor } from '../pagination.ts';

/** A page cursor, or placeholders for one in a statement prepared once. */
export type KeysetCursor = PageCursor | { createdAt: Placeholder; id: Placeholder };

/**
 * The keyset condition of every newest-first list: rows strictly after `cursor` in
 * (time desc, id desc) order; undefined (no condition) for the first page.
 */
export function olderThan(time: SQLiteColumn, id: SQLiteColumn, cursor: KeysetCursor | null | undefined): SQL | undefined {
  return cursor ? or(lt(time, cursor.createdAt), and(eq(time, cursor.createdAt), lt(id, cursor.id))) : undefined;
}
