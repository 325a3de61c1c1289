import { ApiError } from '../errors.ts';
import { validate, type FieldError } from '../schemas/ajv.ts';
import { requirePermission } from '../platform/caller.ts';
import type { AuthUser } from '../platform/caller.ts';
import type { CreateAnimationBody } from './schemas.ts';
import { isoTime } from '../clock.ts';
import { checkWebhookUrl } from '../resources/webhook-url.ts';
import { checkOutboundUrls } from '../resources/outbound-urls.ts';
import { DEFAULT_CATEGORY, DRIVER_CATEGORIES, bankUrl, parseBankUrl, pickDriver } from './driver-bank.ts';
import { ANIMATION_COST, SAMPLE_SOURCE, SAMPLE_SOURCE_KEY, type AnimationDeps } from './deps.ts';
import type { AnimationDetails } from './kind.ts';
import { DEFAULT_LOGO_KEY, DEFAULT_LOGO_PATH } from './logo.ts';
import { INPUT_ROLES, InputRejected, type ImageSize, checkResultFormat, inspectImage, inspectVideo, type InputRole } from '../media/checks.ts';
import { checkFace, checkLogoPlacement, inspectSample } from './checks.ts';

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

type StoredInputs = Partial<Record<InputRole, string>>;

/**
 * Storage-scheme URLs must name an object the caller owns (or, for result_url, a valid key).
 * Returns the local files of the stored inputs, for the checks that read their bytes.
 */
async function checkStorageRefs(deps: AnimationDeps, userId: string, body: CreateAnimationBody): Promise<StoredInputs> {
  const scheme = `${deps.config.storageScheme}://`;
  const logo = body.config?.logo;
  const inputs: [InputRole, string | undefined][] = [
    ['source', body.source_url],
    ['driver', body.driver_url],
    ['overlay', body.config?.overlay],
    ['logo', typeof logo === 'object' ? logo.url : undefined],
  ];
  const stored: StoredInputs = {};
  for (const [role, url] of inputs) {
    if (!url?.startsWith(scheme)) continue;
    const { field } = INPUT_ROLES[role];
    const key = deps.media.keyOfStorageUrl(url);
    if (key === null) throw bad(field, `is not a valid ${scheme}<bucket>/<key> URL`);
    const path = await deps.media.localFile(userId, key);
    if (path === null) throw bad(field, `names an object that does not exist in your media store`);
    stored[role] = path;
  }
  if (body.result_url?.startsWith(scheme) && deps.media.keyOfStorageUrl(body.result_url) === null) {
    throw bad('result_url', `is not a valid ${scheme}<bucket>/<key> URL`);
  }
  return stored;
}

/** The URLs the service will contact: inputs it fetches, the result it uploads, the webhook. */
function outboundUrls(body: CreateAnimationBody): [string, string | undefined][] {
  const logo = body.config?.logo;
  return [
    ['source_url', body.source_url],
    ['driver_url', body.driver_url],
    ['config.overlay', body.config?.overlay],
    ['config.logo.url', typeof logo === 'object' ? logo.url : undefined],
    ['result_url', body.result_url],
    ['webhook', body.webhook],
  ];
}

/**
 * The rules that need an input's bytes, for every input whose bytes are here now (stored
 * ones and the sample); fetched inputs meet the same rules at render time. Returns the
 * source's size when it is known now.
 */
async function checkInputs(deps: AnimationDeps, body: CreateAnimationBody, stored: StoredInputs): Promise<ImageSize | null> {
  const limits = deps.config;
  try {
    checkResultFormat(body);
    checkFace(body.face, null);
    const source =
      body.source_url === undefined
        ? await inspectSample(SAMPLE_SOURCE)
        : stored.source
          ? await inspectImage('source', stored.source, limits)
          : null;
    const logo = stored.logo ? await inspectImage('logo', stored.logo, limits) : null;
    if (stored.driver) await inspectVideo('driver', stored.driver, limits);
    if (stored.overlay) await inspectVideo('overlay', stored.overlay, limits);
    checkFace(body.face, source);
    checkLogoPlacement(body, source, logo);
    return source && { width: source.width, height: source.height };
  } catch (err) {
    if (err instanceof InputRejected) throw err.toApiError();
    throw err;
  }
}

/** Puts a bundled file into the user's media store once (the sample source, the default logo), so records can sign URLs of it. */
async function ensureUserCopy(deps: AnimationDeps, userId: string, key: string, file: string): Promise<void> {
  if (!(await deps.media.exists(userId, key))) await deps.media.putFile(userId, key, file, 'image/png');
}

/**
 * POST /animations. Order of checks: body and inputs (400), permission (403), credits (402). The
 * charge, the record and its job are written in one transaction: all or nothing.
 */
export async function createAnimation(deps: AnimationDeps, user: AuthUser, raw: unknown) {
  const body = validate(deps.schemas.CreateAnimation, raw);
  const { lifecycle } = deps;
  const id = lifecycle.newId(deps.newId);
  const driverResolved = resolveDriver(body, id);
  checkWebhookUrl(body.webhook);
  const stored = await checkStorageRefs(deps, user.id, body);
  await checkOutboundUrls(deps.client, outboundUrls(body), [`${deps.config.storageScheme}://`, 'bank://']);
  const sourceSize = await checkInputs(deps, body, stored);
  if (body.config?.stitch === true) requirePermission(user, 'stitch', 'config.stitch');

  // Without a source_url the record points at the user's stored copy of the sample from the start.
  let sourceKey: string | null = null;
  if (body.source_url === undefined) {
    await ensureUserCopy(deps, user.id, SAMPLE_SOURCE_KEY, SAMPLE_SOURCE);
    sourceKey = SAMPLE_SOURCE_KEY;
  }
  const logo = body.config?.logo;
  if (logo === undefined || logo === true) await ensureUserCopy(deps, user.id, DEFAULT_LOGO_KEY, DEFAULT_LOGO_PATH);

  const details: AnimationDetails = { driverResolved, sourceKey, ...(sourceSize ? { sourceSize } : {}) };
  const row = await lifecycle.create({ id, userId: user.id, request: body, details, webhookUrl: body.webhook });
  if (!row) throw new ApiError('InsufficientCreditsError', `Not enough credits: an animation costs ${ANIMATION_COST} credit`);
  return { id, object: 'animation' as const, created_by: user.id, created_at: isoTime(row.createdAt), status: 'created' as const };
}
