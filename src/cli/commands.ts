import { parseArgs } from 'node:util';
import { openStore } from '../db/client.ts';
import { deriveKey } from '../keys.ts';
import { systemClock, randomId } from '../clock.ts';
import { addCredits, createKey, createUser, listKeys, listUsers, revokeKey, type UserDeps } from '../users/store.ts';
import { PERMISSIONS, isPermission, type Permission } from '../users/permissions.ts';
import { UsageError, type Command, type CommandContext } from './command.ts';
import { VAULT_COMMANDS } from '../vault/cli.ts';
import { checkMasterKey } from '../vault/key-check.ts';
import { createSqliteVaultStore } from '../vault/store.ts';
import { SECRET_COMMANDS } from '../secrets/cli.ts';
import { WORKER_COMMANDS } from '../compute/remote/cli.ts';

export { UsageError, type Command, type CommandContext } from './command.ts';

async function withUsers<T>(ctx: CommandContext, fn: (deps: UserDeps) => T): Promise<Awaited<T>> {
  const store = openStore(ctx.config.databaseFile);
  try {
    // A wrong master key would write API-key hashes no server could verify: refuse first.
    await checkMasterKey(createSqliteVaultStore(store), ctx.config.masterKey);
    return await fn({ store, clock: systemClock, newId: randomId, apiKeyHashKey: deriveKey(ctx.config.masterKey, 'api-key-hash') });
  } finally {
    store.close();
  }
}

function nonNegativeInt(value: string | boolean | undefined, name: string, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  const n = Number(value);
  if (typeof value !== 'string' || !/^-?\d+$/.test(value) || !Number.isSafeInteger(n)) throw new UsageError(`${name} must be a whole number`);
  return n;
}

const permissionList = Object.keys(PERMISSIONS).join(', ');

export const COMMANDS: Record<string, Command> = {
  'users create': {
    usage: 'users create [--name NAME] [--credits N] [--grant PERM,...]',
    help: `Creates a user and its first API key; prints {"id","api_key"} (the key is shown only this once).\n  --credits N   starting credits (default 100); one animation costs 1\n  --grant P,..  permissions: ${permissionList}`,
    options: { name: { type: 'string' }, credits: { type: 'string' }, grant: { type: 'string' } },
    async run(ctx, v) {
      const credits = nonNegativeInt(v.credits, '--credits', 100);
      if (credits < 0) throw new UsageError('--credits must not be negative');
      const grants = String(v.grant ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const unknown = grants.filter((g) => !isPermission(g));
      if (unknown.length) throw new UsageError(`unknown permission ${unknown.join(', ')} (known: ${permissionList})`);
      const { user, apiKey } = await withUsers(ctx, (d) =>
        createUser(d, { ...(typeof v.name === 'string' ? { name: v.name } : {}), credits, permissions: grants as Permission[] }),
      );
      ctx.out(JSON.stringify({ id: user.id, api_key: apiKey }));
      return 0;
    },
  },
  'users list': {
    usage: 'users list',
    help: 'Prints every user as one JSON line: id, name, credits, permissions, created_at.',
    async run(ctx) {
      for (const u of await withUsers(ctx, (d) => listUsers(d))) ctx.out(JSON.stringify(u));
      return 0;
    },
  },
  'users credits add': {
    usage: 'users credits add --user ID --amount N   (or: users credits add ID N)',
    help: 'Adds N credits to a user (N may be negative to take credits away); prints the user.',
    options: { user: { type: 'string' }, amount: { type: 'string' } },
    positionals: 2,
    async run(ctx, v, pos) {
      const userId = (v.user as string | undefined) ?? pos[0];
      if (!userId) throw new UsageError('--user is required');
      const amount = nonNegativeInt(v.amount ?? pos[1], '--amount');
      const user = await withUsers(ctx, (d) => addCredits(d, userId, amount));
      if (!user) {
        ctx.err(`no user ${userId}`);
        return 1;
      }
      ctx.out(JSON.stringify(user));
      return 0;
    },
  },
  'keys create': {
    usage: 'keys create --user ID',
    help: 'Issues another API key for a user; prints {"id","user_id","api_key"} (shown only this once).',
    options: { user: { type: 'string' } },
    positionals: 1,
    async run(ctx, v, pos) {
      const userId = (v.user as string | undefined) ?? pos[0];
      if (!userId) throw new UsageError('--user is required');
      const key = await withUsers(ctx, (d) => createKey(d, userId));
      if (!key) {
        ctx.err(`no user ${userId}`);
        return 1;
      }
      ctx.out(JSON.stringify({ id: key.id, user_id: userId, api_key: key.apiKey }));
      return 0;
    },
  },
  'keys list': {
    usage: 'keys list --user ID',
    help: 'Prints the API keys of a user (id, prefix, created_at, revoked_at), one JSON line each; never the keys.',
    options: { user: { type: 'string' } },
    positionals: 1,
    async run(ctx, v, pos) {
      const userId = (v.user as string | undefined) ?? pos[0];
      if (!userId) throw new UsageError('--user is required');
      for (const k of await withUsers(ctx, (d) => listKeys(d, userId))) ctx.out(JSON.stringify(k));
      return 0;
    },
  },
  'keys revoke': {
    usage: 'keys revoke KEY_ID|API_KEY   (or: keys revoke --key KEY_ID|API_KEY)',
    help: 'Revokes an API key, named by its id (see keys list) or by the key itself. Takes effect on the next request, in every process.',
    options: { key: { type: 'string' } },
    positionals: 1,
    async run(ctx, v, pos) {
      const target = (v.key as string | undefined) ?? pos[0];
      if (!target) throw new UsageError('a key id or API key is required');
      const ok = await withUsers(ctx, (d) => revokeKey(d, target));
      if (!ok) {
        ctx.err('no active key matched');
        return 1;
      }
      ctx.out(JSON.stringify({ revoked: true }));
      return 0;
    },
  },
  ...VAULT_COMMANDS,
  ...SECRET_COMMANDS,
  ...WORKER_COMMANDS,
  migrate: {
    usage: 'migrate',
    help: 'Applies pending database migrations (the server also does this on start).',
    run(ctx) {
      openStore(ctx.config.databaseFile).close();
      ctx.out(JSON.stringify({ migrated: true, database: ctx.config.databaseFile }));
      return 0;
    },
  },
};

/** Finds the longest command name that prefixes argv; returns it with the remaining args. */
export function findCommand(argv: string[]): { name: string; command: Command; rest: string[] } | null {
  for (let n = Math.min(3, argv.length); n > 0; n--) {
    const name = argv.slice(0, n).join(' ');
    const command = COMMANDS[name];
    if (command) return { name, command, rest: argv.slice(n) };
  }
  return null;
}

export function parseCommandArgs(command: Command, rest: string[]) {
  const { values, positionals } = parseArgs({
    args: rest,
    options: { ...command.options, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > (command.positionals ?? 0)) throw new UsageError(`unexpected argument ${positionals.at(-1)}`);
  return { values: values as Record<string, string | boolean | undefined>, positionals };
}
