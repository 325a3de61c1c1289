/**
 * Layers run one way: http -> domain -> store / compute / vault / egress / media, never back.
 * This reads every import of every file under src/ and fails on one that runs the wrong way.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Every import (static, dynamic, re-export) of a file: the specifier, resolved to src/-relative for relative ones. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g)].map((m) => m[1] ?? m[2]!);
  return found.map((spec) => (spec.startsWith('.') ? relative(SRC, resolve(dirname(file), spec)) : spec));
}

const files = filesUnder(SRC).map((f) => ({ file: relative(SRC, f), imports: importsOf(f) }));

/** The HTTP edge: the app, the server, the CLI entry, src/http/, and each capability's routes and module description. */
const isHttpEdge = (f: string) =>
  /^(app|server|main|modules)\.ts$/.test(f) || f.startsWith('http/') || /(^|\/)(routes|module)\.ts$/.test(f) || f.includes('/routes/');
/** Store modules: the only places that speak SQL. */
const isStore = (f: string) => f.startsWith('db/') || /(^|\/)store(\.ts$|\/)/.test(f) || /(^|\/)stores?\.ts$/.test(f) || /-store\.ts$/.test(f);
const CAPABILITIES = ['animations', 'images', 'secrets', 'tools', 'audit', 'webhooks', 'users', 'voices', 'audios', 'clips', 'talks', 'presenters', 'consents', 'avatars', 'agents', 'streams'];

function offenders(rule: (file: string, spec: string) => boolean): string[] {
  return files.flatMap(({ file, imports }) => imports.filter((spec) => rule(file, spec)).map((spec) => `${file} -> ${spec}`));
}

describe('import layers', () => {
  it('no module outside the HTTP edge imports src/http/ or hono', () => {
    expect(offenders((f, spec) => !isHttpEdge(f) && (spec.startsWith('http/') || spec === 'hono' || spec.startsWith('hono/') || spec.startsWith('@hono/')))).toEqual([]);
  });

  it('only store modules import drizzle or better-sqlite3', () => {
    expect(offenders((f, spec) => !isStore(f) && /^(drizzle-orm|better-sqlite3)(\/|$)/.test(spec))).toEqual([]);
  });

  it('only store modules touch the SQL handle (store.sqlite, store.db)', () => {
    const touching = files
      .filter(({ file }) => !isStore(file))
      .filter(({ file }) => /\b(?:store|handle)\.(?:sqlite|db)\b|\bsqlite\.(?:prepare|transaction|exec|pragma)\(/.test(readFileSync(join(SRC, file), 'utf8')))
      .map(({ file }) => file);
    expect(touching).toEqual([]);
  });

  it('compute/ imports no capability', () => {
    expect(offenders((f, spec) => f.startsWith('compute/') && CAPABILITIES.some((c) => spec.startsWith(`${c}/`)))).toEqual([]);
  });

  it('llm/ imports no capability', () => {
    expect(offenders((f, spec) => f.startsWith('llm/') && CAPABILITIES.some((c) => spec.startsWith(`${c}/`)))).toEqual([]);
  });

  it('the rule reads imports as they are written (a file that breaks it is caught)', () => {
    const sample = importsOf(join(SRC, 'app.ts'));
    expect(sample.some((s) => s.startsWith('http/'))).toBe(true);
  });
});
