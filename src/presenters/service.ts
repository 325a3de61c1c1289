import { ApiError } from '../errors.ts';
import { pageToken, type PageCursor } from '../pagination.ts';
import { RenamePresenter, type PresenterView } from './schemas.ts';
import { validate } from '../schemas/ajv.ts';
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

/** A built-in presenter is the service's, not the caller's: it is neither renamed nor deleted. */
function refuseBuiltIn(catalogue: PresenterCatalogue, id: string, verb: string): void {
  if (catalogue.builtIns.some((p) => p.id === id)) throw new ApiError('PermissionError', `A built-in presenter cannot be ${verb}; only your own presenters (trained avatars) can`);
}

/** PATCH /clips/presenters/{id} {name}: renames one of the caller's own presenters. */
export async function renamePresenter(catalogue: PresenterCatalogue, userId: string, id: string, raw: unknown): Promise<{ presenters: PresenterView[] }> {
  const { name } = validate(RenamePresenter, raw);
  refuseBuiltIn(catalogue, id, 'renamed');
  const renamed = await catalogue.users.rename(userId, id, name.trim().replace(/\s+/g, ' '));
  if (!renamed) throw new ApiError('NotFoundError', 'Presenter not found');
  return { presenters: [catalogue.present(renamed)] };
}

/** DELETE /clips/presenters/{id}: deletes one of the caller's own presenters, with its avatar record and media. */
export async function removePresenter(catalogue: PresenterCatalogue, userId: string, id: string): Promise<{ deleted: string }> {
  refuseBuiltIn(catalogue, id, 'deleted');
  if (!(await catalogue.users.remove(userId, id))) throw new ApiError('NotFoundError', 'Presenter not found');
  return { deleted: id };
}
