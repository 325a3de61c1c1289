import type { AnyServiceKey } from './service-key.ts';

/** What ordering reads of a module: its name and the service keys it declares. */
export interface ServiceDeclarations {
  name: string;
  needs?: readonly AnyServiceKey[];
  uses?: readonly AnyServiceKey[];
  provides?: readonly AnyServiceKey[];
}

/** The service cannot be built from these modules (a missing provider, two providers, a cycle): the message says which. */
export class ModuleOrderError extends Error {
  override name = 'ModuleOrderError';
}

/**
 * The modules in the order they are created: every provider before the modules that need or
 * use its services, and otherwise the list's own order (so the order is stable). `known`
 * (e.g. every module of the service) only improves the message of a missing provider.
 */
export function orderModules<M extends ServiceDeclarations>(modules: readonly M[], known: readonly ServiceDeclarations[] = []): M[] {
  const providerOf = new Map<AnyServiceKey, number>();
  modules.forEach((m, i) => {
    for (const key of m.provides ?? []) {
      const other = providerOf.get(key);
      if (other !== undefined) throw new ModuleOrderError(`the modules "${modules[other]!.name}" and "${m.name}" both provide the service "${key.name}": list only one of them`);
      providerOf.set(key, i);
    }
  });
  // after[i]: the modules that must come after module i (they need or use what it provides).
  const after: number[][] = modules.map(() => []);
  const before: number[][] = modules.map(() => []);
  modules.forEach((m, i) => {
    for (const key of m.needs ?? []) {
      if (!providerOf.has(key)) throw new ModuleOrderError(missing(m.name, key, known));
    }
    for (const key of [...(m.needs ?? []), ...(m.uses ?? [])]) {
      const p = providerOf.get(key);
      if (p === undefined || p === i || before[i]!.includes(p)) continue;
      after[p]!.push(i);
      before[i]!.push(p);
    }
  });
  // Kahn's algorithm, always taking the earliest listed module that is ready.
  const waiting = before.map((b) => b.length);
  const done: boolean[] = modules.map(() => false);
  const order: M[] = [];
  while (order.length < modules.length) {
    const next = waiting.findIndex((w, i) => w === 0 && !done[i]);
    if (next < 0) throw new ModuleOrderError(describeCycle(modules, before, done));
    done[next] = true;
    order.push(modules[next]!);
    for (const j of after[next]!) waiting[j]!--;
  }
  return order;
}

function missing(name: string, key: AnyServiceKey, known: readonly ServiceDeclarations[]): string {
  const provider = known.find((k) => k.provides?.includes(key));
  const hint = provider ? `: add the "${provider.name}" module, which provides it` : ', and no module here provides it';
  return `the module "${name}" needs the service "${key.name}", which no listed module provides${hint}`;
}

/** One cycle among the modules not yet ordered, as `a → b → a` with the service each waits for. */
function describeCycle(modules: readonly ServiceDeclarations[], before: number[][], done: boolean[]): string {
  // Walk back from a waiting module along its unfinished providers until a module repeats.
  const path: number[] = [];
  let at = done.findIndex((d) => !d);
  while (!path.includes(at)) {
    path.push(at);
    at = before[at]!.find((p) => !done[p])!;
  }
  const cycle = path.slice(path.indexOf(at)).reverse();
  const steps = cycle.map((i, n) => {
    const consumer = modules[cycle[(n + 1) % cycle.length]!]!;
    const keys = [...(consumer.needs ?? []), ...(consumer.uses ?? [])].filter((k) => modules[i]!.provides?.includes(k));
    return `${consumer.name} waits for "${keys.map((k) => k.name).join('", "')}" from ${modules[i]!.name}`;
  });
  const names = [...cycle, cycle[0]!].map((i) => modules[i]!.name).join(' → ');
  return `the modules wait for each other's services in a cycle (${names}): ${steps.join('; ')}`;
}
