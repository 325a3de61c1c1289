import { UnsupportedPathError, type Result, type Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { TrieRouter } from 'hono/router/trie-router';

/**
 * Hono's router for an API of many routes where literal and parameter segments meet
 * (`/animations/drivers` beside `/animations/{id}`, `/clips/avatars/{id}` beside
 * `/clips/{id}`). Hono's default SmartRouter tries its RegExpRouter, which refuses any such
 * pair, and falls back to one TrieRouter of every route (about 2 to 3 µs per parameter match
 * with mimic's ~290 routes, against well under 1 µs for a RegExpRouter). The answers are
 * Hono's own, only found faster:
 *
 * - a path that is some route's literal path (`/health`, `POST /animations`) is answered
 *   from a table, filled from a TrieRouter of every route on its first request: the same
 *   result every time, as RegExpRouter keeps its own static table;
 * - any other path cannot match a literal route, so only the routes with parameters or
 *   wildcards are searched, split by the path's first segment (`/animations/...`), and
 *   again by the next where a group still holds a literal beside a parameter
 *   (`/clips/avatars/...` apart from `/clips/{id}`), until each part is one RegExpRouter.
 *   A route with a parameter or wildcard at the segment that splits (`app.use` middleware
 *   included) goes into every part.
 *
 * Registration order within each router is the app's, so handlers run in the same order.
 */
export class GroupedRouter<T> implements Router<T> {
  name = 'GroupedRouter';
  #routes: Route<T>[] = [];
  #all: TrieRouter<T> | undefined;
  #literal = new Map<string, Map<string, Result<T>>>();
  #literalPaths = new Set<string>();
  #rest: Router<T> | undefined;

  add(method: string, path: string, handler: T): void {
    if (this.#rest) throw new Error('GroupedRouter: a route was added after the first request');
    this.#routes.push([method, path, handler]);
  }

  match(method: string, path: string): Result<T> {
    if (!this.#rest) this.#build();
    if (this.#literalPaths.has(path)) {
      let byPath = this.#literal.get(method);
      if (!byPath) this.#literal.set(method, (byPath = new Map()));
      let res = byPath.get(path);
      if (!res) byPath.set(path, (res = this.#all!.match(method, path)));
      return res;
    }
    return this.#rest!.match(method, path);
  }

  #build(): void {
    this.#all = new TrieRouter<T>();
    const patterned: Route<T>[] = [];
    for (const route of this.#routes) {
      this.#all.add(...route);
      if (PATTERNED.test(route[1])) patterned.push(route);
      else this.#literalPaths.add(route[1]);
    }
    this.#rest = routerOf(patterned, 0);
  }
}

type Route<T> = [method: string, path: string, handler: T];

const PATTERNED = /[:*]/;
/** Past this depth a group that RegExpRouter still refuses stays a (small) TrieRouter. */
const MAX_DEPTH = 4;

/** The segment at `depth` (0: the first) of a path, without its slashes; undefined past the end. */
function segmentAt(path: string, depth: number): string | undefined {
  let start = 1;
  for (let i = 0; i < depth; i++) {
    const slash = path.indexOf('/', start);
    if (slash < 0) return undefined;
    start = slash + 1;
  }
  const end = path.indexOf('/', start);
  return end < 0 ? path.slice(start) : path.slice(start, end);
}

/** One RegExpRouter of `routes` if it takes them all, else the routes split by their segment at `depth`. */
function routerOf<T>(routes: Route<T>[], depth: number): Router<T> {
  const regexp = new RegExpRouter<T>();
  try {
    for (const route of routes) regexp.add(...route);
    regexp.match('GET', '/'); // builds the matcher, which may refuse too
    return regexp;
  } catch (err) {
    if (!(err instanceof UnsupportedPathError)) throw err;
  }
  if (depth >= MAX_DEPTH) {
    const trie = new TrieRouter<T>();
    for (const route of routes) trie.add(...route);
    return trie;
  }
  // Where a route may match: only paths with this literal at `depth`, or any path (a
  // parameter or wildcard there, or a pattern that can span segments), or only paths that
  // end before `depth` (it has no segment there).
  const where = (path: string): string | null | undefined => {
    if (/\{|\*$/.test(path.split('/').slice(1, depth + 1).join('/')) || path === '*') return null;
    const seg = segmentAt(path, depth);
    if (seg === undefined) return undefined;
    return /[:*{]/.test(seg) ? null : seg;
  };
  const keys = new Set<string>();
  for (const [, path] of routes) {
    const key = where(path);
    if (typeof key === 'string') keys.add(key);
  }
  const groups = new Map<string, Router<T>>();
  for (const key of keys) groups.set(key, routerOf(routes.filter(([, p]) => { const k = where(p); return k === key || k === null; }), depth + 1));
  const rest = routerOf(routes.filter(([, p]) => typeof where(p) !== 'string'), depth + 1);
  return {
    name: 'GroupedRouter (segment)',
    add() {
      throw new Error('GroupedRouter: a route was added after the first request');
    },
    match(method, path) {
      const seg = segmentAt(path, depth);
      return ((seg !== undefined && groups.get(seg)) || rest).match(method, path);
    },
  };
}
