import { ApiError } from '../errors.ts';
import { validate, type FieldError } from '../schemas/ajv.ts';
import type { AuthUser } from '../platform/caller.ts';
import type { CreateClipBody } from './schemas.ts';
import { isoTime } from '../clock.ts';
import { checkWebhookUrl } from '../resources/webhook-url.ts';
import { checkOutboundUrls } from '../resources/outbound-urls.ts';
import { InputRejected, inspectImage } from '../media/checks.ts';
import { DEFAULT_PRESENTER_ID, type PresenterEntry } from '../presenters/contract.ts';
import type { ClipDeps } from './deps.ts';
import type { ClipDetails } from './kind.ts';
import { SECONDS_PER_CREDIT, chargedSeconds, creditsForSeconds, spokenText } from '../speaking/credits.ts';
import { outboundUrls, storedInputs } from '../speaking/inputs.ts';
import { chooseVoice } from '../speaking/voice.ts';
import type { SpeakingVoice } from '../speaking/records.ts';
import { ALPHA_FORMATS } from '../compute/interface.ts';

const bad = (field: string, message: string): ApiError =>
  new ApiError('BadRequestError', `Invalid request body: ${field} ${message}`, [{ field, message } satisfies FieldError]);

/** Rules across fields: the background against the format, and a text with nothing to say. */
function refuseContradictions(body: CreateClipBody): void {
  const bg = body.background;
  if (bg?.color !== undefined && bg.source_url !== undefined) throw bad('background', 'takes color or source_url, not both');
  const format = body.config?.result_format ?? 'mp4';
  if (bg?.color === false && !ALPHA_FORMATS.includes(format)) {
    throw bad('background.color', `false (a transparent background) needs config.result_format webm (or mov): ${format} has no alpha channel`);
  }
  if (body.script.type === 'text' && spokenText(body.script.input, body.script.ssml ?? false).length === 0) throw bad('script.input', 'has nothing to say');
}

/** The voice that will speak a text script: the script's provider, else the presenter's voice, after the fallback policy. */
async function resolveVoice(deps: ClipDeps, body: CreateClipBody, presenter: PresenterEntry): Promise<SpeakingVoice | null> {
  if (body.script.type !== 'text') return null;
  const asked = body.script.provider ?? { type: presenter.voice.type, voice_id: presenter.voice.voice_id };
  return chooseVoice(deps.voices, asked, presenter.gender !== 'other' ? presenter.gender : undefined);
}

/**
 * POST /clips. Order of checks: the body and the rules across its fields, the presenter,
 * the stored inputs (their bytes), the voice (a refused fallback is a 400 here), then credits
 * (402). The charge, the record and its job are one transaction.
 */
export async function createClip(deps: ClipDeps, user: AuthUser, raw: unknown) {
  const body = validate(deps.schemas.CreateClip, raw);
  refuseContradictions(body);
  const presenterId = body.presenter_id ?? DEFAULT_PRESENTER_ID;
  const presenter = await deps.presenters.find(user.id, presenterId);
  if (!presenter) throw bad('presenter_id', 'names no presenter (GET /clips/presenters lists them)');
  checkWebhookUrl(body.webhook);
  const stored = await storedInputs(deps, user.id, body);
  await checkOutboundUrls(deps.client, outboundUrls(body), [`${deps.config.storageScheme}://`]);
  for (const role of ['logo', 'background'] as const) {
    const path = stored[role];
    if (!path) continue;
    try {
      await inspectImage(role, path, deps.config);
    } catch (err) {
      if (err instanceof InputRejected) throw err.toApiError();
      throw err;
    }
  }

  const seconds = await chargedSeconds(body.script, stored.audio);
  const voice = await resolveVoice(deps, body, presenter);

  const credits = creditsForSeconds(seconds);
  const id = deps.lifecycle.newId(deps.newId);
  const details: ClipDetails = { presenterId: presenter.id, voice, chargedSeconds: Math.round(seconds * 1000) / 1000 };
  const row = await deps.lifecycle.create({ id, userId: user.id, request: body, details, webhookUrl: body.webhook, credits });
  if (!row) throw new ApiError('InsufficientCreditsError', `Not enough credits: this clip costs ${credits} credit${credits === 1 ? '' : 's'} (one per started ${SECONDS_PER_CREDIT} s of speech)`);
  return { id, object: 'clip' as const, created_at: isoTime(row.createdAt), status: 'created' as const };
}
