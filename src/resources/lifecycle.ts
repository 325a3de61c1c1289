import type { Clock, IdFactory } from '../clock.ts';
import { notFound } from '../errors.ts';
import { byCreation, toPage, type PageCursor } from '../pagination.ts';
import type { Claim, FollowUpJob, ResourceRow, ResourceStore } from './store.ts';
import { checkWebhookUrl } from './webhook-url.ts';
import type { WebhookResource } from '../platform/module.ts';

/**
 * What a kind of asynchronous resource declares (an animation now; a clip, a consent, an
 * avatar next). The lifecycle below does the rest: `created → started → done | error` plus
 * the kind's extra states, progress, the credit charged at creation and refunded on error or
 * on deletion before it finishes, the webhook on a final state, delete, newest-first pages.
 */
export interface ResourceKind<View> {
  /** e.g. 'animation': the record's `object`, the webhook event prefix (`animation.done`). */
  name: string;
  /** e.g. 'anm': ids look like `anm_...`. */
  idPrefix: string;
  /** Credits charged at creation. */
  cost: number;
  /** The job queued with each new resource, if its work runs in the job runner. */
  jobKind?: string;
  /**
   * States beyond the four shared ones: `active` ones may still change (e.g. 'validating'),
   * `final` ones end it (e.g. 'rejected'); `refundOn` lists the final ones that give the
   * credits back, as `error` always does.
   */
  extraStates?: { active?: readonly string[]; final?: readonly string[]; refundOn?: readonly string[] };
  /** The record as GET shows it. */
  present(row: ResourceRow): View;
  /** The webhook body of a final state; the GET record when not given. */
  webhookBody?(row: ResourceRow): object;
}

export interface LifecycleDeps {
  resources: ResourceStore;
  clock: Clock;
}

export interface CreateInput {
  id: string;
  userId: string;
  /** The request as accepted; stored as JSON. */
  request: unknown;
  /** The kind's working fields; stored as JSON. */
  details: unknown;
  /** '' or absent: no webhook. */
  webhookUrl?: string | undefined;
  /** Attempts of the kind's job. */
  maxAttempts: number;
  /** Credits to charge when they depend on the request (a clip's length); the kind's `cost` when absent. */
  credits?: number;
}

export interface Lifecycle<View> {
  readonly kind: ResourceKind<View>;
  newId(newId: IdFactory): string;
  /** Charges, stores and queues; the stored row, or null when the user's credits are short. */
  create(input: CreateInput): Promise<ResourceRow | null>;
  /**
   * As `create`, using up another resource of the user (`claim`, e.g. an avatar's consent) in
   * the same transaction; the claim is given back when this one fails or is deleted unfinished.
   */
  createClaiming(input: CreateInput, claim: Claim): Promise<{ row: ResourceRow } | { refused: 'credits' | 'claimed' }>;
  /**
   * Moves an unfinished resource from `from` to `to` (an active state), replacing its details
   * and webhook and queueing `job`, in one transaction (a consent's upload queues its
   * verification); the row, or undefined when it was not in `from` any more.
   */
  advance(id: string, step: { from: string; to: string; details: unknown; webhookUrl?: string | undefined; job?: { kind: string; maxAttempts: number } }): Promise<ResourceRow | undefined>;
  /** Replaces the result of the user's `done` resource (a presenter renamed); the row, or NotFoundError naming `label`. */
  amendResult(userId: string, id: string, result: unknown, label: string): Promise<ResourceRow>;
  /** The user's record, or NotFoundError naming `label`. */
  fetch(userId: string, id: string, label: string): Promise<ResourceRow>;
  /** A page of the user's records (in `status`, when given), newest first. */
  page(userId: string, limit: number, cursor: PageCursor | null, status?: string): Promise<{ items: ResourceRow[]; token?: string }>;
  /** Deletes (refunding an unfinished one); the row as it was, or NotFoundError. */
  remove(userId: string, id: string, label: string): Promise<ResourceRow>;
  getById(id: string): Promise<ResourceRow | undefined>;
  /** Up to `limit` unfinished records of this kind in `status`, of every user, oldest first (an operator's review queue). */
  listInState(status: string, limit: number): Promise<ResourceRow[]>;
  start(id: string): Promise<ResourceRow | undefined>;
  /** Moves an unfinished resource to `started` or an extra active state of the kind; false when it has ended or is gone. */
  moveTo(id: string, status: string): Promise<boolean>;
  progress(id: string, done: number, total: number): Promise<void>;
  setDetails(id: string, details: unknown): Promise<void>;
  /**
   * Ends in `done` (or a final state the kind declares) with its result, queueing `then` in the
   * same transaction (an avatar's talking preview); false when it had already ended or is gone
   * (then nothing is queued).
   */
  finish(id: string, result: unknown, status?: string, then?: FollowUpJob): Promise<boolean>;
  /** Ends in `error` and refunds; false when it had already ended or is gone. */
  fail(id: string, kind: string, description: string): Promise<boolean>;
  /** The webhook body of a resource of this kind, or null when it no longer exists. */
  webhookBody(resourceId: string, userId: string): Promise<object | null>;
}

export const isFinalStatus = (kind: ResourceKind<unknown>, status: string): boolean =>
  status === 'done' || status === 'error' || (kind.extraStates?.final?.includes(status) ?? false);

/** Every state a record of the kind can be in: the four shared ones and the kind's own. */
export const statesOf = (kind: Pick<ResourceKind<unknown>, 'extraStates'>): string[] => [
  'created',
  'started',
  ...(kind.extraStates?.active ?? []),
  'done',
  'error',
  ...(kind.extraStates?.final ?? []),
];

const isActiveStatus = (kind: ResourceKind<unknown>, status: string): boolean =>
  status === 'created' || status === 'started' || (kind.extraStates?.active?.includes(status) ?? false);

/** The webhook body builders of some resource kinds, keyed by kind name (the event prefix: `animation` for `animation.done`). */
export function webhookBodyBuilders(lifecycles: readonly WebhookResource[]): Record<string, (resourceId: string, userId: string) => Promise<object | null>> {
  return Object.fromEntries(lifecycles.map((l) => [l.kind.name, (resourceId: string, userId: string) => l.webhookBody(resourceId, userId)]));
}

export function resourceLifecycle<View>(kind: ResourceKind<View>, deps: LifecycleDeps): Lifecycle<View> {
  const { resources, clock } = deps;
  const refunds = (status: string) => status === 'error' || (kind.extraStates?.refundOn?.includes(status) ?? false);
  /** A new row of this kind (status created), its webhook checked. */
  function newRow(input: CreateInput): { row: ResourceRow; now: number } {
    checkWebhookUrl(input.webhookUrl);
    const now = clock.now();
    const row: ResourceRow = {
      id: input.id,
      kind: kind.name,
      userId: input.userId,
      status: 'created',
      request: JSON.stringify(input.request),
      details: JSON.stringify(input.details),
      result: null,
      error: null,
      webhookUrl: input.webhookUrl || null,
      credits: input.credits ?? kind.cost,
      progressDone: null,
      progressTotal: null,
      createdAt: now,
      startedAt: null,
      modifiedAt: now,
      finishedAt: null,
      claimedBy: null,
    };
    return { row, now };
  }

  return {
    kind,
    newId: (newId) => newId(kind.idPrefix),

    async create(input) {
      const { row, now } = newRow(input);
      const job = kind.jobKind ? { kind: kind.jobKind, maxAttempts: input.maxAttempts } : null;
      const ok = await resources.create({ ...row, now }, job);
      return ok ? row : null;
    },

    async createClaiming(input, claim) {
      const { row, now } = newRow(input);
      const job = kind.jobKind ? { kind: kind.jobKind, maxAttempts: input.maxAttempts } : null;
      const outcome = await resources.createClaiming({ ...row, now }, job, claim);
      return outcome === 'created' ? { row } : { refused: outcome };
    },

    async advance(id, step) {
      checkWebhookUrl(step.webhookUrl);
      if (!isActiveStatus(kind, step.to) || step.to === 'created') throw new Error(`${kind.name}: '${step.to}' is not a state it can move to`);
      return resources.advance(id, { from: step.from, to: step.to, details: JSON.stringify(step.details), webhookUrl: step.webhookUrl || null, job: step.job ?? null, now: clock.now() });
    },

    async amendResult(userId, id, result, label) {
      const row = await resources.amendResult(userId, kind.name, id, JSON.stringify(result), clock.now());
      if (!row) throw notFound(label);
      return row;
    },

    async fetch(userId, id, label) {
      const row = await resources.get(userId, kind.name, id);
      if (!row) throw notFound(label);
      return row;
    },

    async page(userId, limit, cursor, status) {
      const { items, token } = toPage(await resources.list(userId, kind.name, limit + 1, cursor, status), limit, byCreation);
      return token ? { items, token } : { items };
    },

    async remove(userId, id, label) {
      const row = await resources.remove(userId, kind.name, id);
      if (!row) throw notFound(label);
      return row;
    },

    async getById(id) {
      const row = await resources.getById(id);
      return row?.kind === kind.name ? row : undefined;
    },
    listInState: (status, limit) => resources.listInState(kind.name, status, limit),
    start: (id) => resources.start(id, clock.now()),
    async moveTo(id, status) {
      if (!isActiveStatus(kind, status) || status === 'created') throw new Error(`${kind.name}: '${status}' is not a state it can move to`);
      return resources.setStatus(id, status, clock.now());
    },
    progress: (id, done, total) => resources.progress(id, done, total, clock.now()),
    setDetails: (id, details) => resources.setDetails(id, JSON.stringify(details), clock.now()),

    async finish(id, result, status = 'done', then) {
      if (status === 'error' || !isFinalStatus(kind, status)) throw new Error(`${kind.name}: '${status}' is not a final state to finish in`);
      return (await resources.finish(id, { status, result: JSON.stringify(result), refund: refunds(status), ...(then ? { then } : {}), now: clock.now() })) !== undefined;
    },

    async fail(id, errorKind, description) {
      const error = JSON.stringify({ kind: errorKind, description });
      return (await resources.finish(id, { status: 'error', error, refund: true, now: clock.now() })) !== undefined;
    },

    async webhookBody(resourceId, userId) {
      const row = await resources.get(userId, kind.name, resourceId);
      if (!row) return null;
      return kind.webhookBody ? kind.webhookBody(row) : (kind.present(row) as object);
    },
  };
}
