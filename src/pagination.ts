import { ApiError } from './errors.ts';

/** Keyset pagination over (created_at, id), newest first. The token is opaque to clients. */
export interface PageCursor {
  createdAt: number;
  id: string;
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export function parsePage(query: { limit?: string; token?: string }, defaultLimit = DEFAULT_PAGE_SIZE): { limit: number; cursor: PageCursor | null } {
  let limit = defaultLimit;
  if (query.limit !== undefined) {
    const n = Number(query.limit);
    if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE_SIZE) {
      throw new ApiError('BadRequestError', `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`, [
        { field: 'limit', message: `must be an integer from 1 to ${MAX_PAGE_SIZE}` },
      ]);
    }
    limit = n;
  }
  if (query.token === undefined || query.token === '') return { limit, cursor: null };
  const m = /^(\d{1,15}):([A-Za-z0-9_]{1,80})$/.exec(Buffer.from(query.token, 'base64url').toString('utf8'));
  if (!m) throw new ApiError('BadRequestError', 'token is not a valid page token', [{ field: 'token', message: 'is not a page token of this list' }]);
  return { limit, cursor: { createdAt: Number(m[1]), id: m[2]! } };
}

export const pageToken = (c: PageCursor): string => Buffer.from(`${c.createdAt}:${c.id}`).toString('base64url');

/** The cursor of a row listed by (created_at, id). */
export const byCreation = (row: { createdAt: number; id: string }): PageCursor => ({ createdAt: row.createdAt, id: row.id });

/**
 * Cuts `limit` items from `rows` (fetched with `limit + 1`, newest first); the extra row, when
 * there, means another page follows, continued from the last item kept.
 */
export function toPage<T>(rows: T[], limit: number, cursorOf: (row: T) => PageCursor): { items: T[]; next?: PageCursor; token?: string } {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  if (rows.length <= limit || last === undefined) return { items };
  const next = cursorOf(last);
  return { items, next, token: pageToken(next) };
}
