import { stat } from 'node:fs/promises';
import { ApiError } from '../errors.ts';
import { validate, type FieldError } from '../schemas/ajv.ts';
import type { AuthUser } from '../users/auth-user.ts';
import type { CreateClipBody } from './schemas.ts';
import { isoTime } from '../clock.ts';
import { checkWebhookUrl } from '../resources/webhook-url.ts';
import { checkOutboundUrls } from '../resources/outbound-urls.ts';
import { AUDIO_LIMITS, measureAudio } from '../audios/upload.ts';
import { InputRejected, inspectImage } from '../animations/checks.ts';
import { DEFAULT_PRESENTER_ID } from '../presenters/built-in.ts';
import type { PresenterEntry } from '../presenters/catalogue.ts';
import { HTTPS_AUDIO_CREDITS, SECONDS_PER_CREDIT, creditsForSeconds, estimateSpeechSeconds, spokenText, type ClipDeps } from './deps.ts';
import type { ClipDetails, ClipVoice } from './kind.ts';
import type { VoiceCatalogue } from '../voices/catalogue.ts';
import type { Gender } from '../voices/interface.ts';
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

/** The local file of a storage-scheme URL the caller owns (400 naming `field` otherwise); undefined for any other URL. */
export function storedObject(deps: Pick<ClipDeps, 'config' | 'media'>, userId: string, field: string, url: string | undefined): string | undefined {
  const scheme = `${deps.config.storageScheme}://`;
  if (!url?.startsWith(scheme)) return undefined;
  const key = deps.media.keyOfStorageUrl(url);
  if (key === null) throw bad(field, `is not a valid ${scheme}<bucket>/<key> URL`);
  const path = deps.media.find(userId, key);
  if (path === null) throw bad(field, 'names an object that does not exist in your media store');
  return path;
}

/** The fields of a clip or a talk that may name stored objects. */
type SpeakingRefs = Pick<CreateClipBody, 'script' | 'result_url'> & Partial<Pick<CreateClipBody, 'background'>> & { config?: Pick<NonNullable<CreateClipBody['config']>, 'logo'> };

/** The URLs of a clip or a talk the service will contact: inputs it fetches, the result it uploads, the webhook. */
export function outboundUrls(body: SpeakingRefs & { webhook?: string }): [string, string | undefined][] {
  const logo = body.config?.logo;
  return [
    ['script.audio_url', body.script.type === 'audio' ? body.script.audio_url : undefined],
    ['config.logo.url', typeof logo === 'object' ? logo.url : undefined],
    ['background.source_url', body.background?.source_url],
    ['result_url', body.result_url],
    ['webhook', body.webhook],
  ];
}

/** Storage-scheme URLs name objects the caller owns; answers the local file of each stored input. */
export function storedInputs(deps: Pick<ClipDeps, 'config' | 'media'>, userId: string, body: SpeakingRefs): { audio?: string; logo?: string; background?: string } {
  const scheme = `${deps.config.storageScheme}://`;
  const out: { audio?: string; logo?: string; background?: string } = {};
  const logo = body.config?.logo;
  const refs: ['audio' | 'logo' | 'background', string, string | undefined][] = [
    ['audio', 'script.audio_url', body.script.type === 'audio' ? body.script.audio_url : undefined],
    ['logo', 'config.logo.url', typeof logo === 'object' ? logo.url : undefined],
    ['background', 'background.source_url', body.background?.source_url],
  ];
  for (const [role, field, url] of refs) {
    const path = storedObject(deps, userId, field, url);
    if (path) out[role] = path;
  }
  if (body.result_url?.startsWith(scheme) && deps.media.keyOfStorageUrl(body.result_url) === null) {
    throw bad('result_url', `is not a valid ${scheme}<bucket>/<key> URL`);
  }
  return out;
}

/** A stored audio held to the script limits; answers its length in seconds. */
async function checkStoredAudio(path: string): Promise<number> {
  const { size } = await stat(path);
  if (size > AUDIO_LIMITS.maxBytes) {
    throw new ApiError('InvalidFileSizeError', `The audio is larger than the limit of ${AUDIO_LIMITS.maxBytes} bytes`, [{ field: 'script.audio_url', message: `must be at most ${AUDIO_LIMITS.maxBytes} bytes` }]);
  }
  const seconds = await measureAudio(path);
  if (seconds === undefined || seconds <= 0) throw bad('script.audio_url', 'names a file with no audio stream that decodes');
  if (seconds > AUDIO_LIMITS.maxSeconds) {
    throw new ApiError('InvalidAudioDurationError', `The audio is ${seconds.toFixed(1)} s long; the limit is ${AUDIO_LIMITS.maxSeconds} s`, [{ field: 'script.audio_url', message: `must be at most ${AUDIO_LIMITS.maxSeconds} seconds` }]);
  }
  return seconds;
}

/** Seconds of speech a script is charged for: a text's estimate, a stored audio's length, or the flat rate of an https audio. */
export async function chargedSeconds(script: CreateClipBody['script'], storedAudio: string | undefined): Promise<number> {
  if (script.type === 'text') return estimateSpeechSeconds(script.input, script.ssml ?? false);
  if (storedAudio) return checkStoredAudio(storedAudio);
  return HTTPS_AUDIO_CREDITS * SECONDS_PER_CREDIT;
}

/** The voice that will speak a text script: the script's provider, else the presenter's voice, after the fallback policy. */
async function resolveVoice(deps: ClipDeps, body: CreateClipBody, presenter: PresenterEntry): Promise<ClipVoice | null> {
  if (body.script.type !== 'text') return null;
  const asked = body.script.provider ?? { type: presenter.voice.type, voice_id: presenter.voice.voice_id };
  return chooseVoice(deps.voices, asked, presenter.gender !== 'other' ? presenter.gender : undefined);
}

/** The voice that speaks `asked` (a script's provider, or the caller's default), after the fallback policy; 503 without voices. */
export async function chooseVoice(voices: VoiceCatalogue | undefined, asked: { type: string; voice_id: string; language?: string }, gender: Gender | undefined): Promise<ClipVoice> {
  if (!voices) throw new ApiError('ServiceUnavailableError', 'No voice can speak here: text scripts are not available on this server');
  const resolved = await voices.resolve({
    type: asked.type,
    voiceId: asked.voice_id,
    ...(asked.language !== undefined ? { language: asked.language } : {}),
    ...(gender ? { gender } : {}),
  });
  return { type: resolved.provider.type, voiceId: resolved.voiceId, ...(resolved.fallback ? { fallback: resolved.fallback } : {}) };
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
  const stored = storedInputs(deps, user.id, body);
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
