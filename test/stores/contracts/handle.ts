import { expect, it } from 'vitest';
import type { Dialect } from '../dialects.ts';

/** The fixture itself: two connections to one database see each other's writes. */
export function contract(dialect: Dialect): void {
  it('opens a migrated database that a second connection shares', async () => {
    const a = await dialect.open();
    const b = await a.reopen();
    try {
      expect(a.stores.handle).not.toBe(b.stores.handle);
    } finally {
      await b.close();
      await a.close();
    }
  });
}
