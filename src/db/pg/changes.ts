import pg from 'pg';
import type { CommitWatch } from '../commit-watch.ts';

/** The one channel every mimic process listens on; a notice's payload is `<topic>` or `<topic> <data>`. */
export const CHANGES_CHANNEL = 'mimic_changes';

/**
 * Change notices between the processes on one PostgreSQL database (LISTEN/NOTIFY). A process
 * that remembers answers (verified keys, a tool's definition, an agent) keeps a version per
 * topic; a notice from any process, or this one, moves it. While the listening connection is
 * down nothing can be heard, so every `version()` moves (nothing remembered is trusted) until
 * it is back.
 */
export interface PgChanges {
  /** A number that differs from the one returned before whenever a change on `topic` may have happened since. */
  version(topic: string): number;
  /** Tells every process (this one at once) that `topic` changed. Inside a transaction (`on` a client in BEGIN), it is sent at COMMIT and not at all on ROLLBACK. */
  announce(topic: string, data?: string, on?: pg.Pool | pg.PoolClient): Promise<void>;
  /** Calls `listener` with the data of every notice on `topic` (from every process, this one included); returns the unsubscribe. */
  on(topic: string, listener: (data: string) => void): () => void;
  /** Whether the listening connection is up. */
  listening(): boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
}

const TOPIC = /^[a-z][a-z0-9_.:-]{0,62}$/;

export function createPgChanges(opts: { url: string; pool: pg.Pool; types: pg.CustomTypesConfig; reconnectMs?: number }): PgChanges {
  const versions = new Map<string, number>();
  const listeners = new Map<string, Set<(data: string) => void>>();
  let client: pg.Client | undefined;
  let up = false;
  let stopped = false;
  let epoch = 0;
  let retry: NodeJS.Timeout | undefined;

  const bump = (topic: string) => versions.set(topic, (versions.get(topic) ?? 0) + 1);
  const deliver = (payload: string) => {
    const space = payload.indexOf(' ');
    const topic = space < 0 ? payload : payload.slice(0, space);
    const data = space < 0 ? '' : payload.slice(space + 1);
    bump(topic);
    for (const l of listeners.get(topic) ?? []) {
      try {
        l(data);
      } catch {
        // A listener's failure is its own.
      }
    }
  };

  async function connect(): Promise<void> {
    const c = new pg.Client({ connectionString: opts.url, types: opts.types, application_name: 'mimic-listen' });
    const lost = () => {
      if (client !== c) return;
      client = undefined;
      up = false;
      epoch++;
      c.end().catch(() => {});
      if (!stopped) retry = setTimeout(() => void connect().catch(() => {}), opts.reconnectMs ?? 500).unref();
    };
    c.on('error', lost);
    c.on('end', lost);
    c.on('notification', (n) => {
      if (n.channel === CHANGES_CHANNEL && n.payload) deliver(n.payload);
    });
    client = c;
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (err) {
      lost();
      throw err;
    }
    up = true;
    // What changed while nobody listened is unknown: every topic counts as changed.
    epoch++;
  }

  return {
    version(topic) {
      // Down: a fresh number every time, so nothing is answered from memory.
      if (!up) epoch++;
      return (versions.get(topic) ?? 0) * 1_000_003 + epoch;
    },
    async announce(topic, data, on) {
      if (!TOPIC.test(topic)) throw new RangeError(`bad change topic ${JSON.stringify(topic)}`);
      bump(topic);
      await (on ?? opts.pool).query({ name: 'mimic_announce', text: 'SELECT pg_notify($1, $2)', values: [CHANGES_CHANNEL, data === undefined ? topic : `${topic} ${data}`] });
    },
    on(topic, listener) {
      let set = listeners.get(topic);
      if (!set) listeners.set(topic, (set = new Set()));
      set.add(listener);
      return () => void set.delete(listener);
    },
    listening: () => up,
    async start() {
      stopped = false;
      if (!client) await connect();
    },
    async stop() {
      stopped = true;
      clearTimeout(retry);
      const c = client;
      client = undefined;
      up = false;
      await c?.end().catch(() => {});
    },
  };
}

/** A CommitWatch (src/db/commit-watch.ts) for one topic: what a PostgreSQL store hands to callers that remember its answers. */
export function pgCommitWatch(changes: PgChanges, topic: string): CommitWatch {
  return {
    version: () => changes.version(topic),
    changed: () => void changes.announce(topic).catch(() => {}),
  };
}
