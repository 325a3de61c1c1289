import { randomBytes } from 'node:crypto';
import { ApiError } from '../errors.ts';
import { validate } from '../schemas/ajv.ts';
import type { AuthUser } from '../platform/caller.ts';
import type { AvatarView } from './schemas.ts';
import { checkWebhookUrl } from '../resources/webhook-url.ts';
import { checkOutboundUrls } from '../resources/outbound-urls.ts';
import type { Avatar, AvatarDetails } from './kind.ts';
import type { AvatarDeps } from './deps.ts';
import { forgetClonedVoice } from './voice.ts';

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** `<slug of the name>-<10 letters and digits>`, the style of the hosted service's presenter ids. */
export function presenterIdFor(name: string, random: (n: number) => Buffer = randomBytes): string {
  const slug = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 24) || 'avatar';
  const tail = [...random(10)].map((b) => ALPHANUMERIC[b % ALPHANUMERIC.length]).join('');
  return `${slug}-${tail}`;
}

/**
 * POST /clips/avatars. Order of checks: the body, the consent (yours, verified, for this name,
 * uploaded in time), then in one transaction: the consent used up (a second avatar with it is
 * refused), the credits charged, the record and its job.
 */
export async function createAvatar(deps: AvatarDeps, user: AuthUser, raw: unknown): Promise<AvatarView> {
  const body = validate(deps.schemas.CreateAvatar, raw);
  checkWebhookUrl(body.webhook);
  await checkOutboundUrls(deps.client, [['webhook', body.webhook], ['source_url', body.source_url]], [`${deps.config.storageScheme}://`]);
  const name = body.name.trim().replace(/\s+/g, ' ');
  const { language } = await deps.consents.usable(user.id, body.consent_id, name);
  const storage = `${deps.config.storageScheme}://`;
  if (body.source_url.startsWith(storage)) {
    const key = deps.media.keyOfStorageUrl(body.source_url);
    if (key === null || !(await deps.media.exists(user.id, key))) {
      throw new ApiError('BadRequestError', 'Invalid request body: source_url names no object of your media store', [{ field: 'source_url', message: 'names no object of your media store' }]);
    }
  }
  const presenterId = presenterIdFor(name);
  const greenscreen = body.config?.is_greenscreen;
  const details: AvatarDetails = {
    presenterId,
    driverId: `${presenterId}-idle`,
    consentId: body.consent_id,
    language,
    isGreenscreen: greenscreen === true || greenscreen === 'true',
    checks: [],
  };
  const id = deps.lifecycle.newId(deps.newId);
  const outcome = await deps.lifecycle.createClaiming(
    { id, userId: user.id, request: { ...body, name }, details, webhookUrl: body.webhook },
    { id: body.consent_id, kind: 'consent', status: 'done' },
  );
  if ('refused' in outcome) {
    if (outcome.refused === 'credits') throw new ApiError('InsufficientCreditsError', `Not enough credits: an avatar costs ${deps.settings.credits} credits`);
    throw new ApiError('ConsentError', 'The consent was used already (or changed meanwhile); each consent makes one avatar', [{ field: 'consent_id', message: 'was used already' }]);
  }
  return deps.lifecycle.kind.present(outcome.row);
}

/** What deleting an avatar removes besides its record, job and folder: its presenter (its preview job, its media) and a cloned voice. */
export async function forgetRemoved(deps: Pick<AvatarDeps, 'voices' | 'log' | 'queue' | 'media'>, { userId, details, result }: Avatar): Promise<void> {
  if (result) await forgetClonedVoice(deps.voices, result.voice, deps.log);
  await deps.queue.cancelFor(details.presenterId);
  await deps.media.removePrefix(userId, `presenters/${details.presenterId}/`);
}
