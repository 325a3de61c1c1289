/**
 * The store contract suite: every file under contracts/ exports `contract(dialect)`, which
 * describes what a store must do in terms of the async interfaces alone. Each runs once
 * per dialect in DIALECTS.
 */
/// <reference types="vite/client" />
import { describe } from 'vitest';
import { DIALECTS, type Dialect } from './dialects.ts';

const contracts = import.meta.glob<{ contract: (d: Dialect) => void }>('./contracts/*.ts', { eager: true });

for (const dialect of DIALECTS) {
  describe(`stores on ${dialect.name}`, () => {
    for (const [path, mod] of Object.entries(contracts)) {
      describe(path.replace(/^.*\/|\.ts$/g, ''), () => mod.contract(dialect));
    }
  });
}
