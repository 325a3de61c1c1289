import { afterAll, describe, expect, it } from 'vitest';
import { TrieRouter } from 'hono/router/trie-router';
import type { Result } from 'hono/router';
import { GroupedRouter } from '../../src/http/router.ts';
import { harness } from '../helpers/harness.ts';

/** Handlers and their params of a match, in order, whatever the router's result format. */
function resolved<T>(res: Result<T>): [T, Record<string, string>][] {
  const [entries, stash] = res as [[T, Record<string, string | number>][], string[] | undefined];
  return entries.map(([h, params]) => [h, Object.fromEntries(Object.entries(params).map(([k, v]) => [k, stash ? stash[v as number]! : (v as string)]))]);
}

/** A path the pattern matches: each parameter filled in, each wildcard a segment or two. */
const sample = (pattern: string, fill: string) => pattern.replace(/:(\w+)(\{[^}]*\})?\??/g, `${fill}$1`).replace(/\*$/, 'a/b').replace(/\*/g, 'x');

describe('GroupedRouter', () => {
  const h = harness();
  afterAll(() => h.close());
  const routes = h.app.routes.map((r) => [r.method, r.path] as const);

  it('is the app router', () => {
    expect(h.app.router).toBeInstanceOf(GroupedRouter);
  });

  it("matches every path as Hono's TrieRouter does: the same handlers, in the same order, with the same params", () => {
    const grouped = new GroupedRouter<number>();
    const trie = new TrieRouter<number>();
    routes.forEach(([m, p], i) => {
      grouped.add(m, p, i);
      trie.add(m, p, i);
    });
    const paths = new Set<string>(['/', '/nope', '/nope/deeper', '/health/', '//health', '/animations/', '/clips/avatars']);
    for (const [, p] of routes) {
      paths.add(sample(p, 'x_'));
      paths.add(sample(p, 'avatars'));
      paths.add(`${sample(p, 'id%20')}/more`);
    }
    const methods = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS'];
    let matched = 0;
    // Twice: the second pass answers literal paths from the table the first one filled.
    for (let pass = 0; pass < 2; pass++) {
      for (const path of paths) {
        for (const method of methods) {
          const want = resolved(trie.match(method, path));
          expect(resolved(grouped.match(method, path)), `${method} ${path}`).toEqual(want);
          if (want.length > 1) matched++;
        }
      }
    }
    expect(matched).toBeGreaterThan(routes.length);
  });

  it('serves a literal path beside a parameter route, and the parameter route beside it', async () => {
    const u = h.user();
    const drivers = await h.call('GET', '/animations/drivers', { key: u.key });
    expect(drivers.status).toBe(200);
    expect(drivers.body.categories.length).toBeGreaterThan(0);
    const missing = await h.call('GET', '/animations/anm_missing', { key: u.key });
    expect(missing.status).toBe(404);
    expect(missing.body.kind).toBe('NotFoundError');
  });
});
