/**
 * Prints the numbers of issue 19 §5.4 for a checkout: lines in the five resource capabilities,
 * cross-capability import lines, and import cycles.
 *
 *   node --import tsx test/architecture/metrics.ts [path/to/src]
 */
import { resolve } from 'node:path';
import { metrics, readSources } from './imports.ts';
import { SRC, layerSpec } from './layers.ts';

const root = process.argv[2] ? resolve(process.argv[2]) : SRC;
const files = readSources(root);
const m = metrics(files, layerSpec(files));
const sizes = (components: string[][]): string => `${components.length} (sizes ${components.map((c) => c.length).join(', ') || '-'})`;

console.log(`src: ${root}`);
console.log(`lines in the resource capabilities: ${m.resourceLinesTotal} (${Object.entries(m.resourceLines).map(([c, n]) => `${c} ${n}`).join(', ')})`);
console.log(`capabilities (MODULES minus infrastructure): ${m.capabilities}`);
console.log(`cross-capability import lines: ${m.crossCapabilityImports}, not to a contract.ts: ${m.crossCapabilityNotContract}`);
console.log(`  by pair: ${Object.entries(m.crossPairs).map(([p, n]) => `${p} ${n}`).join('; ')}`);
console.log(`file-level import cycles (SCCs > 1 file), every import: ${sizes(m.fileCycles)}`);
console.log(`file-level import cycles, without \`import type\`: ${sizes(m.runtimeFileCycles)}`);
for (const c of m.runtimeFileCycles) console.log(`  ${c.join(' ')}`);
console.log(`folder-level import cycles (SCCs > 1 folder), every import: ${sizes(m.folderCycles)}`);
for (const c of m.folderCycles) console.log(`  ${c.join(' ')}`);
console.log(`folder-level import cycles, without \`import type\`: ${sizes(m.runtimeFolderCycles)}`);
for (const c of m.runtimeFolderCycles) console.log(`  ${c.join(' ')}`);
