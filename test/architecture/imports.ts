/**
 * The import graph of src/ as the TypeScript parser reads it, the layer rules checked on it,
 * and the metrics of issue 19 (lines, cross-capability imports, cycles).
 *
 * `readSources` is the only part that touches the disk; `checkLayers` and `metrics` are pure
 * (files and their imports in, violations or numbers out), so the layer test runs the same
 * checker on src/ and on a temporary copy with a planted violation.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import ts from 'typescript';

/** How an import is written. */
export type ImportForm =
  | 'import' // import x from './a.ts', import { y } from './a.ts', import * as z from './a.ts'
  | 'side-effect' // import './a.ts'
  | 'export-from' // export { y } from './a.ts', export * from './a.ts'
  | 'dynamic' // import('./a.ts')
  | 'import-equals' // import x = require('./a.ts')
  | 'require' // require('./a.cjs') (in .cjs files, or through createRequire)
  | 'worker-url'; // new URL('./worker.ts', import.meta.url): a file started as a worker thread

export interface Import {
  /** As written: './kind.ts', '../clips/kind.ts', 'hono', 'node:fs'. */
  specifier: string;
  /** A file of src/ as a src/-relative path ('clips/kind.ts'), or the package as written ('hono/http-exception'). */
  target: string;
  /** True when `target` is a file of src/ (the specifier was relative and resolves under src/). */
  internal: boolean;
  form: ImportForm;
  /**
   * Erased when compiled: `import type`, `export type`. With `verbatimModuleSyntax` (our
   * tsconfig) `import { type A } from` is kept as a module load, so it is not type-only.
   */
  typeOnly: boolean;
  /** 1-based line of the import in its file. */
  line: number;
}

export interface SourceFile {
  /** src/-relative, '/'-separated: 'clips/kind.ts'. */
  path: string;
  text: string;
  imports: Import[];
  /** Every string literal and template without substitutions in the file, as its text (comments are not strings). */
  strings: string[];
}

/** Pages are Hono JSX (`.tsx`): they are source files like any other, checked by the same rules. */
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;

function sourcePaths(root: string, dir = root): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return sourcePaths(root, path);
      return SOURCE.test(name) && !name.endsWith('.d.ts') ? [relative(root, path).split('\\').join('/')] : [];
    });
}

/** Every source file under `root` (src/ or a copy of it) with its imports and string literals. */
export function readSources(root: string): SourceFile[] {
  const paths = sourcePaths(root);
  const known = new Set(paths);
  return paths.map((path) => parseSource(path, readFileSync(join(root, path), 'utf8'), known));
}

/**
 * Resolves a relative specifier of `from` to a src/-relative path. A `.js` specifier names the
 * `.ts` file beside it when only that exists (the compiled name of a TypeScript file).
 */
function resolveSpecifier(from: string, specifier: string, known: ReadonlySet<string>): string | null {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return null;
  const path = posix.normalize(posix.join(posix.dirname(from), specifier));
  if (path.startsWith('../')) return null; // outside src/ (assets/, drizzle/, examples/)
  if (!known.has(path) && path.endsWith('.js') && known.has(path.replace(/\.js$/, '.ts'))) return path.replace(/\.js$/, '.ts');
  return path;
}

/** Parses one file (no type checking) and lists its imports in every form they can take. */
export function parseSource(path: string, text: string, known: ReadonlySet<string>): SourceFile {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('.tsx') ? ts.ScriptKind.TSX : path.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);
  const imports: Import[] = [];
  const strings: string[] = [];
  const add = (node: ts.Node, specifier: string, form: ImportForm, typeOnly: boolean, mustExist = false): void => {
    const resolved = resolveSpecifier(path, specifier, known);
    if (mustExist && (resolved === null || !known.has(resolved))) return;
    imports.push({
      specifier,
      target: resolved ?? specifier,
      internal: resolved !== null,
      form,
      typeOnly,
      line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1,
    });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node, node.moduleSpecifier.text, node.importClause ? 'import' : 'side-effect', node.importClause?.isTypeOnly ?? false);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node, node.moduleSpecifier.text, 'export-from', node.isTypeOnly);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      add(node, node.moduleReference.expression.text, 'import-equals', node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.arguments.length > 0) {
      const [first] = node.arguments;
      const literal = first !== undefined && ts.isStringLiteralLike(first) ? first.text : null;
      if (literal !== null && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node, literal, 'dynamic', false);
      else if (literal !== null && ts.isIdentifier(node.expression) && node.expression.text === 'require') add(node, literal, 'require', false);
    } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'URL' && node.arguments?.length === 2) {
      // new URL('./worker.ts', import.meta.url): counted only when it names a source file of src/ (not an asset).
      const [first, second] = node.arguments;
      if (first !== undefined && ts.isStringLiteralLike(first) && second !== undefined && second.getText(sf) === 'import.meta.url') {
        add(node, first.text, 'worker-url', false, true);
      }
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      // type X = import('./a.ts').Y
      add(node, node.argument.literal.text, 'dynamic', true);
    }
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) strings.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { path, text, imports, strings };
}

// ---------------------------------------------------------------------------------------------
// Layers

/** The layer definitions (the test declares them; capabilities come from src/modules.ts). */
export interface LayerSpec {
  /** Top-level folders of src/ that are capabilities: MODULES' folders minus `infrastructure`. */
  capabilities: ReadonlySet<string>;
  /** Kind strings of the resource capabilities ('clip', 'avatar'): the kit and compute never write one. */
  kindStrings: ReadonlySet<string>;
  infrastructure: ReadonlySet<string>;
  kit: ReadonlySet<string>;
  kernel: ReadonlySet<string>;
  /** Folders of the edge (http/, cli/). */
  edgeFolders: ReadonlySet<string>;
  /** Files at the root of src/ that are the edge (main.ts, app.ts, modules.ts, ...). */
  edgeFiles: ReadonlySet<string>;
  /** Files anyone may import (config.ts, errors.ts, schemas/common.ts, ...). */
  rootUtilities: ReadonlySet<string>;
  /** The one edge file that names capabilities. */
  moduleList: string;
}

export type Layer = 'edge' | 'capability' | 'kit' | 'kernel' | 'infrastructure' | 'root-utility';

export interface Placement {
  layer: Layer;
  /** The folder the file belongs to: 'clips' for clips/kind.ts and for schemas/clips.ts; the file itself at the root. */
  owner: string;
}

/**
 * Where a file of src/ sits, or null when no layer claims it. `schemas/<folder>.ts` belongs to
 * `<folder>`: each capability's schemas are written in the shared schemas/ folder today and
 * move into the capability's own folder (issue 19 §2.2); until then they count as its files.
 */
export function placementOf(path: string, spec: LayerSpec): Placement | null {
  if (spec.rootUtilities.has(path)) return { layer: 'root-utility', owner: path };
  if (spec.edgeFiles.has(path)) return { layer: 'edge', owner: path };
  const parts = path.split('/');
  if (parts.length === 1) return null;
  let owner = parts[0]!;
  if (owner === 'schemas' && parts.length === 2) owner = parts[1]!.replace(SOURCE, '');
  if (spec.edgeFolders.has(owner)) return { layer: 'edge', owner };
  if (spec.kernel.has(owner)) return { layer: 'kernel', owner };
  if (spec.kit.has(owner)) return { layer: 'kit', owner };
  if (spec.infrastructure.has(owner)) return { layer: 'infrastructure', owner };
  if (spec.capabilities.has(owner)) return { layer: 'capability', owner };
  return null;
}

/**
 * The folders of the capability modules src/modules.ts lists: each `import { x } from
 * './<folder>/module.ts'` whose binding is an element of the `MODULES` array. Throws when the
 * file is not written that way (so a change of shape fails the test instead of emptying it).
 */
export function moduleFolders(modulesFile: SourceFile): { folder: string; binding: string }[] {
  const sf = ts.createSourceFile(modulesFile.path, modulesFile.text, ts.ScriptTarget.Latest, true);
  const byBinding = new Map<string, string>();
  let listed: string[] | null = null;
  for (const statement of sf.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const folder = /^\.\/([^/]+)\/module\.ts$/.exec(statement.moduleSpecifier.text)?.[1];
      const named = statement.importClause?.namedBindings;
      if (folder !== undefined && named && ts.isNamedImports(named)) for (const element of named.elements) byBinding.set(element.name.text, folder);
    }
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (!ts.isIdentifier(declaration.name) || declaration.name.text !== 'MODULES' || !declaration.initializer) continue;
        let init: ts.Expression = declaration.initializer;
        while (ts.isAsExpression(init) || ts.isSatisfiesExpression(init) || ts.isParenthesizedExpression(init)) init = init.expression;
        if (!ts.isArrayLiteralExpression(init)) throw new Error(`${modulesFile.path}: MODULES is not an array literal`);
        listed = init.elements.map((e) => {
          if (!ts.isIdentifier(e)) throw new Error(`${modulesFile.path}: an element of MODULES is not a name imported from ./<folder>/module.ts`);
          return e.text;
        });
      }
    }
  }
  if (listed === null) throw new Error(`${modulesFile.path}: no MODULES array`);
  return listed.map((binding) => {
    const folder = byBinding.get(binding);
    if (folder === undefined) throw new Error(`${modulesFile.path}: MODULES lists ${binding}, which is not imported from ./<folder>/module.ts`);
    return { folder, binding };
  });
}

/**
 * The kind strings of the resource capabilities: the `name` of each object literal in a
 * capability file that declares a resource kind (`{ name: 'clip', idPrefix: 'clp', ... }`,
 * the shape of `ResourceKind` in src/resources/lifecycle.ts).
 */
export function resourceKindStrings(files: readonly SourceFile[], capabilities: ReadonlySet<string>): string[] {
  const kinds = new Set<string>();
  for (const file of files) {
    if (!capabilities.has(file.path.split('/')[0]!) || !file.text.includes('idPrefix')) continue;
    const sf = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isObjectLiteralExpression(node)) {
        const props = new Map(
          node.properties.filter(ts.isPropertyAssignment).flatMap((p) => (ts.isIdentifier(p.name) ? [[p.name.text, p.initializer] as const] : [])),
        );
        const name = props.get('name');
        if (props.has('idPrefix') && name !== undefined && ts.isStringLiteralLike(name)) kinds.add(name.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return [...kinds].sort();
}

// ---------------------------------------------------------------------------------------------
// Rules

export const RULES = {
  placement: 'every file of src/ sits in one layer',
  edge: 'the edge names capabilities only in modules.ts',
  'capability-contract': "a capability imports from another capability only its contract.ts",
  kit: 'the kit (resources/, speaking/) imports no capability and writes no capability name or kind string',
  kernel: 'the kernel (platform/) imports infrastructure and root utilities only',
  infrastructure: 'infrastructure imports only infrastructure and root utilities',
  'root-utility': 'root utilities (config.ts, errors.ts, ...) import only root utilities',
  'names-no-capability': 'compute/ and platform/stores.ts write no capability name or resource kind string',
  'http-edge': 'nothing outside the HTTP edge imports src/http/ or hono',
  'store-drizzle': 'only store modules import drizzle-orm, better-sqlite3 or pg',
  'store-handle': 'only store modules touch the SQL handle (store.sqlite, store.db, store.pool)',
  llm: 'llm/ imports no capability',
} as const;

export type RuleId = keyof typeof RULES;

export interface Violation {
  rule: RuleId;
  from: string;
  /** The file or package imported, or the string literal written (in double quotes). */
  to: string;
}

/** The ratchet's key of a violation: one per file pair, whatever the number of imports between them. */
export const keyOf = (v: Pick<Violation, 'from' | 'to'>): string => `${v.from} -> ${v.to}`;

/** The HTTP edge of today's rule: the app, the server, the entry, src/http/, and each module's routes and module description. */
const isHttpEdge = (f: string): boolean =>
  /^(app|server|main|modules)\.ts$/.test(f) || f.startsWith('http/') || /(^|\/)(routes|module)\.tsx?$/.test(f) || f.includes('/routes/');
/** Store modules: the only places that speak SQL. */
const isStore = (f: string): boolean => f.startsWith('db/') || /(^|\/)store(-pg)?(\.ts$|\/)/.test(f) || /(^|\/)stores?\.ts$/.test(f) || /-store(-pg)?\.ts$/.test(f);
const isHttpPackage = (s: string): boolean => s === 'hono' || s.startsWith('hono/') || s.startsWith('@hono/');
const SQL_HANDLE = /\b(?:store|handle)\.(?:sqlite|db|pool)\b|\bsqlite\.(?:prepare|transaction|exec|pragma)\(/;

/**
 * Every violation of every rule in `files`, sorted and one per (rule, from, to). Type-only,
 * side-effect, re-export, dynamic and worker imports all count: a type import still ties a
 * layer to another's vocabulary, and a side-effect import runs its code.
 */
export function checkLayers(files: readonly SourceFile[], spec: LayerSpec): Violation[] {
  const found = new Map<string, Violation>();
  const report = (rule: RuleId, from: string, to: string): void => {
    found.set(`${rule}\u0000${from}\u0000${to}`, { rule, from, to });
  };
  const names = new Set([...spec.capabilities, ...spec.kindStrings]);

  for (const file of files) {
    const here = placementOf(file.path, spec);
    if (here === null) report('placement', file.path, '(no layer)');

    for (const imp of file.imports) {
      if (!imp.internal) {
        if (isHttpPackage(imp.target) && !isHttpEdge(file.path)) report('http-edge', file.path, imp.target);
        if (/^(drizzle-orm|better-sqlite3|pg)(\/|$)/.test(imp.target) && !isStore(file.path)) report('store-drizzle', file.path, imp.target);
        continue;
      }
      if (imp.target.startsWith('http/') && !isHttpEdge(file.path)) report('http-edge', file.path, imp.target);
      const there = placementOf(imp.target, spec);
      if (here === null || there === null) continue;
      const sameOwner = here.owner === there.owner;

      if (here.layer === 'edge' && file.path !== spec.moduleList && there.layer === 'capability') report('edge', file.path, imp.target);
      if (here.layer === 'capability' && there.layer === 'capability' && !sameOwner && posix.basename(imp.target) !== 'contract.ts') {
        report('capability-contract', file.path, imp.target);
      }
      if (here.layer === 'kit' && there.layer === 'capability') report('kit', file.path, imp.target);
      if (here.layer === 'kernel' && !['kernel', 'infrastructure', 'root-utility'].includes(there.layer)) report('kernel', file.path, imp.target);
      if (here.layer === 'infrastructure' && !['infrastructure', 'root-utility'].includes(there.layer)) report('infrastructure', file.path, imp.target);
      if (here.layer === 'root-utility' && there.layer !== 'root-utility') report('root-utility', file.path, imp.target);
      if (file.path.startsWith('llm/') && there.layer === 'capability') report('llm', file.path, imp.target);
    }

    if (here?.layer === 'kit' || file.path.startsWith('compute/') || file.path === 'platform/stores.ts') {
      const rule: RuleId = here?.layer === 'kit' ? 'kit' : 'names-no-capability';
      for (const s of file.strings) if (names.has(s)) report(rule, file.path, `"${s}"`);
    }
    if (!isStore(file.path) && SQL_HANDLE.test(file.text)) report('store-handle', file.path, '(SQL handle)');
  }
  return [...found.values()].sort((a, b) => a.rule.localeCompare(b.rule) || a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
}

/**
 * Compares one rule's violations with its lines in the ratchet: what is new (to fix, or to add
 * with a reason) and what no longer occurs (to delete, so the list only shrinks), as lines ready
 * to paste into known-violations.ts. Empty when both agree.
 */
export function ratchetReport(rule: RuleId, violations: readonly Violation[], known: readonly string[]): string {
  const actual = new Set(violations.filter((v) => v.rule === rule).map(keyOf));
  const listed = new Set(known);
  const added = [...actual].filter((k) => !listed.has(k));
  const gone = [...listed].filter((k) => !actual.has(k));
  const lines: string[] = [];
  if (added.length > 0) {
    lines.push(`${rule} (${RULES[rule]}): new violations. Fix them, or add these lines to known-violations.ts under ${rule} with a reason:`);
    lines.push(...added.map((k) => `    '${k}',`));
  }
  if (gone.length > 0) {
    lines.push(`${rule}: no longer violated. Delete these lines from known-violations.ts under ${rule}:`);
    lines.push(...gone.map((k) => `    '${k}',`));
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Metrics

export const RESOURCE_CAPABILITIES = ['animations', 'clips', 'talks', 'consents', 'avatars'] as const;

export interface Metrics {
  /** Lines of the files of each resource capability's folder. */
  resourceLines: Record<string, number>;
  resourceLinesTotal: number;
  capabilities: number;
  /** Import statements from a file of capability A to a file of capability B != A (type-only ones included). */
  crossCapabilityImports: number;
  /** Those not to a contract.ts. */
  crossCapabilityNotContract: number;
  /** 'talks -> clips': import statements. */
  crossPairs: Record<string, number>;
  /** Strongly connected components of more than one file (every import form but a worker's entry), biggest first. */
  fileCycles: string[][];
  /** The same counting only imports that stay after compiling (no `import type`). */
  runtimeFileCycles: string[][];
  /** Strongly connected components of more than one folder (a root file is its own node; schemas/clips.ts is clips). */
  folderCycles: string[][];
  runtimeFolderCycles: string[][];
}

const lineCount = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** The numbers of issue 19 §5.4, for src/ as `files` shows it. */
export function metrics(files: readonly SourceFile[], spec: LayerSpec): Metrics {
  const resourceLines = Object.fromEntries(
    RESOURCE_CAPABILITIES.map((c) => [c, files.filter((f) => f.path.startsWith(`${c}/`)).reduce((n, f) => n + lineCount(f.text), 0)]),
  );
  const crossPairs: Record<string, number> = {};
  let cross = 0;
  let notContract = 0;
  const paths = new Set(files.map((f) => f.path));
  const fileGraph = new Map<string, string[]>();
  const runtimeGraph = new Map<string, string[]>();
  const folderGraph = new Map<string, Set<string>>();
  const runtimeFolderGraph = new Map<string, Set<string>>();
  const owner = (path: string): string => placementOf(path, spec)?.owner ?? path.split('/')[0]!;

  for (const file of files) {
    // A worker thread's entry file is loaded in its own module graph: starting it is no load-order cycle.
    const internal = file.imports.filter((i) => i.internal && paths.has(i.target) && i.form !== 'worker-url');
    fileGraph.set(file.path, internal.map((i) => i.target));
    runtimeGraph.set(file.path, internal.filter((i) => !i.typeOnly).map((i) => i.target));
    const from = placementOf(file.path, spec);
    for (const imp of internal) {
      const to = placementOf(imp.target, spec);
      const a = owner(file.path);
      const b = owner(imp.target);
      if (a !== b) folderGraph.set(a, (folderGraph.get(a) ?? new Set()).add(b));
      if (a !== b && !imp.typeOnly) runtimeFolderGraph.set(a, (runtimeFolderGraph.get(a) ?? new Set()).add(b));
      if (from?.layer !== 'capability' || to?.layer !== 'capability' || a === b) continue;
      cross++;
      crossPairs[`${a} -> ${b}`] = (crossPairs[`${a} -> ${b}`] ?? 0) + 1;
      if (posix.basename(imp.target) !== 'contract.ts') notContract++;
    }
  }
  const lists = (g: Map<string, Set<string>>): Map<string, string[]> => new Map([...g].map(([k, v]) => [k, [...v]]));
  return {
    resourceLines,
    resourceLinesTotal: Object.values(resourceLines).reduce((a, b) => a + b, 0),
    capabilities: spec.capabilities.size,
    crossCapabilityImports: cross,
    crossCapabilityNotContract: notContract,
    crossPairs: Object.fromEntries(Object.entries(crossPairs).sort(([, x], [, y]) => y - x)),
    fileCycles: cycles(fileGraph),
    runtimeFileCycles: cycles(runtimeGraph),
    folderCycles: cycles(lists(folderGraph)),
    runtimeFolderCycles: cycles(lists(runtimeFolderGraph)),
  };
}

/** Strongly connected components of more than one node (Tarjan, iterative), each sorted, biggest first. */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const w = edges[frame.edge++]!;
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push({ node: w, edge: 0 });
        } else if (onStack.has(w)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(w)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== frame.node);
        if (component.length > 1) found.push(component.sort());
      }
    }
  }
  return found.sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));
}

