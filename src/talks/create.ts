import { ApiError } from '../errors.ts';
import { validate, type FieldError } from '../schemas/ajv.ts';
import type { AuthUser } from '../platform/caller.ts';
import { requirePermission } from '../platform/caller.ts';
import type { CreateTalkBody } from './schemas.ts';
import { isoTime } from '../clock.ts';
import { checkWebhookUrl } from '../resources/webhook-url.ts';
import { checkOutboundUrls } from '../resources/outbound-urls.ts';
import { InputRejected, checkResultFormat, inspectImage } from '../media/checks.ts';
import { defaultVoice } from '../voices/contract.ts';
import { SECONDS_PER_CREDIT, chargedSeconds, creditsForSeconds, spokenText } from '../speaking/credits.ts';
import { outboundUrls, storedInputs, storedObject } from '../speaking/inputs.ts';
import { chooseVoice } from '../speaking/voice.ts';
import type { SpeakingVoice } from '../speaking/records.ts';
import type { TalkDeps, TalkDetails } from './kind.ts';

const bad = (field: string, message: string): ApiError =>
  new ApiError('BadRequestError', `Invalid request body: ${field} ${message}`, [{ field, message } satisfies FieldError]);

/** Hosted talk fields the service cannot honour: refused, never silently ignored (docs/talks.md). */
function refuseUnsupported(body: CreateTalkBody): void {
  const cfg = body.config ?? {};
  if (cfg.driver_expressions !== undefined) throw bad('config.driver_expressions', 'is not supported yet: the face keeps a neutral expression');
  if (body.script.type === 'text' && spokenText(body.script.input, body.script.ssml ?? false).length === 0) throw bad('script.input', 'has nothing to say');
}

/** The animations' input rules, broken: a 400 naming the field (nothing written, nothing charged). */
async function asRequestError<T>(check: () => T | Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (err) {
    if (err instanceof InputRejected) throw err.toApiError();
    throw err;
  }
}

async function resolveVoice(deps: TalkDeps, body: CreateTalkBody): Promise<SpeakingVoice | null> {
  if (body.script.type !== 'text') return null;
  return chooseVoice(deps.voices, body.script.provider ?? (await defaultVoice(deps.voices)), undefined);
}

/**
 * POST /talks. Order of checks: the body and what the service does not support, result_url's
 * extension against the format (as on animations), the stored inputs (the photo's and the
 * logo's bytes, the audio's length), the stitch permission (403), the voice, then credits (402). The charge, the record and its job are one transaction. A photo
 * fetched over https meets the same rules when the job fetches it, and the face is looked
 * for by the renderer: a photo without one ends the talk in error (FaceError), refunded.
 */
export async function createTalk(deps: TalkDeps, user: AuthUser, raw: unknown) {
  const body = validate(deps.schemas.CreateTalk, raw);
  refuseUnsupported(body);
  checkWebhookUrl(body.webhook);
  await asRequestError(() => checkResultFormat(body));
  const photo = await storedObject(deps, user.id, 'source_url', body.source_url);
  const stored = await storedInputs(deps, user.id, body);
  await checkOutboundUrls(deps.client, [['source_url', body.source_url], ...outboundUrls(body)], [`${deps.config.storageScheme}://`]);
  if (photo) await asRequestError(() => inspectImage('source', photo, deps.config));
  if (stored.logo) await asRequestError(() => inspectImage('logo', stored.logo!, deps.config));
  if (body.config?.stitch === true) requirePermission(user, 'stitch', 'config.stitch');

  // Padding lengthens the video, and is charged as speech (as the hosted service does).
  const seconds = (await chargedSeconds(body.script, stored.audio)) + (body.config?.pad_audio ?? 0);
  const voice = await resolveVoice(deps, body);
  const credits = creditsForSeconds(seconds);
  const id = deps.lifecycle.newId(deps.newId);
  const details: TalkDetails = { voice, chargedSeconds: Math.round(seconds * 1000) / 1000 };
  const row = await deps.lifecycle.create({ id, userId: user.id, request: body, details, webhookUrl: body.webhook, credits });
  if (!row) throw new ApiError('InsufficientCreditsError', `Not enough credits: this talk costs ${credits} credit${credits === 1 ? '' : 's'} (one per started ${SECONDS_PER_CREDIT} s of speech)`);
  return { id, object: 'talk' as const, created_by: user.id, created_at: isoTime(row.createdAt), status: 'created' as const };
}
