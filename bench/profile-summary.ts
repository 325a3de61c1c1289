/**
 * Where a V8 CPU profile spends its time, as text: self time by function and by file or
 * package, and total (inclusive) time by function. For the .cpuprofile that
 * `node --cpu-prof` leaves (bench/http.ts and bench/tools.ts do so with BENCH_PROFILE_DIR).
 *
 *   node --import tsx bench/profile-summary.ts <file.cpuprofile> [top=25]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node --import tsx bench/profile-summary.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

/** A file's place: `pkg:<name>` for node_modules, the repo path for ours, `node:` for internals. */
function place(url: string): string {
  if (!url) return '(native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 14).split('/');
    return `pkg:${rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (url.startsWith('node:')) return url;
  const src = url.search(/\/(src|bench)\//);
  return src >= 0 ? url.slice(src + 1) : url;
}
const fnName = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${place(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

// Sample weights: the time delta that follows each sample.
const selfUs = new Map<number, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i + 1] ?? 0;
  selfUs.set(id, (selfUs.get(id) ?? 0) + dt);
  total += dt;
});
const idle = [...selfUs].filter(([id]) => ['(idle)', '(program)', '(garbage collector)'].includes(byId.get(id)!.callFrame.functionName));
const busy = total - idle.filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((s, [, v]) => s + v, 0);

const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
const selfByFn = new Map<string, number>();
const selfByPlace = new Map<string, number>();
const totalByFn = new Map<string, number>();
for (const [id, us] of selfUs) {
  const n = byId.get(id)!;
  if (n.callFrame.functionName === '(idle)') continue;
  add(selfByFn, fnName(n), us);
  add(selfByPlace, place(n.callFrame.url), us);
  // Inclusive: once per distinct function on the stack (recursion counts once).
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const name = fnName(byId.get(cur)!);
    if (!seen.has(name)) {
      seen.add(name);
      add(totalByFn, name, us);
    }
  }
}

const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
const print = (title: string, m: Map<string, number>, skip: (k: string) => boolean = () => false) => {
  console.log(`\n${title}`);
  for (const [k, us] of [...m].filter(([k]) => !skip(k)).sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(us)}  ${k}`);
};
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s not idle (percentages are of the non-idle time)`);
for (const [id, us] of idle) console.log(`  ${byId.get(id)!.callFrame.functionName}: ${(us / 1e6).toFixed(2)} s`);
print('self time by file or package', selfByPlace);
print('self time by function', selfByFn);
print('total time by function (inclusive)', totalByFn, (k) => k.startsWith('(root)') || k.startsWith('(program)'));
