import type { TSchema } from '@sinclair/typebox';
import type { Route } from '../platform/module.ts';
import { idParam, pageParams } from '../http/params.ts';
import { parsePage, type PageCursor } from '../pagination.ts';

/** What the read routes of a resource kind say about it and call. */
interface ReadRoutes {
  path: string;
  tag: string;
  /** 'animation', 'animations'; `label` is the capitalised name. */
  name: string;
  many: string;
  record: TSchema;
  list: TSchema;
  removes: string;
  getSummary?: string;
}

interface ReadVerbs {
  list(userId: string, limit: number, cursor: PageCursor | null): Promise<object>;
  get(userId: string, id: string): Promise<object>;
  delete(userId: string, id: string): Promise<object>;
}

/**
 * A resource kind's routes in mounting order: `create`, `GET <path>` (newest first, paged),
 * the kind's own routes on literal paths (`/animations/drivers`), `GET <path>/{id}`, its own
 * routes under `{id}`, `DELETE <path>/{id}`.
 */
export function resourceRoutes(r: ReadRoutes, verbs: ReadVerbs, create: Route, own: readonly Route[]): Route[] {
  const a = `${/^[aeiou]/i.test(r.name) ? 'an' : 'a'} ${r.name}`;
  const id = idParam(`the ${r.name} id`);
  const underId = (route: Route) => route.path.includes('{');
  return [
    create,
    {
      method: 'get', path: r.path, summary: `List your ${r.many}, newest first`, tag: r.tag, params: pageParams,
      ok: { status: 200, schema: r.list, description: `a page of ${r.many}` }, errors: ['BadRequestError', 'AuthorizationError'],
      handler: async (c) => {
        const { limit, cursor } = parsePage(c.req.query());
        return c.json(await verbs.list(c.get('user').id, limit, cursor));
      },
    },
    ...own.filter((route) => !underId(route)),
    {
      method: 'get', path: `${r.path}/{id}`, summary: r.getSummary ?? `Get ${a}`, tag: r.tag, params: [id],
      ok: { status: 200, schema: r.record, description: `the ${r.name} record` }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await verbs.get(c.get('user').id, c.req.param('id')!)),
    },
    ...own.filter(underId),
    {
      method: 'delete', path: `${r.path}/{id}`, summary: `Delete ${a} and ${r.removes}`, tag: r.tag, params: [id],
      ok: { status: 200, schema: r.record, description: 'the deleted record' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await verbs.delete(c.get('user').id, c.req.param('id')!)),
    },
  ];
}
