import { expect, it } from 'vitest';
import type { Dialect } from '../dialects.ts';
import type { NewLiveStream } from '../../../src/streams/store.ts';
import { withDatabase } from '../seed.ts';
import type { OpenStores } from '../dialects.ts';

const stream = (userId: string, id: string, owner: string, over: Partial<NewLiveStream> = {}): NewLiveStream => ({
  id, userId, kind: 'talks', agentId: null, sessionHash: `hash_${id}`, holder: `user:${userId}`, clientKeyId: null, ownerProcessId: owner, ownerUrl: `http://127.0.0.1:1/${owner}`, ...over,
});

/** The owner of the streams, written with SQL: this store must not wait for the users store's port. */
async function seedUser({ rows }: OpenStores, id: string): Promise<string> {
  await rows('INSERT INTO users (id, name, credits, permissions, created_at) VALUES ($1, $2, 0, $3, 0)', [id, id, '[]']);
  return id;
}

/** Live streams' records across processes: what every dialect's LiveStreamStore must do. */
export function contract(dialect: Dialect): void {
  it('records a stream with its owner, renews only its own open streams, and ends each once with the first reason', async () => {
    await withDatabase(dialect, async (db) => {
      const { stores, rows } = db;
      const u = await seedUser(db, 'usr_a');
      await stores.liveStreams.open(stream(u, 'strm_1', 'proc_a', { kind: 'agents', agentId: 'agt_1', clientKeyId: 'ck_1', holder: 'key:ck_1:visitor' }));
      await stores.liveStreams.open(stream(u, 'strm_2', 'proc_a'));
      await stores.liveStreams.open(stream(u, 'strm_3', 'proc_b'));
      const one = await stores.liveStreams.get('strm_1');
      expect(one).toMatchObject({ id: 'strm_1', userId: u, kind: 'agents', agentId: 'agt_1', sessionHash: 'hash_strm_1', holder: 'key:ck_1:visitor', clientKeyId: 'ck_1', ownerProcessId: 'proc_a', ownerUrl: 'http://127.0.0.1:1/proc_a', endedAt: null, endReason: null });
      expect(one!.heartbeatAt).toBe(one!.createdAt);
      expect(await stores.liveStreams.get('strm_none')).toBeUndefined();

      await rows('UPDATE live_streams SET heartbeat_at = 5 WHERE id IN ($1, $2, $3)', ['strm_1', 'strm_2', 'strm_3']);
      expect((await stores.liveStreams.beat('proc_a')).sort()).toEqual(['strm_1', 'strm_2']);
      expect((await stores.liveStreams.get('strm_1'))!.heartbeatAt).toBeGreaterThan(5);
      expect((await stores.liveStreams.get('strm_3'))!.heartbeatAt).toBe(5);

      expect(await stores.liveStreams.end('strm_2', 'deleted')).toBe(true);
      expect(await stores.liveStreams.end('strm_2', 'timeout')).toBe(false);
      expect(await stores.liveStreams.end('strm_none', 'deleted')).toBe(false);
      const ended = await stores.liveStreams.get('strm_2');
      expect(ended).toMatchObject({ endReason: 'deleted' });
      expect(ended!.endedAt).toBeGreaterThan(0);
      // An ended stream is no longer renewed: its owner learns from the beat that it ended.
      expect(await stores.liveStreams.beat('proc_a')).toEqual(['strm_1']);
    });
  });

  it("ends only other processes' open streams whose heartbeat is stale, once, and says so for one stream", async () => {
    await withDatabase(dialect, async (a) => {
      const u = await seedUser(a, 'usr_a');
      await a.stores.liveStreams.open(stream(u, 'strm_dead', 'proc_dead'));
      await a.stores.liveStreams.open(stream(u, 'strm_alive', 'proc_alive'));
      await a.stores.liveStreams.open(stream(u, 'strm_gone', 'proc_dead'));
      await a.stores.liveStreams.open(stream(u, 'strm_mine', 'proc_self'));
      await a.stores.liveStreams.end('strm_gone', 'deleted');
      await a.rows('UPDATE live_streams SET heartbeat_at = 5 WHERE owner_process_id IN ($1, $2)', ['proc_dead', 'proc_self']);
      expect(await a.stores.liveStreams.isStale('strm_dead', 60_000)).toBe(true);
      expect(await a.stores.liveStreams.isStale('strm_alive', 60_000)).toBe(false);
      expect(await a.stores.liveStreams.isStale('strm_none', 60_000)).toBe(false);

      // Two processes sweep at once: each stale stream is ended by one of them.
      const b = await a.reopen();
      try {
        const swept = await Promise.all([a.stores.liveStreams.endStale('proc_self', 60_000, 'owner stopped'), b.stores.liveStreams.endStale('proc_self', 60_000, 'owner stopped')]);
        expect(swept.flat()).toEqual([{ id: 'strm_dead', ownerProcessId: 'proc_dead' }]);
        for (let round = 0; round < 10; round++) {
          const ids = [0, 1, 2].map((i) => `strm_r${round}_${i}`);
          for (const id of ids) await a.stores.liveStreams.open(stream(u, id, 'proc_dead'));
          await a.rows('UPDATE live_streams SET heartbeat_at = 5 WHERE ended_at IS NULL AND owner_process_id = $1', ['proc_dead']);
          const both = await Promise.all([a, b, a, b].map((db) => db.stores.liveStreams.endStale('proc_self', 60_000, 'owner stopped')));
          expect(both.flat().map((e) => e.id).sort()).toEqual(ids);
        }
      } finally {
        await b.close();
      }
      expect(await a.stores.liveStreams.get('strm_dead')).toMatchObject({ endReason: 'owner stopped' });
      expect(await a.stores.liveStreams.get('strm_gone')).toMatchObject({ endReason: 'deleted' });
      expect(await a.stores.liveStreams.get('strm_alive')).toMatchObject({ endedAt: null });
      // A process never takes itself for dead (a busy event loop late with its heartbeat).
      expect(await a.stores.liveStreams.get('strm_mine')).toMatchObject({ endedAt: null });
    });
  });

  it("lists other processes' open streams by holder, and forgets records ended long ago", async () => {
    await withDatabase(dialect, async (db) => {
      const { stores, rows } = db;
      const u = await seedUser(db, 'usr_a');
      await stores.liveStreams.open(stream(u, 'strm_1', 'proc_a'));
      await stores.liveStreams.open(stream(u, 'strm_2', 'proc_b', { holder: 'key:ck_1:v', clientKeyId: 'ck_1' }));
      await stores.liveStreams.open(stream(u, 'strm_3', 'proc_b'));
      await stores.liveStreams.open(stream(u, 'strm_4', 'proc_c'));
      await stores.liveStreams.end('strm_3', 'deleted');
      const seen = await stores.liveStreams.openElsewhere('proc_a');
      expect(seen.sort((x, y) => x.holder.localeCompare(y.holder))).toEqual([{ holder: 'key:ck_1:v', clientKeyId: 'ck_1' }, { holder: `user:${u}`, clientKeyId: null }]);

      await stores.liveStreams.end('strm_4', 'deleted');
      await rows('UPDATE live_streams SET ended_at = 5 WHERE id = $1', ['strm_3']);
      expect(await stores.liveStreams.prune(60_000)).toBe(1);
      expect(await stores.liveStreams.get('strm_3')).toBeUndefined();
      expect(await stores.liveStreams.get('strm_4')).toMatchObject({ endReason: 'deleted' });
    });
  });
}
