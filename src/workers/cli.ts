import { UsageError, valueOf, type Command, type CommandContext } from '../platform/command.ts';
import { closeDatabase, openReadyDatabase } from '../db/database.ts';
import { storeMakers } from '../platform/stores.ts';
import { deriveKey } from '../keys.ts';
import { systemClock, randomId } from '../clock.ts';
import { createLogger } from '../log.ts';
import { checkMasterKey } from '../vault/key-check.ts';
import { createLocalBackend } from '../compute/local/index.ts';
import { createLocalStreamRenderer } from '../compute/local/stream/index.ts';
import { createWorkerTokens, type WorkerTokens } from '../compute/remote/tokens.ts';
import { parseServerUrl, runRemoteWorker, WorkerAuthError } from '../compute/remote/worker/index.ts';

async function withWorkers<T>(ctx: CommandContext, fn: (workers: WorkerTokens) => Promise<T>): Promise<T> {
  const database = await openReadyDatabase(ctx.config);
  try {
    const stores = storeMakers(database);
    // A wrong master key would store token hashes no server could verify: refuse first.
    await checkMasterKey(stores.vault(), ctx.config.masterKey);
    return await fn(createWorkerTokens({ store: stores.workerTokens(), clock: systemClock, newId: randomId, hashKey: deriveKey(ctx.config.masterKey, 'worker-token-hash') }));
  } finally {
    await closeDatabase(database);
  }
}

export const WORKER_COMMANDS: Record<string, Command> = {
  worker: {
    usage: 'worker --server URL --token TOKEN|env:NAME [--name NAME] [--once]',
    help:
      'Runs the built-in CPU renderer as a remote compute worker of a service started with MIMIC_COMPUTE_BACKEND=remote,\n' +
      'over the worker protocol (docs/compute-protocol.md); logs JSON lines. Needs no database, data directory or master key.\n' +
      'SIGTERM or SIGINT: stops claiming, gives the running task back for another worker, exits 0.',
    options: {
      server: { type: 'string', value: 'URL', description: "the service's base URL, its MIMIC_PUBLIC_URL (http:// or https://)", default: 'required' },
      token: { type: 'string', value: 'TOKEN|env:NAME', description: 'a worker token printed by workers add (mwk_...); env:NAME reads it from that environment variable, which keeps it out of ps and shell history', default: 'required' },
      name: { type: 'string', value: 'NAME', description: 'what the task table and the logs call this worker: 1 to 64 printable characters, no spaces', default: "the token's name" },
      once: { type: 'boolean', description: 'handle one task, then exit', default: 'run until stopped' },
    },
    examples: ['worker --server https://mimic.example.com --token env:MIMIC_WORKER_TOKEN', 'worker --server http://localhost:8080 --token mwk_... --name box-1 --once'],
    async run(ctx, v) {
      const server = typeof v.server === 'string' ? v.server : '';
      if (!server) throw new UsageError('--server is required');
      try {
        parseServerUrl(server);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
      const token = valueOf(v, 'token', process.env);
      const name = typeof v.name === 'string' ? v.name : undefined;
      if (name !== undefined && !/^[\x21-\x7e]{1,64}$/.test(name)) throw new UsageError('--name must be 1 to 64 printable characters without spaces');
      const stop = new AbortController();
      const log = createLogger(ctx.out);
      const onSignal = (signal: string) => {
        log.info('worker stopping', { signal });
        stop.abort();
      };
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
      const backend = createLocalBackend();
      const streams = createLocalStreamRenderer();
      try {
        log.info('worker started', { server: new URL(server).origin, name: name ?? null });
        const summary = await runRemoteWorker({ server, token, backend, streams, log, signal: stop.signal, ...(name ? { name } : {}), ...(v.once ? { once: true } : {}) });
        log.info('worker stopped', { ...summary });
        return 0;
      } catch (e) {
        if (!(e instanceof WorkerAuthError)) throw e;
        ctx.err((e as Error).message);
        return 1;
      } finally {
        await Promise.all([backend.close(), streams.close()]);
        // A claim still waiting on the server must not keep a stopped worker alive for its long poll.
        if (stop.signal.aborted) setTimeout(() => process.exit(), 200).unref();
      }
    },
  },
  'workers add': {
    usage: 'workers add --name NAME',
    help: 'Creates a compute worker token; prints {"id","name","token"} (the token is shown only this once: give it to the worker).',
    options: { name: { type: 'string', value: 'NAME', description: 'what the worker is called in workers list and the task table, 1 to 64 characters', default: 'required' } },
    examples: ['workers add --name gpu-box-1'],
    async run(ctx, v) {
      const name = typeof v.name === 'string' ? v.name.trim() : '';
      if (!name || name.length > 64) throw new UsageError('--name is required (1 to 64 characters)');
      ctx.out(JSON.stringify(await withWorkers(ctx, (w) => w.add(name))));
      return 0;
    },
  },
  'workers list': {
    usage: 'workers list',
    help: 'Prints every worker token as one JSON line: id, name, created_at, last_seen_at, revoked_at (never the token). Takes no options.',
    examples: ['workers list'],
    async run(ctx) {
      for (const w of await withWorkers(ctx, (workers) => workers.list())) ctx.out(JSON.stringify(w));
      return 0;
    },
  },
  'workers revoke': {
    usage: 'workers revoke ID',
    help: 'Revokes a worker token: its next call gets 401, and its claimed task is re-run elsewhere once the lease runs out.',
    arguments: [{ name: 'ID', description: 'the worker token to revoke, by its id from workers list (wkr_...)' }],
    examples: ['workers revoke wkr_0mwzf8myc0000fe1858746b44831a'],
    async run(ctx, _v, pos) {
      const id = pos[0];
      if (!id) throw new UsageError('a worker id is required (see workers list)');
      if (!(await withWorkers(ctx, (w) => w.revoke(id)))) {
        ctx.err(`no active worker ${id}`);
        return 1;
      }
      ctx.out(JSON.stringify({ id, revoked: true }));
      return 0;
    },
  },
};
