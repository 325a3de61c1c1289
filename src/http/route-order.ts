import type { Route } from '../platform/module.ts';
import { patternOf } from './mount.ts';

/** A segment's rank: a literal before a parameter before a wildcard. */
const rank = (segment: string): number => (segment === '*' || segment.endsWith('*') ? 2 : segment.startsWith(':') ? 1 : 0);

/**
 * The routes in the order the router tries them: at each segment a literal before a
 * parameter (`/clips/avatars` before `/clips/:id`), otherwise as given (a stable sort). So
 * which module lists a route first never decides which route answers.
 */
export function byPathShape(routes: readonly Route[]): Route[] {
  const shapes = new Map(routes.map((r) => [r, patternOf(r).split('/').map(rank)]));
  return [...routes].sort((a, b) => {
    const x = shapes.get(a)!;
    const y = shapes.get(b)!;
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  });
}
