import { UsageError, type Command, type CommandContext } from '../platform/command.ts';
import { closeDatabase, openReadyDatabase } from '../db/database.ts';
import { deriveKey } from '../keys.ts';
import { systemClock, randomId } from '../clock.ts';
import { checkMasterKey } from '../vault/key-check.ts';
import { vaultStoreOn } from '../vault/store-pg.ts';
import type { CreditChange } from './store.ts';
import { userStoreOn } from './store-pg.ts';
import { addCredits, createKey, createUser, getUser, listKeys, listUsers, revokeKey, setCredits, type UserDeps } from './accounts.ts';
import { PERMISSIONS, isPermission, type Permission } from './permissions.ts';

async function withUsers<T>(ctx: CommandContext, fn: (deps: UserDeps) => Promise<T>): Promise<T> {
  // SQLite in the data directory, or PostgreSQL when MIMIC_DATABASE_URL is set (migrated first, as the server would).
  const database = await openReadyDatabase(ctx.config);
  try {
    // A wrong master key would write API-key hashes no server could verify: refuse first.
    await checkMasterKey(vaultStoreOn(database), ctx.config.masterKey);
    return await fn({
      users: userStoreOn(database),
      clock: systemClock,
      newId: randomId,
      apiKeyHashKey: deriveKey(ctx.config.masterKey, 'api-key-hash'),
    });
  } finally {
    await closeDatabase(database);
  }
}

function wholeNumber(value: string | boolean | undefined, name: string, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  const n = Number(value);
  if (typeof value !== 'string' || !/^-?\d+$/.test(value) || !Number.isSafeInteger(n)) throw new UsageError(`${name} must be a whole number`);
  return n;
}

function nonNegative(value: string | boolean | undefined, name: string, fallback?: number): number {
  const n = wholeNumber(value, name, fallback);
  if (n < 0) throw new UsageError(`${name} must not be negative`);
  return n;
}

/** `--user ID` or the first positional. */
function userArg(v: Record<string, string | boolean | undefined>, pos: string[]): string {
  const userId = (v.user as string | undefined) ?? pos[0];
  if (!userId) throw new UsageError('--user is required');
  return userId;
}

/** Prints the user after a credit change, or says why nothing changed (exit 1). */
async function reportCredits(ctx: CommandContext, d: UserDeps, userId: string, change: CreditChange, what: string): Promise<number> {
  if (change.status === 'not-found') {
    ctx.err(`no user ${userId}`);
    return 1;
  }
  if (change.status === 'insufficient') {
    ctx.err(`refused: user ${userId} has ${change.credits} credits; ${what} would make the balance negative. Nothing changed (use "users credits set" to correct a balance).`);
    return 1;
  }
  ctx.out(JSON.stringify(await getUser(d, userId)));
  return 0;
}

const permissionList = Object.keys(PERMISSIONS).join(', ');
const permissionMeanings = Object.entries(PERMISSIONS).map(([name, meaning]) => `${name}: ${meaning}`).join('; ');

/** The user an option or the first argument names. */
const USER_OPTION = { type: 'string', value: 'ID', description: 'the user, by the id users create printed (usr_...); or give it as the first argument', default: 'required' } as const;
const USER_ARGUMENT = { name: 'ID', description: 'the user (usr_...), instead of --user' };

export const USER_COMMANDS: Record<string, Command> = {
  'users create': {
    usage: 'users create [--name NAME] [--credits N] [--grant PERM,...]',
    help: 'Creates a user and its first API key; prints {"id","api_key"} (the key is shown only this once: it goes in the Authorization: Basic header).',
    options: {
      name: { type: 'string', value: 'NAME', description: 'a name for the user, any text; shown by users list', default: 'none' },
      credits: { type: 'string', value: 'N', description: 'starting credits, a whole number >= 0; an animation costs 1, a short clip 1, an avatar 20', default: '100' },
      grant: { type: 'string', value: 'PERM,...', description: `permissions, comma-separated, from: ${permissionMeanings}`, default: 'none' },
    },
    examples: ['users create --name alice', 'users create --name studio --credits 500 --grant stitch'],
    async run(ctx, v) {
      const credits = nonNegative(v.credits, '--credits', 100);
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
    help: 'Prints every user as one JSON line: id, name, credits, permissions, created_at. Takes no options.',
    examples: ['users list'],
    async run(ctx) {
      for (const u of await withUsers(ctx, (d) => listUsers(d))) ctx.out(JSON.stringify(u));
      return 0;
    },
  },
  'users credits add': {
    usage: 'users credits add --user ID --amount N   (or: users credits add ID N)',
    help:
      'Adds N credits to a user; prints the user. N may be negative to take credits away, but never below zero:\n' +
      'an amount that would make the balance negative is refused (exit 1) and nothing changes.',
    options: {
      user: USER_OPTION,
      amount: { type: 'string', value: 'N', description: 'credits to add, a whole number; negative (-5) takes credits away; or give it as the second argument', default: 'required' },
    },
    arguments: [USER_ARGUMENT, { name: 'N', description: 'the amount, instead of --amount' }],
    examples: ['users credits add --user usr_0mwzf8myc0000fe1858746b44831a --amount 50', 'users credits add usr_0mwzf8myc0000fe1858746b44831a -5'],
    run(ctx, v, pos) {
      const userId = userArg(v, pos);
      const amount = wholeNumber(v.amount ?? pos[1], '--amount');
      return withUsers(ctx, async (d) => reportCredits(ctx, d, userId, await addCredits(d, userId, amount), `adding ${amount}`));
    },
  },
  'users credits set': {
    usage: 'users credits set --user ID --credits N   (or: users credits set ID N)',
    help: 'Sets a user\'s balance to N (N >= 0), for corrections; prints the user.',
    options: {
      user: USER_OPTION,
      credits: { type: 'string', value: 'N', description: 'the new balance, a whole number >= 0; or give it as the second argument', default: 'required' },
    },
    arguments: [USER_ARGUMENT, { name: 'N', description: 'the balance, instead of --credits' }],
    examples: ['users credits set --user usr_0mwzf8myc0000fe1858746b44831a --credits 100', 'users credits set usr_0mwzf8myc0000fe1858746b44831a 0'],
    run(ctx, v, pos) {
      const userId = userArg(v, pos);
      const credits = nonNegative(v.credits ?? pos[1], '--credits');
      return withUsers(ctx, async (d) => reportCredits(ctx, d, userId, await setCredits(d, userId, credits), `setting ${credits}`));
    },
  },
  'keys create': {
    usage: 'keys create --user ID',
    help: 'Issues another API key for a user (the others keep working); prints {"id","user_id","api_key"} (the key is shown only this once).',
    options: { user: USER_OPTION },
    arguments: [USER_ARGUMENT],
    examples: ['keys create --user usr_0mwzf8myc0000fe1858746b44831a', 'keys create usr_0mwzf8myc0000fe1858746b44831a'],
    async run(ctx, v, pos) {
      const userId = userArg(v, pos);
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
    options: { user: USER_OPTION },
    arguments: [USER_ARGUMENT],
    examples: ['keys list --user usr_0mwzf8myc0000fe1858746b44831a'],
    async run(ctx, v, pos) {
      const userId = userArg(v, pos);
      for (const k of await withUsers(ctx, (d) => listKeys(d, userId))) ctx.out(JSON.stringify(k));
      return 0;
    },
  },
  'keys revoke': {
    usage: 'keys revoke KEY_ID|API_KEY   (or: keys revoke --key KEY_ID|API_KEY)',
    help: 'Revokes an API key, named by its id (see keys list) or by the key itself. Takes effect in every process within 1 ms (SQLite), or as soon as the PostgreSQL change notice reaches it.',
    options: {
      key: { type: 'string', value: 'KEY_ID|API_KEY', description: 'the key to revoke: its id from keys list (key_...), or the API key itself (mimic_...); or give it as the first argument', default: 'required' },
    },
    arguments: [{ name: 'KEY_ID|API_KEY', description: 'the key, instead of --key' }],
    examples: ['keys revoke key_0mwzf8myc0000fe1858746b44831a', 'keys revoke --key "$OLD_API_KEY"'],
    async run(ctx, v, pos) {
      const target = (v.key as string | undefined) ?? pos[0];
      if (!target) throw new UsageError('a key id or API key is required');
      if (!(await withUsers(ctx, (d) => revokeKey(d, target)))) {
        ctx.err('no active key matched');
        return 1;
      }
      ctx.out(JSON.stringify({ revoked: true }));
      return 0;
    },
  },
};
