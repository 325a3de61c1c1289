import type { RouteParam } from '../platform/module.ts';

/** The `{id}` path parameter of a resource route. */
export const idParam = (description: string): RouteParam => ({ name: 'id', in: 'path', description, required: true });

/** The query parameters of every paginated list. */
export const pageParams: RouteParam[] = [
  { name: 'limit', in: 'query', description: 'page size, 1 to 100 (default 20)' },
  { name: 'token', in: 'query', description: 'the token of the previous page' },
];
