import { randomInt } from 'node:crypto';
import { ApiError } from '../errors.ts';
import { isoTime } from '../clock.ts';
import { validate } from '../schemas/ajv.ts';
import type { AuthUser } from '../platform/caller.ts';
import type { ConsentView } from './schemas.ts';
import { checkWebhookUrl } from '../resources/webhook-url.ts';
import { checkOutboundUrls } from '../resources/outbound-urls.ts';
import { CONSENT_LANGUAGES, findLanguage } from './languages/index.ts';
import type { ConsentLanguage } from './languages/types.ts';
import { CONSENT_TTL_MS, EXPIRED, isExpired, type ConsentDetails } from './kind.ts';
import type { ConsentDeps } from './deps.ts';

/** Three different words of the language's list, each drawn with a cryptographic generator. */
export function drawPasscode(lang: ConsentLanguage, pick: (n: number) => number = randomInt): string[] {
  const words: string[] = [];
  while (words.length < 3) {
    const w = lang.words[pick(lang.words.length)]!;
    if (!words.includes(w)) words.push(w);
  }
  return words;
}

/** The statement with the passcode in place (the name stays `[user name]`: the person says theirs). */
export const statementOf = (lang: ConsentLanguage, passcode: readonly string[]): string => lang.template.replace('{passcode}', passcode.join(' '));

/** The statement as it should be spoken: the name in place of `[user name]`. */
export const spokenStatement = (text: string, name: string): string => text.replace('[user name]', name.trim());

/** POST /consents {language}: a new challenge, valid for 30 minutes. */
export async function createConsent(deps: ConsentDeps, user: AuthUser, raw: unknown) {
  const body = validate(deps.schemas.CreateConsent, raw);
  const lang = findLanguage(body.language);
  if (!lang) {
    const names = CONSENT_LANGUAGES.map((l) => l.name);
    throw new ApiError('BadRequestError', `Invalid request body: language must be one of ${names.join(', ')} (any case)`, [{ field: 'language', message: `must be one of: ${names.join(', ')}`, allowed: names }]);
  }
  const passcode = drawPasscode(lang);
  const text = statementOf(lang, passcode);
  const id = deps.lifecycle.newId(deps.newId);
  const now = deps.clock.now();
  const details: ConsentDetails = { language: lang.name, text, passcode, expiresAt: now + CONSENT_TTL_MS, steps: [] };
  const row = await deps.lifecycle.create({ id, userId: user.id, request: body, details });
  if (!row) throw new Error('a free consent was refused for credits');
  return { id, created_at: isoTime(row.createdAt), created_by: user.id, text, passcode, language: lang.name, expires_at: isoTime(details.expiresAt) };
}

/**
 * POST /consents/{id} {name, source_url, webhook}: starts verification (status `validating`).
 * Only a consent still waiting for its video, and within 30 minutes of its creation; an
 * expired one ends in `error` here and can never be used.
 */
export async function uploadConsent(deps: ConsentDeps, user: AuthUser, id: string, raw: unknown): Promise<ConsentView> {
  const body = validate(deps.schemas.UploadConsent, raw);
  checkWebhookUrl(body.webhook);
  await checkOutboundUrls(deps.client, [['webhook', body.webhook], ['source_url', body.source_url]], [`${deps.config.storageScheme}://`]);
  const c = await deps.lifecycle.record(user.id, id);
  const now = deps.clock.now();
  if (isExpired(c, now)) {
    const e = EXPIRED(c);
    await deps.lifecycle.fail(c.row.id, e.kind, e.description);
    throw new ApiError('ConsentExpiredError', e.description);
  }
  const ended = c.row.error ? (JSON.parse(c.row.error) as { kind: string; description: string }) : null;
  if (ended?.kind === 'ConsentExpiredError') throw new ApiError('ConsentExpiredError', ended.description);
  if (c.row.status !== 'created') {
    throw new ApiError('ConflictError', `This consent already has its video (status ${c.row.status}); create a new consent to record again`);
  }
  await storageObjectExists(deps, user.id, body.source_url);
  const details: ConsentDetails = { ...c.details, name: body.name.trim().replace(/\s+/g, ' '), sourceUrl: body.source_url, uploadedAt: now, steps: [] };
  const row = await deps.lifecycle.advance(c.row.id, { from: 'created', to: 'validating', details, webhookUrl: body.webhook, job: deps.lifecycle.queued });
  if (!row) throw new ApiError('ConflictError', 'This consent changed meanwhile (another upload, or it was deleted); fetch it again');
  return deps.lifecycle.kind.present(row);
}

/** A storage-scheme source must name an object the caller owns (400 at once rather than an error later). */
async function storageObjectExists(deps: Pick<ConsentDeps, 'config' | 'media'>, userId: string, url: string): Promise<void> {
  const scheme = `${deps.config.storageScheme}://`;
  if (!url.startsWith(scheme)) return;
  const key = deps.media.keyOfStorageUrl(url);
  if (key === null || !(await deps.media.exists(userId, key))) {
    throw new ApiError('BadRequestError', `Invalid request body: source_url names no object of your media store`, [{ field: 'source_url', message: 'names no object of your media store' }]);
  }
}

/** GET /consents/languages: the languages and whether their words are checked by a recogniser here. */
export function listLanguages(deps: Pick<ConsentDeps, 'recognisers'>) {
  return { languages: CONSENT_LANGUAGES.map((l) => ({ name: l.name, code: l.code, recognised: deps.recognisers.some((r) => r.languages.includes(l.name)) })) };
}

