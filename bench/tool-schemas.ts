/**
 * Input validation of hostile tool schemas (issue 17): the time `parameterValidator` takes on
 * a 1 MiB-class input for schemas that pass `checkParameters`, and the outcome (refused at
 * creation, valid, invalid with n reasons, or thrown). In one process, no HTTP.
 *
 *   node --import tsx bench/tool-schemas.ts
 *
 * Never fails on timing; prints one line per case.
 */
import { performance } from 'node:perf_hooks';
import { checkParameters, parameterValidator } from '../src/tools/exec/parameters.ts';

type Case = { name: string; schema: Record<string, unknown>; input: () => unknown };

const distinctObjects = (n: number) => Array.from({ length: n }, (_, i) => ({ k: i }));

/** `levels` definitions, each `combinator` of two references to the next: 2^levels paths to the leaf. */
function dag(levels: number, combinator: 'allOf' | 'anyOf' | 'oneOf'): Record<string, unknown> {
  const definitions: Record<string, unknown> = { [`d${levels}`]: { type: 'string' } };
  for (let i = levels - 1; i >= 0; i--) definitions[`d${i}`] = { [combinator]: [{ $ref: `#/definitions/d${i + 1}` }, { $ref: `#/definitions/d${i + 1}` }] };
  return { type: 'object', properties: { x: { $ref: '#/definitions/d0' } }, definitions };
}

function deepInput(depth: number): unknown {
  let v: unknown = {};
  for (let i = 0; i < depth; i++) v = { a: v };
  return { a: v };
}

const manyBranches = (n: number) => ({ anyOf: Array.from({ length: n }, (_, i) => ({ required: [`p${i}`] })) });

const recursive = { type: 'object', properties: { a: { $ref: '#/definitions/node' } }, definitions: { node: { type: 'object', properties: { a: { $ref: '#/definitions/node' } } } } };
const tree = { type: 'object', properties: { root: { $ref: '#/definitions/node' } }, definitions: { node: { type: 'object', properties: { v: { type: 'integer' }, left: { $ref: '#/definitions/node' }, right: { $ref: '#/definitions/node' } } } } };
const treeInput = (levels: number): unknown => {
  const node = (l: number): unknown => (l === 0 ? { v: 0 } : { v: l, left: node(l - 1), right: node(l - 1) });
  return { root: node(levels) };
};

const cases: Case[] = [
  { name: 'uniqueItems, 40,000 distinct objects', schema: { type: 'object', properties: { xs: { type: 'array', uniqueItems: true } } }, input: () => ({ xs: distinctObjects(40_000) }) },
  { name: 'uniqueItems, 80,000 distinct objects (~1 MiB)', schema: { type: 'object', properties: { xs: { type: 'array', uniqueItems: true } } }, input: () => ({ xs: distinctObjects(80_000) }) },
  { name: 'uniqueItems, 40,000 distinct objects and a copy of the first', schema: { type: 'object', properties: { xs: { type: 'array', uniqueItems: true } } }, input: () => ({ xs: [...distinctObjects(40_000), { k: 0 }] }) },
  { name: 'uniqueItems, items:{type:string}, 100,000 strings', schema: { type: 'object', properties: { xs: { type: 'array', items: { type: 'string' }, uniqueItems: true } } }, input: () => ({ xs: Array.from({ length: 100_000 }, (_, i) => `s${i}`) }) },
  { name: 'uniqueItems, 10,000 distinct arrays of 10', schema: { type: 'object', properties: { xs: { type: 'array', uniqueItems: true } } }, input: () => ({ xs: Array.from({ length: 10_000 }, (_, i) => Array.from({ length: 10 }, (_, j) => i * 10 + j)) }) },
  { name: 'allOf DAG of 2 refs, 24 levels, tiny input', schema: dag(24, 'allOf'), input: () => ({ x: 'a' }) },
  { name: 'anyOf DAG of 2 refs, 16 levels, failing tiny input', schema: dag(16, 'anyOf'), input: () => ({ x: 1 }) },
  { name: 'anyOf DAG of 2 refs, 18 levels, failing tiny input', schema: dag(18, 'anyOf'), input: () => ({ x: 1 }) },
  { name: 'anyOf DAG of 2 refs, 19 levels, failing tiny input', schema: dag(19, 'anyOf'), input: () => ({ x: 1 }) },
  { name: 'allOf DAG of 2 refs, 30 levels, tiny input', schema: dag(30, 'allOf'), input: () => ({ x: 'a' }) },
  { name: 'oneOf DAG of 2 refs, 20 levels, tiny input', schema: dag(20, 'oneOf'), input: () => ({ x: 'a' }) },
  { name: 'recursive $ref, input 100,000 levels deep', schema: recursive, input: () => deepInput(100_000) },
  { name: 'recursive $ref, input 200 levels deep', schema: recursive, input: () => deepInput(200) },
  { name: 'binary tree (left/right $ref), 65,535 nodes', schema: tree, input: () => treeInput(15) },
  { name: 'no schema recursion, input 100,000 levels deep', schema: { type: 'object' }, input: () => deepInput(100_000) },
  { name: 'items anyOf 1000 branches, 50,000 {} items (all fail)', schema: { type: 'object', properties: { xs: { type: 'array', items: manyBranches(1000) } } }, input: () => ({ xs: Array.from({ length: 50_000 }, () => ({})) }) },
  { name: 'items type string, 500,000 numbers (all fail)', schema: { type: 'object', properties: { xs: { type: 'array', items: { type: 'string' } } } }, input: () => ({ xs: new Array(500_000).fill(0) }) },
  { name: 'contains string, 500,000 numbers', schema: { type: 'object', properties: { xs: { type: 'array', contains: { type: 'string' } } } }, input: () => ({ xs: new Array(500_000).fill(0) }) },
  { name: 'dependencies 1000 keys, 30,000 properties', schema: { type: 'object', dependencies: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`p${i}`, Array.from({ length: 20 }, (_, j) => `q${j}`)])) }, input: () => Object.fromEntries(Array.from({ length: 30_000 }, (_, i) => [`p${i}`, 0])) },
  { name: 'properties 2400 names, 100,000 {} items', schema: { type: 'object', properties: { xs: { type: 'array', items: { type: 'object', properties: Object.fromEntries(Array.from({ length: 2400 }, (_, i) => [`p${i}`, { type: 'string' }])) } } } }, input: () => ({ xs: Array.from({ length: 100_000 }, () => ({})) }) },
  { name: 'enum 3000 strings, 100,000 items (the last value)', schema: { type: 'object', properties: { xs: { type: 'array', items: { enum: Array.from({ length: 3000 }, (_, i) => `v${i}`) } } } }, input: () => ({ xs: new Array(100_000).fill('v2999') }) },
  { name: 'ordinary: 7000 objects of 20 integer properties (~1 MiB)', schema: { type: 'object', properties: { rows: { type: 'array', items: { type: 'object', properties: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${i}`, { type: 'integer' }])), additionalProperties: false } } } }, input: () => ({ rows: new Array(7000).fill(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${i}`, i]))) }) },
  { name: 'patternProperties 200 patterns, 30,000 properties', schema: { type: 'object', patternProperties: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`^x${i}y`, { type: 'string' }])) }, input: () => Object.fromEntries(Array.from({ length: 30_000 }, (_, i) => [`p${i}`, 0])) },
];

for (const c of cases) {
  const created = performance.now();
  const check = checkParameters(c.schema);
  const creation = performance.now() - created;
  if (!check.ok) {
    console.log(`${c.name}: refused at creation (${check.details[0]?.message})`);
    continue;
  }
  const input = c.input();
  const bytes = (() => { try { return Buffer.byteLength(JSON.stringify(input)); } catch { return NaN; } })();
  parameterValidator(`bench\u0000${c.name}`, c.schema);
  const start = performance.now();
  let outcome: string;
  try {
    const errors = parameterValidator(`bench\u0000${c.name}`, c.schema)(input);
    outcome = errors.length === 0 ? 'valid' : `invalid (${errors.length} reasons, first: ${errors[0]!.message})`;
  } catch (err) {
    outcome = `threw ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`;
  }
  const rss = (process.memoryUsage().rss / 2 ** 20).toFixed(0);
  console.log(`[rss ${rss} MiB] ${c.name} [${(bytes / 1024).toFixed(0)} KiB]: ${(performance.now() - start).toFixed(0)} ms, ${outcome} (creation check ${creation.toFixed(0)} ms)`);
}
