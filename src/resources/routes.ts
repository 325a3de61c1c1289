import type { TSchema } from '@sinclair/typebox';
import { streamSSE } from 'hono/streaming';
import type { Route, RouteParam } from '../platform/module.ts';
import { idParam, pageParams } from '../http/params.ts';
import { parsePage, type PageCursor } from '../pagination.ts';
import { ApiError, notFound } from '../errors.ts';
import type { ResourceSnapshot } from './define.ts';

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
  /** Every state a record can be in: the list's `status` filter takes one of them. */
  states: readonly string[];
}

interface ReadVerbs {
  list(userId: string, limit: number, cursor: PageCursor | null, status?: string): Promise<object>;
  snapshot(userId: string, id: string): Promise<ResourceSnapshot | undefined>;
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
  const status: RouteParam = { name: 'status', in: 'query', description: `only the ${r.many} in this state: ${r.states.join(', ')}` };
  return [
    create,
    {
      method: 'get', path: r.path, summary: `List your ${r.many}, newest first`, tag: r.tag, params: [...pageParams, status],
      ok: { status: 200, schema: r.list, description: `a page of ${r.many}` }, errors: ['BadRequestError', 'AuthorizationError'],
      handler: async (c) => {
        const query = c.req.query();
        const { limit, cursor } = parsePage(query);
        const state = query.status;
        if (state !== undefined && !r.states.includes(state)) {
          throw new ApiError('BadRequestError', `status must be one of ${r.states.join(', ')}`, { status: state, states: r.states });
        }
        return c.json(await verbs.list(c.get('user').id, limit, cursor, state));
      },
    },
    ...own.filter((route) => !underId(route)),
    {
      method: 'get', path: `${r.path}/{id}`, summary: r.getSummary ?? `Get ${a}`, tag: r.tag, params: [id],
      ok: { status: 200, schema: r.record, description: `the ${r.name} record` }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await verbs.get(c.get('user').id, c.req.param('id')!)),
    },
    {
      method: 'get', path: `${r.path}/{id}/events`, summary: `Follow ${a} as it changes (server-sent events)`, tag: r.tag, params: [id],
      ok: {
        status: 200,
        contentType: 'text/event-stream',
        description: `\`record\` events, each the ${r.name} record as GET shows it: at once and after each change; \`end\` once it will change no more, \`deleted\` if it is deleted; then the stream closes. Comment lines keep it open. A stream lasts at most ${EVENTS_MAX_MS / 60_000} minutes (follow it again); at most ${EVENTS_PER_USER} at a time per user.`,
      },
      errors: ['AuthorizationError', 'NotFoundError', 'TooManyRequestsError'],
      handler: async (c) => {
        const userId = c.get('user').id;
        const first = await verbs.snapshot(userId, c.req.param('id')!);
        if (!first) throw notFound(r.name[0]!.toUpperCase() + r.name.slice(1));
        return followRecord(c, userId, c.req.param('id')!, first, verbs);
      },
    },
    ...own.filter(underId),
    {
      method: 'delete', path: `${r.path}/{id}`, summary: `Delete ${a} and ${r.removes}`, tag: r.tag, params: [id],
      ok: { status: 200, schema: r.record, description: 'the deleted record' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await verbs.delete(c.get('user').id, c.req.param('id')!)),
    },
  ];
}

/** How often a followed record is read again; one indexed read of one row. */
export const EVENTS_POLL_MS = 250;
/** A comment line this often keeps proxies from closing a quiet stream. */
const EVENTS_HEARTBEAT_MS = 15_000;
/** A stream closes after this long; the client follows the record again. */
export const EVENTS_MAX_MS = 30 * 60_000;
/** Streams one user may hold open at a time (in this process). */
export const EVENTS_PER_USER = 20;

const following = new Map<string, number>();

/**
 * The live events of one record: it is read every EVENTS_POLL_MS from the database (so a
 * change made by any process, a worker's progress or another API process, is seen), and sent
 * when its version moved. Reading the store, not an in-process signal, is what lets this work
 * across processes unchanged.
 */
function followRecord(c: Parameters<Route['handler']>[0], userId: string, id: string, first: ResourceSnapshot, verbs: ReadVerbs): Response {
  const open = following.get(userId) ?? 0;
  if (open >= EVENTS_PER_USER) {
    throw new ApiError('TooManyRequestsError', `At most ${EVENTS_PER_USER} live event streams may be open at a time; close one (or read the record with GET)`);
  }
  following.set(userId, open + 1);
  const release = () => {
    const left = (following.get(userId) ?? 1) - 1;
    if (left > 0) following.set(userId, left);
    else following.delete(userId);
  };
  // A proxy that buffers (nginx) would hold the events back.
  c.header('x-accel-buffering', 'no');
  return streamSSE(c, async (sse) => {
    try {
      const started = performance.now();
      let last = first;
      let quietSince = performance.now();
      await sse.writeSSE({ event: 'record', data: JSON.stringify(last.view) });
      while (!sse.aborted && !last.settled && performance.now() - started < EVENTS_MAX_MS) {
        await sse.sleep(EVENTS_POLL_MS);
        if (sse.aborted) break;
        const next = await verbs.snapshot(userId, id);
        if (!next) {
          await sse.writeSSE({ event: 'deleted', data: JSON.stringify({ id }) });
          return;
        }
        if (next.version !== last.version) {
          await sse.writeSSE({ event: 'record', data: JSON.stringify(next.view) });
          quietSince = performance.now();
        } else if (performance.now() - quietSince >= EVENTS_HEARTBEAT_MS) {
          await sse.write(': still here\n\n');
          quietSince = performance.now();
        }
        last = next;
      }
      if (last.settled && !sse.aborted) await sse.writeSSE({ event: 'end', data: JSON.stringify({ id, status: (last.view as { status?: unknown }).status ?? null }) });
    } finally {
      release();
    }
  });
}
