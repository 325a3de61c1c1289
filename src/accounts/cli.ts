import { UsageError, type Command, type CommandContext } from '../platform/command.ts';
import { closeDatabase, openReadyDatabase } from '../db/database.ts';
import { deriveKey } from '../keys.ts';
import { systemClock, randomId } from '../clock.ts';
import { checkMasterKey } from '../vault/key-check.ts';
import { vaultStoreOn } from '../vault/store-pg.ts';
import { accountStoreOn } from './store-pg.ts';
import { createPasswords, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords.ts';
import { DEFAULT_PASSWORD_COST } from './settings.ts';
import { checkEmail, invite, resetLink, type InviteDeps, type InviteOutcome } from './invites.ts';

async function withAccounts<T>(ctx: CommandContext, fn: (deps: InviteDeps) => Promise<T>): Promise<T> {
  const database = await openReadyDatabase(ctx.config);
  try {
    // A wrong master key would write hashes and links no server could verify: refuse first.
    await checkMasterKey(vaultStoreOn(database), ctx.config.masterKey);
    return await fn({ store: accountStoreOn(database), masterKey: ctx.config.masterKey, publicUrl: ctx.config.publicUrl, clock: systemClock, newId: randomId });
  } finally {
    await closeDatabase(database);
  }
}

const text = (v: string | boolean | undefined, flag: string): string => {
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${flag} is required`);
  return v;
};

function report(ctx: CommandContext, outcome: InviteOutcome): number {
  if (!outcome.ok) {
    ctx.err(`refused: ${outcome.reason}`);
    return 1;
  }
  ctx.out(JSON.stringify({ user_id: outcome.userId, email: outcome.email, link: outcome.link, expires_at: new Date(outcome.expiresAt).toISOString() }));
  return 0;
}

/** Reads the whole of stdin (a password is never an argument: argv shows in `ps` and shell history). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

const USER = { type: 'string', value: 'ID', description: 'the user (usr_..., as users create printed it)', default: 'required' } as const;
const EMAIL = { type: 'string', value: 'EMAIL', description: 'the email the person signs in to the studio with', default: 'required' } as const;

export const ACCOUNT_COMMANDS: Record<string, Command> = {
  'users invite': {
    usage: 'users invite --user ID --email EMAIL',
    help: 'Gives a user a studio account with this email and prints {"user_id","email","link","expires_at"}: a one-time link (7 days) where the person sets their password. There is no mail: pass the link on yourself.',
    options: { user: USER, email: EMAIL },
    examples: ['users invite --user usr_0mwzf8myc0000fe1858746b44831a --email ann@example.org'],
    async run(ctx, v) {
      const userId = text(v.user, 'user');
      const email = text(v.email, 'email');
      return report(ctx, await withAccounts(ctx, (d) => invite(d, userId, email)));
    },
  },
  'users reset-password': {
    usage: 'users reset-password --email EMAIL',
    help: 'Prints {"user_id","email","link","expires_at"}: a one-time link (24 hours) where the person with this studio email sets a new password; their sessions end when they use it.',
    options: { email: EMAIL },
    examples: ['users reset-password --email ann@example.org'],
    async run(ctx, v) {
      const email = text(v.email, 'email');
      return report(ctx, await withAccounts(ctx, (d) => resetLink(d, email)));
    },
  },
  'users password': {
    usage: 'users password --user ID --email EMAIL   (the password on stdin)',
    help: `Sets the studio password of a user (ending their sessions), giving them an account with this email if they have none; the password (${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters) is read from stdin, never from the command line (printf '%s' "$PASSWORD" | npm run -s mimic -- users password ...). Prints {"user_id","email"}.`,
    options: { user: USER, email: EMAIL },
    examples: ['users password --user usr_0mwzf8myc0000fe1858746b44831a --email ann@example.org'],
    async run(ctx, v) {
      const userId = text(v.user, 'user');
      const email = checkEmail(text(v.email, 'email'));
      if (!email) throw new UsageError('--email is not an email address');
      const password = await readStdin();
      if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
        ctx.err(`refused: the password on stdin must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`);
        return 1;
      }
      return withAccounts(ctx, async (d) => {
        const hash = await createPasswords(deriveKey(d.masterKey, 'password-pepper'), DEFAULT_PASSWORD_COST).hash(password);
        const now = d.clock.now();
        const existing = await d.store.byUser(userId);
        if (existing && existing.email !== email) {
          ctx.err(`refused: user ${userId} has the studio account ${existing.email}`);
          return 1;
        }
        const done = existing ? await d.store.setPassword(userId, hash, now) : await d.store.createAccount({ userId, email, passwordHash: hash, createdAt: now });
        if (!done) {
          const taken = await d.store.byEmail(email);
          ctx.err(`refused: ${taken ? `${email} belongs to user ${taken.userId}` : `no user ${userId}`}`);
          return 1;
        }
        // A password an operator sets is a reset: whoever held a session before is signed out.
        await d.store.revokeOtherSessions(userId, null, now);
        ctx.out(JSON.stringify({ user_id: userId, email }));
        return 0;
      });
    },
  },
};
