import type { TSchema } from '@sinclair/typebox';
import type { Route } from '../platform/module.ts';
import { idParam, pageParams } from './params.ts';
import { parsePage, type PageCursor } from '../pagination.ts';

/** What a resource kind's read routes call: a page of the caller's records, one, and its delete. */
export interface ResourceReads<V> {
  /** e.g. '/consents'. */
  base: string;
  /** e.g. 'consent', 'consents'. */
  one: string;
  many: string;
  tag: string;
  record: TSchema;
  list: TSchema;
  page(userId: string, limit: number, cursor: PageCursor | null): Promise<object>;
  fetch(userId: string, id: string): Promise<V>;
  remove(userId: string, id: string): Promise<V>;
  /** What the delete removes besides the record, for its summary. */
  removes: string;
}

/** `GET <base>` (newest first, paged), `GET <base>/{id}` and `DELETE <base>/{id}` of a resource kind. */
export function resourceReadRoutes<V>(r: ResourceReads<V>): { list: Route; get: Route; remove: Route } {
  const id = idParam(`the ${r.one} id`);
  return {
    list: {
      method: 'get', path: r.base, summary: `List your ${r.many}, newest first`, tag: r.tag, params: pageParams,
      ok: { status: 200, schema: r.list, description: `a page of ${r.many}` }, errors: ['BadRequestError', 'AuthorizationError'],
      handler: async (c) => {
        const { limit, cursor } = parsePage(c.req.query());
        return c.json(await r.page(c.var.user.id, limit, cursor));
      },
    },
    get: {
      method: 'get', path: `${r.base}/{id}`, summary: `Get a ${r.one}`, tag: r.tag, params: [id],
      ok: { status: 200, schema: r.record, description: `the ${r.one} record` }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await r.fetch(c.var.user.id, c.req.param('id')!)),
    },
    remove: {
      method: 'delete', path: `${r.base}/{id}`, summary: `Delete a ${r.one} and ${r.removes}`, tag: r.tag, params: [id],
      ok: { status: 200, schema: r.record, description: 'the deleted record' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await r.remove(c.var.user.id, c.req.param('id')!)),
    },
  };
}
