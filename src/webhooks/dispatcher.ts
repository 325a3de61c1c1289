import { randomId, type Clock, type IdFactory } from '../clock.ts';
import type { GuardedClient } from '../egress/client.ts';
import { EgressError, isPolicyRefusal } from '../egress/errors.ts';
import type { WebhookMessageRow } from '../db/schema/webhooks.ts';
import type { AttemptResult, OutboxStore } from './outbox.ts';
import type { Database } from '../db/database.ts';
import { outboxStoreOn } from './outbox-store-pg.ts';
import { createWebhookSecrets, type WebhookSecrets } from './secrets.ts';
import { webhookSecretStoreOnDatabase } from './secrets-store-pg.ts';
import { signatureHeader } from './signing.ts';

/** Builds a message's JSON body at send time (so signed URLs in it are fresh); null drops it. */
export type WebhookBodyBuilder = (resourceId: string, userId: string, event: string) => Promise<object | null>;

/**
 * The body builders by resource kind: the part of the event before its first dot
 * (`animation` of `animation.done`). Each capability registers its own; an event of a kind
 * nobody registered is dropped.
 */
export type WebhookBodies = Readonly<Record<string, WebhookBodyBuilder>>;

export const resourceKindOf = (event: string): string => event.slice(0, Math.max(0, event.indexOf('.')));

interface Log {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export interface WebhookDispatcherDeps {
  /** The database the outbox lives in (the outbox store is built on it unless `outbox` is given). */
  store: Database;
  outbox?: OutboxStore;
  client: Pick<GuardedClient, 'request'>;
  clock: Clock;
  /** Either the secrets service, or the master key to build one. */
  secrets?: WebhookSecrets;
  masterKey?: Buffer;
  /** config.webhooks.retryScheduleMs: delay before each retry; its length is the number of retries. */
  schedule: readonly number[];
  timeoutMs: number;
  pollMs: number;
  bodies: WebhookBodies;
  log: Log;
  /** Messages claimed per poll (default 10). */
  batchSize?: number;
  /** How long a claim lasts (default: 2 × timeout + 30 s), after which another dispatcher may retry. */
  leaseMs?: number;
  /** Uniform [0, 1) source for jitter (tests pin it). */
  random?: () => number;
  newId?: IdFactory;
}

export interface WebhookDispatcher {
  start(): void;
  /** Stops polling and waits for in-flight sends to finish. */
  stop(): Promise<void>;
  /** One poll: claims due messages and sends them; resolves with how many were processed. */
  runOnce(): Promise<number>;
}

export const USER_AGENT = 'mimic-webhooks/0.1';
const MAX_DELAY_MS = 24 * 60 * 60 * 1000;
const JITTER = 0.2;
const REPLY_BYTES = 16 * 1024;

/** Retry-After as seconds or an HTTP date, in ms from now; null when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number): number | null {
  if (!value) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

export function createWebhookDispatcher(deps: WebhookDispatcherDeps): WebhookDispatcher {
  const outbox = deps.outbox ?? outboxStoreOn(deps.store, deps.newId ?? randomId);
  const secrets =
    deps.secrets ??
    (deps.masterKey
      ? createWebhookSecrets({ store: webhookSecretStoreOnDatabase(deps.store), clock: deps.clock, masterKey: deps.masterKey })
      : (() => {
          throw new Error('createWebhookDispatcher needs secrets or masterKey');
        })());
  const batchSize = deps.batchSize ?? 10;
  const leaseMs = deps.leaseMs ?? deps.timeoutMs * 2 + 30_000;
  const random = deps.random ?? Math.random;

  function nextStep(message: WebhookMessageRow, statusCode: number | null, error: string, retryAfter: number | null, now: number): AttemptResult {
    const attempt = message.attempts + 1;
    const base = deps.schedule[attempt - 1];
    if (base === undefined) return { outcome: 'failed', statusCode, error: `${error}; no retries left` };
    let delay = base * (1 - JITTER + 2 * JITTER * random());
    if (retryAfter !== null && retryAfter > delay) delay = retryAfter;
    return { outcome: 'retry', statusCode, error, nextAttemptAt: now + Math.round(Math.min(delay, MAX_DELAY_MS)) };
  }

  async function deliver(message: WebhookMessageRow): Promise<void> {
    const fields = { message_id: message.id, event: message.event, resource_id: message.resourceId, attempt: message.attempts + 1 };
    let body: object | null;
    try {
      const build = Object.hasOwn(deps.bodies, resourceKindOf(message.event)) ? deps.bodies[resourceKindOf(message.event)] : undefined;
      body = build ? await build(message.resourceId, message.userId, message.event) : null;
    } catch (err) {
      deps.log.error('webhook body could not be built', { ...fields, error: err instanceof Error ? err.name : 'unknown' });
      const now = deps.clock.now();
      await outbox.recordAttempt(message, nextStep(message, null, 'the message body could not be built', null, now), { startedAt: now, durationMs: 0, now });
      return;
    }
    if (body === null) {
      await outbox.drop(message, `the ${message.event} resource ${message.resourceId} no longer exists`);
      deps.log.warn('webhook dropped', { ...fields, reason: 'resource gone' });
      return;
    }

    const payload = JSON.stringify(body);
    const startedAt = deps.clock.now();
    const timestamp = Math.floor(startedAt / 1000);
    const started = performance.now();
    let result: AttemptResult;
    try {
      const res = await deps.client.request(message.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'webhook-id': message.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(await secrets.activeSecrets(message.userId), message.id, timestamp, payload),
        },
        body: payload,
        timeoutMs: deps.timeoutMs,
        maxBytes: REPLY_BYTES,
        truncate: true,
      });
      const now = deps.clock.now();
      if (res.status >= 200 && res.status <= 299) result = { outcome: 'delivered', statusCode: res.status };
      else if (res.status === 410) result = { outcome: 'disabled', statusCode: 410, error: 'the endpoint answered 410 Gone; no more retries' };
      else {
        const why = res.status >= 300 && res.status <= 399 ? `HTTP ${res.status} (redirects are not followed)` : `HTTP ${res.status}`;
        result = nextStep(message, res.status, why, retryAfterMs(res.headers['retry-after'], now), now);
      }
    } catch (err) {
      const now = deps.clock.now();
      // EgressError messages name the host only: never the path, query or credentials.
      const why = err instanceof EgressError ? `${err.reason}: ${err.message}` : 'network: the request failed';
      // A URL the policy refuses can never be delivered to: no retry (as for a result_url).
      result = isPolicyRefusal(err) ? { outcome: 'failed', statusCode: null, error: why } : nextStep(message, null, why, null, now);
    }
    const durationMs = performance.now() - started;
    const owned = await outbox.recordAttempt(message, result, { startedAt, durationMs, now: deps.clock.now() });
    const log = { ...fields, outcome: result.outcome, status_code: result.statusCode, duration_ms: Math.round(durationMs), ...(owned ? {} : { lease: 'lost' }) };
    if (result.outcome === 'delivered') deps.log.info('webhook delivered', log);
    else deps.log.warn('webhook attempt failed', { ...log, error: result.error });
  }

  const inFlight = new Set<Promise<void>>();

  async function runOnce(): Promise<number> {
    const claimed = await outbox.claim(deps.clock.now(), leaseMs, batchSize);
    await Promise.all(
      claimed.map((message) => {
        const p = deliver(message).catch((err: unknown) => {
          deps.log.error('webhook delivery crashed', { message_id: message.id, error: err instanceof Error ? err.name : 'unknown' });
        });
        inFlight.add(p);
        return p.finally(() => inFlight.delete(p));
      }),
    );
    return claimed.length;
  }

  let stopped = true;
  let timer: NodeJS.Timeout | undefined;
  let loop: Promise<void> | undefined;

  const tick = (): void => {
    timer = undefined;
    if (stopped) return;
    loop = runOnce().then(
      (n) => schedule(n >= batchSize ? 0 : deps.pollMs),
      (err: unknown) => {
        deps.log.error('webhook poll failed', { error: err instanceof Error ? err.message : 'unknown' });
        schedule(deps.pollMs);
      },
    );
  };
  const schedule = (ms: number): void => {
    if (!stopped) timer = setTimeout(tick, ms);
  };

  return {
    runOnce,
    start() {
      if (!stopped) return;
      stopped = false;
      schedule(0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await loop;
      await Promise.all([...inFlight]);
    },
  };
}
