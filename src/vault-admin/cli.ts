import type { Command } from '../platform/command.ts';
import { withVault } from '../vault/cli.ts';

export const VAULT_COMMANDS: Record<string, Command> = {
  'vault rotate': {
    usage: 'vault rotate [--batch-size N]',
    help:
      'Makes a new primary key-encryption key and re-wraps every stored data key under it (ciphertexts stay as they are).\n' +
      'Safe while the service runs: it picks the new key up on its next write. Older keys are retired, never deleted.\n' +
      'Prints progress on stderr and {"primary","rewrapped","retired","unreadable"} on stdout; exits 1 when a value did not decrypt.',
    options: {
      'batch-size': { type: 'string', value: 'N', description: 'data keys re-wrapped per transaction, a whole number >= 1; smaller batches hold the database for less time', default: '500' },
    },
    examples: ['vault rotate', 'vault rotate --batch-size 100'],
    run(ctx, v) {
      const raw = v['batch-size'];
      const batchSize = raw === undefined ? 500 : Number(raw);
      if (typeof raw === 'boolean' || !Number.isSafeInteger(batchSize) || batchSize < 1) {
        ctx.err('--batch-size must be a positive whole number');
        return 2;
      }
      return withVault(ctx, async (vault) => {
        const report = await vault.rotate({ batchSize, onProgress: (done) => ctx.err(`vault rotate: re-wrapped ${done} data keys`) });
        ctx.out(JSON.stringify(report));
        if (report.unreadable.length === 0) return 0;
        ctx.err(`vault rotate: ${report.unreadable.length} stored value(s) did not decrypt and were left as they are (see "unreadable")`);
        return 1;
      });
    },
  },
  'vault status': {
    usage: 'vault status',
    help: 'Prints the key-encryption keys (id, provider, status, created_at, demoted_at, data_keys) as one JSON line. Takes no options.',
    examples: ['vault status'],
    run(ctx) {
      return withVault(ctx, async (vault) => {
        ctx.out(JSON.stringify(await vault.status()));
        return 0;
      });
    },
  },
};
