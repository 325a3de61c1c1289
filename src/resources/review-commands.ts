import { UsageError, type Command } from '../platform/command.ts';
import { withStores, type CommandStores } from './command-stores.ts';
import type { MediaAccess } from '../media/index.ts';

/** What a review queue offers its commands: the pending items (JSON-able), and a decision on one. */
export interface ReviewQueue {
  /** e.g. 'consents'. */
  group: string;
  /** e.g. 'consent'. */
  what: string;
  /** The prefix of its ids, e.g. 'cns'. */
  idPrefix: string;
  /** A reason an operator might give to reject one. */
  rejectExample: string;
  listHelp: string;
  approveHelp: string;
  rejectHelp: string;
  pending(stores: CommandStores, media: MediaAccess): Promise<object[]>;
  decide(stores: CommandStores, media: MediaAccess, id: string, decision: 'approve' | 'reject', reason: string): Promise<'approved' | 'rejected' | 'not-pending'>;
}

/** `<group> review`, `<group> approve <id>`, `<group> reject <id> --reason "..."`: an operator's review queue. */
export function reviewCommands(q: ReviewQueue): Record<string, Command> {
  const decide = (decision: 'approve' | 'reject'): Command => ({
    usage: `${q.group} ${decision} <${q.what} id> ${decision === 'reject' ? '--reason "..."' : '[--reason "..."]'}`,
    help: decision === 'approve' ? q.approveHelp : q.rejectHelp,
    options: {
      reason: decision === 'reject'
        ? { type: 'string', value: '"TEXT"', description: `why, any text: kept with the ${q.what}'s review and printed`, default: 'required' }
        : { type: 'string', value: '"TEXT"', description: `a note on the decision, any text: kept with the ${q.what}'s review and printed`, default: 'none' },
    },
    arguments: [{ name: `<${q.what} id>`, description: `the ${q.what} to decide, by its id from ${q.group} review (${q.idPrefix}_...)` }],
    examples: [decision === 'reject' ? `${q.group} reject ${q.idPrefix}_0mwzf8myc0000fe1858746b44831a --reason "${q.rejectExample}"` : `${q.group} approve ${q.idPrefix}_0mwzf8myc0000fe1858746b44831a`],
    async run(ctx, values, positionals) {
      const id = positionals[0];
      if (!id) throw new UsageError(`the ${q.what} id is required`);
      const reason = typeof values.reason === 'string' ? values.reason.trim() : '';
      if (decision === 'reject' && !reason) throw new UsageError('--reason is required to reject');
      return withStores(ctx, async (stores, media) => {
        const outcome = await q.decide(stores, media, id, decision, reason);
        if (outcome === 'not-pending') {
          ctx.err(`${q.what} ${id} does not wait for a review (unknown, decided already, or never sent to review)`);
          return 1;
        }
        ctx.out(JSON.stringify({ [`${q.what}_id`]: id, decision: outcome, ...(reason ? { reason } : {}) }));
        return 0;
      });
    },
  });
  return {
    [`${q.group} review`]: {
      usage: `${q.group} review`,
      help: `${q.listHelp} Takes no options.`,
      examples: [`${q.group} review`],
      async run(ctx) {
        return withStores(ctx, async (stores, media) => {
          const pending = await q.pending(stores, media);
          for (const p of pending) ctx.out(JSON.stringify(p));
          if (pending.length === 0) ctx.err(`no ${q.what} waits for a review`);
          return 0;
        });
      },
    },
    [`${q.group} approve`]: decide('approve'),
    [`${q.group} reject`]: decide('reject'),
  };
}
