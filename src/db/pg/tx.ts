import type pg from 'pg';

/**
 * Runs `fn` in one transaction on one connection of the pool: committed when it returns,
 * rolled back when it throws (the error goes on). READ COMMITTED unless asked; what must not
 * run twice is a conditional statement inside (`UPDATE ... WHERE status = ... RETURNING`),
 * never a read followed by a write.
 */
export async function withTx<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, opts: { isolation?: 'read committed' | 'repeatable read' | 'serializable' } = {}): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(opts.isolation ? `BEGIN ISOLATION LEVEL ${opts.isolation.toUpperCase()}` : 'BEGIN');
    try {
      const out = await fn(client);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  } finally {
    client.release();
  }
}

/** A named statement: prepared once per connection the first time it runs there, then only bound and executed. */
export function statement(name: string, text: string) {
  return <R extends pg.QueryResultRow = pg.QueryResultRow>(on: pg.Pool | pg.PoolClient, values: unknown[] = []) => on.query<R>({ name, text, values });
}
