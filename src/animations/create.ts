import { ApiError } from '../errors.ts';
import { validate, type FieldError } from '../schemas/ajv.ts';
import { requirePermission } from '../http/auth.ts';
import type { AuthUser } from '../http/env.ts';
import type { CreateAnimationBody } from '../schemas/animations.ts';
import { isoTime } from '../clock.ts';
import { DEFAULT_CATEGORY, DRIVER_CATEGORIES, bankUrl, parseBankUrl, pickDriver } from './driver-bank.ts';
import { ANIMATION_COST, RENDER_JOB, SAMPLE_SOURCE, SAMPLE_SOURCE_KEY, type AnimationDeps } from './deps.ts';
import { chargeCredits, insertAnimation } from './store.ts';

const bad = (field: string, message: string): ApiError =>
  new ApiError('BadRequestError', `Invalid request body: ${field} ${message}`, [{ field, message } satisfies FieldError]);

/** Where the driver comes from: a bank driver resolved to one name, or a video URL. */
function resolveDriver(body: CreateAnimationBody, seed: string): string {
  const url = body.driver_url;
  if (url === undefined) return bankUrl(pickDriver(DEFAULT_CATEGORY, seed));
  if (!url.startsWith('bank://')) return url;
  const parsed = parseBankUrl(url);
  if (!parsed) {
    throw bad('driver_url', `names no driver of the bank (categories: ${DRIVER_CATEGORIES.join(', ')}; see GET /animations/drivers)`);
  }
  return bankUrl(parsed.name ? { category: parsed.category, name: parsed.name } : pickDriver(parsed.category, seed));
}

/** Storage-scheme URLs must name an object the caller owns (or, for result_url, a valid key). */
function checkStorageRefs(deps: AnimationDeps, userId: string, body: CreateAnimationBody): void {
  const scheme = `${deps.config.storageScheme}://`;
  const mustExist: [string, string | undefined][] = [
    ['source_url', body.source_url],
    ['driver_url', body.driver_url],
    ['config.overlay', body.config?.overlay],
    ['config.logo.url', typeof body.config?.logo === 'object' ? body.config.logo.url : undefined],
  ];
  for (const [field, url] of mustExist) {
    if (!url?.startsWith(scheme)) continue;
    const key = deps.media.keyOfStorageUrl(url);
    if (key === null) throw bad(field, `is not a valid ${scheme}<bucket>/<key> URL`);
    if (deps.media.find(userId, key) === null) throw bad(field, `names an object that does not exist in your media store`);
  }
  if (body.result_url?.startsWith(scheme) && deps.media.keyOfStorageUrl(body.result_url) === null) {
    throw bad('result_url', `is not a valid ${scheme}<bucket>/<key> URL`);
  }
}

function checkWebhook(webhook: string | undefined): void {
  if (!webhook) return;
  try {
    const u = new URL(webhook);
    if (u.username || u.password) throw bad('webhook', 'must not carry credentials in the URL');
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw bad('webhook', 'is not a valid URL');
  }
}

/**
 * POST /animations. Order of checks: body (400), permission (403), credits (402). The
 * charge, the record and its job are written in one transaction: all or nothing.
 */
export async function createAnimation(deps: AnimationDeps, user: AuthUser, raw: unknown) {
  const body = validate(deps.schemas.CreateAnimation, raw);
  const id = deps.newId('anm');
  const driverResolved = resolveDriver(body, id);
  checkWebhook(body.webhook);
  checkStorageRefs(deps, user.id, body);
  if (body.config?.stitch === true) requirePermission(user, 'stitch', 'config.stitch');

  // Without a source_url the record points at the user's stored copy of the sample from the start.
  let sourceKey: string | null = null;
  if (body.source_url === undefined) {
    if (deps.media.find(user.id, SAMPLE_SOURCE_KEY) === null) {
      await deps.media.putFile(user.id, SAMPLE_SOURCE_KEY, SAMPLE_SOURCE, 'image/png');
    }
    sourceKey = SAMPLE_SOURCE_KEY;
  }

  const now = deps.clock.now();
  const { store, queue } = deps;
  store.sqlite.transaction(() => {
    if (!chargeCredits(store, user.id, ANIMATION_COST)) {
      throw new ApiError('InsufficientCreditsError', `Not enough credits: an animation costs ${ANIMATION_COST} credit`);
    }
    insertAnimation(store, {
      id,
      userId: user.id,
      status: 'created',
      request: JSON.stringify(body),
      driverResolved,
      sourceKey,
      createdAt: now,
      modifiedAt: now,
    });
    queue.enqueue({ kind: RENDER_JOB, resourceId: id, userId: user.id, maxAttempts: deps.config.worker.maxAttempts });
  })();
  return { id, object: 'animation' as const, created_by: user.id, created_at: isoTime(now), status: 'created' as const };
}
