import { pageToken, type PageCursor } from '../pagination.ts';
import type { PresenterView } from '../schemas/clips.ts';
import type { PresenterCatalogue } from './catalogue.ts';

/** The list is not a table: its page token carries the position of the next presenter (still opaque to clients). */
const LIST_CURSOR_ID = 'presenters';

/** GET /clips/presenters: the built-ins, then the user's own, `limit` at a time. */
export async function pagePresenters(catalogue: PresenterCatalogue, userId: string, limit: number, cursor: PageCursor | null): Promise<{ presenters: PresenterView[]; token?: string }> {
  await catalogue.ensureAssets();
  const all = await catalogue.all(userId);
  const from = cursor && cursor.id === LIST_CURSOR_ID ? cursor.createdAt : 0;
  const items = all.slice(from, from + limit);
  const next = from + items.length;
  return { presenters: items.map((p) => catalogue.present(p)), ...(next < all.length ? { token: pageToken({ createdAt: next, id: LIST_CURSOR_ID }) } : {}) };
}

/** GET /clips/presenters/{id}: `{presenters: [one]}`, as the hosted service answers. */
export async function fetchPresenter(catalogue: PresenterCatalogue, userId: string, id: string): Promise<{ presenters: PresenterView[] }> {
  await catalogue.ensureAssets();
  return { presenters: [catalogue.present(await catalogue.get(userId, id))] };
}
