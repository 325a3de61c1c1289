import type { CommandContext } from '../platform/command.ts';
import { closeDatabase, openReadyDatabase } from '../db/database.ts';
import { createStores, type Stores } from '../platform/stores.ts';
import type { ResourceStore } from './store.ts';
import { resourceStoreOn } from './store-pg.ts';
import { mediaAccessOf, openMediaStore, type MediaAccess } from '../media/index.ts';
import { deriveKey } from '../keys.ts';
import { systemClock } from '../clock.ts';
import { checkMasterKey } from '../vault/key-check.ts';

/** What an operator command works on: the infrastructure's stores and the kit's resource store. */
export interface CommandStores extends Stores {
  readonly resources: ResourceStore;
}

/**
 * Runs an operator command on the configured database and media store (a review queue's
 * decision, say). Refuses a master key the database was not made with: a record changed
 * with it would sign webhooks and URLs no server could verify.
 */
export async function withStores(ctx: CommandContext, fn: (stores: CommandStores, media: MediaAccess) => Promise<number>): Promise<number> {
  const handle = await openReadyDatabase(ctx.config);
  try {
    const infrastructure = createStores(handle);
    const stores: CommandStores = { ...infrastructure, resources: resourceStoreOn(handle, infrastructure.jobs.enqueue) };
    await checkMasterKey(stores.vault, ctx.config.masterKey);
    const media = mediaAccessOf(ctx.config, openMediaStore(ctx.config), deriveKey(ctx.config.masterKey, 'signed-url'), systemClock);
    return await fn(stores, media);
  } finally {
    await closeDatabase(handle);
  }
}
