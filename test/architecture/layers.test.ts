/**
 * The layers of issue 19 §1, each a rule: the edge names capabilities only in modules.ts; a
 * capability takes from another only its contract.ts; the kit, the kernel and infrastructure
 * name no capability. Imports are read with the TypeScript parser in every form (static, type,
 * side-effect, re-export, dynamic, require, a worker's entry) and all of them count.
 *
 * src/ still breaks these rules in places: known-violations.ts lists each case, and a rule
 * fails on a case not listed there and on a listed one that is gone (the list only shrinks).
 * Each rule is proved able to fail by planting one violation in a temporary copy of src/.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODULES } from '../../src/modules.ts';
import { KNOWN_VIOLATIONS } from './known-violations.ts';
import { RULES, checkLayers, keyOf, moduleFolders, parseSource, ratchetReport, readSources, type RuleId, type Violation } from './imports.ts';
import { INFRASTRUCTURE, MODULE_LIST, SRC, layerSpec } from './layers.ts';

const files = readSources(SRC);
const spec = layerSpec(files);
const violations = checkLayers(files, spec);

describe('the layers of src/', () => {
  it('capabilities are the folders of the modules MODULES lists, minus the infrastructure folders', async () => {
    const listed = moduleFolders(files.find((f) => f.path === MODULE_LIST)!);
    expect(listed.map((m) => m.folder)).toHaveLength(MODULES.length);
    for (const [i, { folder, binding }] of listed.entries()) {
      const exported = ((await import(`../../src/${folder}/module.ts`)) as Record<string, unknown>)[binding];
      expect(exported, `MODULES[${i}] (${MODULES[i]!.name}) is ${binding} of ${folder}/module.ts`).toBe(MODULES[i]);
    }
    expect([...spec.capabilities].sort()).toEqual(listed.map((m) => m.folder).filter((f) => !INFRASTRUCTURE.includes(f)).sort());
    // The kind strings are read from the resource kinds' declarations; an empty set would make the kit's string check vacuous.
    expect([...spec.kindStrings]).toContain('clip');
  });

  for (const rule of Object.keys(RULES) as RuleId[]) {
    it(`${RULES[rule]} (known exceptions: known-violations.ts)`, () => {
      const report = ratchetReport(rule, violations, KNOWN_VIOLATIONS[rule]);
      if (report !== '') expect.fail(`\n${report}\n`);
    });
  }
});

describe('reading imports', () => {
  it('reads every form of import, and which ones are type-only', () => {
    const text = [
      "import a from './a.ts';",
      "import type { B } from '../b.ts';",
      "import { type C } from './c.ts';",
      "import './d.ts';",
      "export { e } from './e.ts';",
      "export type { F } from './f.ts';",
      "const g = await import('./g.ts');",
      "import h = require('./h.cjs');",
      "const i = require('node:fs');",
      "type J = import('./j.ts').J;",
      "new Worker(new URL('./k.ts', import.meta.url));",
      "new URL('../../assets/logo.png', import.meta.url);",
      "import hono from 'hono';",
    ].join('\n');
    const known = new Set(['x/k.ts']);
    const parsed = parseSource('x/y.ts', text, known).imports.map((i) => [i.target, i.form, i.typeOnly, i.internal]);
    expect(parsed).toEqual([
      ['x/a.ts', 'import', false, true],
      ['b.ts', 'import', true, true],
      ['x/c.ts', 'import', false, true], // kept as a module load under verbatimModuleSyntax
      ['x/d.ts', 'side-effect', false, true],
      ['x/e.ts', 'export-from', false, true],
      ['x/f.ts', 'export-from', true, true],
      ['x/g.ts', 'dynamic', false, true],
      ['x/h.cjs', 'import-equals', false, true],
      ['node:fs', 'require', false, false],
      ['x/j.ts', 'dynamic', true, true],
      ['x/k.ts', 'worker-url', false, true],
      ['hono', 'import', false, false],
    ]);
  });

  it('reads a page (.tsx) with its JSX, and every import of a page names a file of src/', () => {
    const text = ["import type { Child } from 'hono/jsx';", "import { Layout } from './layout.tsx';", 'export const P = (p: { c: Child }) => <Layout title="x">{p.c}</Layout>;'].join('\n');
    const parsed = parseSource('studio/routes/p.tsx', text, new Set(['studio/routes/layout.tsx'])).imports.map((i) => [i.target, i.internal]);
    expect(parsed).toEqual([['hono/jsx', false], ['studio/routes/layout.tsx', true]]);
    const files = readSources(SRC);
    const known = new Set(files.map((f) => f.path));
    const unresolved = files
      .filter((f) => f.path.endsWith('.tsx'))
      .flatMap((f) => f.imports.filter((i) => i.internal && !known.has(i.target)).map((i) => `${f.path} -> ${i.specifier}`));
    expect(unresolved).toEqual([]);
  });

  it('every page (.tsx) names its JSX runtime, so tsx started outside the repository (reading no tsconfig) renders it', async () => {
    const pages = readSources(SRC).filter((f) => f.path.endsWith('.tsx'));
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.filter((f) => !f.text.startsWith('/** @jsxRuntime automatic @jsxImportSource hono/jsx */')).map((f) => f.path)).toEqual([]);
    const { ErrorPage } = await import('../../src/studio/routes/error-page.tsx');
    const html = String(await ErrorPage({ status: 404, title: 'Gone', description: '<b>x</b>' }));
    expect(html).toContain('<h1>Gone</h1><p>&lt;b&gt;x&lt;/b&gt;</p>');
  });

  it('a ratchet report gives the lines to add and to delete, ready to paste', () => {
    const report = ratchetReport('kit', [{ rule: 'kit', from: 'resources/a.ts', to: 'clips/kind.ts' }], ['resources/b.ts -> talks/kind.ts']);
    expect(report).toContain("\n    'resources/a.ts -> clips/kind.ts',\n");
    expect(report).toMatch(/Delete these lines[^\n]*\n {4}'resources\/b.ts -> talks\/kind.ts',$/);
  });
});

describe('each rule fails on a violation planted in a copy of src/', () => {
  let copy = '';
  const existing = new Set(violations.map((v) => `${v.rule} ${keyOf(v)}`));
  beforeAll(() => {
    copy = mkdtempSync(join(tmpdir(), 'mimic-layers-'));
    cpSync(SRC, copy, { recursive: true });
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  /** Applies `edits` (new files, or changes to existing ones) to the copy, checks it, undoes them: the violations src/ does not have. */
  function plant(edits: Record<string, (before: string) => string>): Violation[] {
    const undo: [string, string | null][] = [];
    try {
      for (const [path, edit] of Object.entries(edits)) {
        const full = join(copy, path);
        const before = existsSync(full) ? readFileSync(full, 'utf8') : null;
        undo.push([full, before]);
        mkdirSync(dirname(full), { recursive: true });
        writeFileSync(full, edit(before ?? ''));
      }
      const planted = readSources(copy);
      return checkLayers(planted, layerSpec(planted)).filter((v) => !existing.has(`${v.rule} ${keyOf(v)}`));
    } finally {
      for (const [full, before] of undo.reverse()) {
        if (before === null) rmSync(full);
        else writeFileSync(full, before);
      }
    }
  }
  const write = (text: string) => () => `${text}\n`;
  const append = (text: string) => (before: string) => `${before}\n${text}\n`;
  const violation = (rule: RuleId, from: string, to: string): Violation => ({ rule, from, to });

  it('the unplanted copy has exactly the violations of src/', () => {
    expect(plant({})).toEqual([]);
  });

  it('placement: a folder no layer claims', () => {
    expect(plant({ '__unlisted__/widget.ts': write('export const widget = 1;') })).toEqual([violation('placement', '__unlisted__/widget.ts', '(no layer)')]);
  });

  it('edge: src/http/ importing a capability, and src/cli/ importing one for its types only', () => {
    expect(plant({ 'http/planted.ts': write("import { createClip } from '../clips/create.ts';") })).toEqual([
      violation('edge', 'http/planted.ts', 'clips/create.ts'),
    ]);
    expect(plant({ 'cli/planted.ts': write("import type { AvatarView } from '../avatars/kind.ts';") })).toEqual([
      violation('edge', 'cli/planted.ts', 'avatars/kind.ts'),
    ]);
  });

  it("capability-contract: a side-effect import of another capability's internals; its contract.ts is allowed", () => {
    expect(plant({ 'talks/planted.ts': write("import '../videos/upload.ts';") })).toEqual([
      violation('capability-contract', 'talks/planted.ts', 'videos/upload.ts'),
    ]);
    expect(plant({ 'videos/contract.ts': write('export const VIDEOS = Symbol();'), 'talks/planted.ts': write("import { VIDEOS } from '../videos/contract.ts';") })).toEqual([]);
  });

  it('capability-contract: a folder becomes a capability by being listed in modules.ts', () => {
    const gizmos = {
      '__planted__/module.ts': write("export const plantedModule = { name: '__planted__' };"),
      '__planted__/gizmo.ts': write("export { clipKind } from '../clips/kind.ts';"),
    };
    expect(plant(gizmos)).toEqual([violation('placement', '__planted__/gizmo.ts', '(no layer)'), violation('placement', '__planted__/module.ts', '(no layer)')]);
    const listed = (before: string) =>
      `import { plantedModule } from './__planted__/module.ts';\n${before.replace('export const MODULES = [', 'export const MODULES = [plantedModule, ')}`;
    expect(plant({ ...gizmos, 'modules.ts': listed })).toEqual([violation('capability-contract', '__planted__/gizmo.ts', 'clips/kind.ts')]);
  });

  it('kit: re-exporting from a capability, and writing a kind string or a capability name', () => {
    expect(plant({ 'resources/planted.ts': write("export { clipKind } from '../clips/kind.ts';") })).toEqual([
      violation('kit', 'resources/planted.ts', 'clips/kind.ts'),
    ]);
    expect(plant({ 'speaking/planted.ts': write("export const kind = 'clip';\nexport const folder = `avatars`;") })).toEqual([
      violation('kit', 'speaking/planted.ts', '"avatars"'),
      violation('kit', 'speaking/planted.ts', '"clip"'),
    ]);
  });

  it('kernel: platform.ts importing a capability (side effect, import = require)', () => {
    expect(plant({ 'platform/platform.ts': append("import '../clips/kind.ts';") })).toEqual([violation('kernel', 'platform/platform.ts', 'clips/kind.ts')]);
    expect(plant({ 'platform/planted.ts': write("import talks = require('../talks/kind.ts');") })).toEqual([
      violation('kernel', 'platform/planted.ts', 'talks/kind.ts'),
    ]);
  });

  it('infrastructure: compute importing a capability (dynamic, type-only) or the kit, footage starting a worker from one', () => {
    expect(plant({ 'compute/planted.ts': write("export const load = () => import('../videos/upload.ts');") })).toEqual([
      violation('infrastructure', 'compute/planted.ts', 'videos/upload.ts'),
    ]);
    expect(plant({ 'compute/planted.ts': write("import type { ClipView } from '../clips/kind.ts';") })).toEqual([
      violation('infrastructure', 'compute/planted.ts', 'clips/kind.ts'),
    ]);
    expect(plant({ 'compute/planted.ts': write("import { createSqliteResourceStore } from '../resources/store.ts';") })).toEqual([
      violation('infrastructure', 'compute/planted.ts', 'resources/store.ts'),
    ]);
    expect(plant({ 'footage/planted.ts': write("new Worker(new URL('../avatars/train.ts', import.meta.url));") })).toEqual([
      violation('infrastructure', 'footage/planted.ts', 'avatars/train.ts'),
    ]);
    expect(plant({ 'jobs/planted.cjs': write("require('../platform/platform.ts');") })).toEqual([
      violation('infrastructure', 'jobs/planted.cjs', 'platform/platform.ts'),
    ]);
    // Between infrastructure folders is allowed: compute may use the face analysers.
    expect(plant({ 'compute/planted.ts': write("import '../footage/faces.ts';") })).toEqual([]);
  });

  it('root-utility: errors.ts importing a capability for a type', () => {
    expect(plant({ 'errors.ts': append("import type { ClipView } from './clips/kind.ts';") })).toEqual([violation('root-utility', 'errors.ts', 'clips/kind.ts')]);
  });

  it('names-no-capability: compute writing a kind string, platform/stores.ts naming a capability', () => {
    expect(plant({ 'compute/planted.ts': write("export const owner = 'avatar';") })).toEqual([violation('names-no-capability', 'compute/planted.ts', '"avatar"')]);
    expect(plant({ 'platform/stores.ts': append("export const table = 'clips';") })).toEqual([violation('names-no-capability', 'platform/stores.ts', '"clips"')]);
  });

  it('http-edge: infrastructure importing hono for a type, a capability service importing src/http/', () => {
    expect(plant({ 'jobs/planted.ts': write("import type { Context } from 'hono';") })).toEqual([violation('http-edge', 'jobs/planted.ts', 'hono')]);
    expect(plant({ 'animations/planted.ts': write("import type { AppEnv } from '../http/env.ts';") })).toEqual([
      violation('http-edge', 'animations/planted.ts', 'http/env.ts'),
    ]);
  });

  it('store-drizzle and store-handle: a capability verb speaking SQL', () => {
    expect(plant({ 'animations/planted.ts': write("import { eq } from 'drizzle-orm';") })).toEqual([violation('store-drizzle', 'animations/planted.ts', 'drizzle-orm')]);
    expect(plant({ 'animations/planted.ts': write("export const one = (store: any) => store.sqlite.prepare('select 1');") })).toEqual([
      violation('store-handle', 'animations/planted.ts', '(SQL handle)'),
    ]);
  });

  it('llm: llm/ importing a capability (also an infrastructure violation)', () => {
    expect(plant({ 'llm/planted.ts': write("import type { AgentView } from '../agents/service.ts';") })).toEqual([
      violation('infrastructure', 'llm/planted.ts', 'agents/service.ts'),
      violation('llm', 'llm/planted.ts', 'agents/service.ts'),
    ]);
  });
});
