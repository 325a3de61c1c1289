import type { TSchema } from '@sinclair/typebox';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { defaultBackoff, type JobHandler, type JobKind } from '../jobs/catalogue.ts';
import type { MediaAccess } from '../media/index.ts';
import type { PageCursor } from '../pagination.ts';
import type { Route } from '../platform/module.ts';
import { isFinalStatus, resourceLifecycle, statesOf, type CreateInput, type Lifecycle, type ResourceKind } from './lifecycle.ts';
import { resourceRoutes } from './routes.ts';
import { resourceStoreOn } from './store-pg.ts';
import { type Claim, type ResourceRow, type ResourceStore } from './store.ts';

/** The types of a resource kind: the request as accepted, its working fields, what it produced, its record as GET shows it. */
export interface ResourceTypes {
  request: unknown;
  details: unknown;
  result: unknown;
  view: object;
}

/** A resource row read as its kind (the typed row reader's answer). */
export interface ResourceRecord<T extends ResourceTypes> {
  row: ResourceRow;
  id: string;
  userId: string;
  req: T['request'];
  details: T['details'];
  result: T['result'] | null;
}

/** What a resource kind declares once; `defineResource` makes the rest. */
export interface ResourceDeclaration {
  /** e.g. 'animation': the record's `object`, the webhook event prefix, the subject of its 404 ('Animation'). */
  name: string;
  /** e.g. 'anm': ids look like `anm_...`. */
  idPrefix: string;
  /** Credits charged at creation; a create may pass its own (a clip's length), the module its settings' (an avatar's). */
  cost: number;
  extraStates?: ResourceKind<unknown>['extraStates'];
  /** Its job: queued with each new record unless `atCreation` is false (a consent's waits for its upload). */
  job: {
    kind: string;
    atCreation?: boolean;
    /** One run longer than this is aborted and counts as a failed attempt. */
    timeLimitMs: number;
    /** The description of the `UnknownError` the record ends in when the job's attempts run out (refunded). */
    gaveUp: string;
  };
  /** Its list, get and delete routes. */
  http: {
    record: TSchema;
    list: TSchema;
    /** The plural, `<name>s` unless given: the list body's field, and each record's media folder (`animations/<id>/`). */
    many?: string;
    /** `/<many>` unless given. */
    path?: string;
    /** `<Many>` unless given. */
    tag?: string;
    /** What a delete removes besides the record, for its summary: 'its stored media' unless given. */
    removes?: string;
    /** The GET summary, when it says more than 'Get a <name>'. */
    getSummary?: string;
  };
}

/** What the platform gives every resource kind (the `Platform` has these fields). */
export interface ResourceHost {
  /** The database handle: the kit builds the one resource store of the host from it. */
  store: Database;
  clock: Clock;
  /** Its `enqueue` queues a new resource's job inside the resource store's transaction. */
  queue: Pick<JobQueue, 'cancelFor' | 'enqueue'>;
  media: Pick<MediaAccess, 'removePrefix'>;
  config: { worker: { maxAttempts: number } };
}

/** What a kind brings when it is built on the platform. */
export interface ResourceParts<T extends ResourceTypes> {
  /** The record as GET and the webhook show it. */
  present(record: ResourceRecord<T>): T['view'];
  /** Credits charged at creation, when the settings say (an avatar's); the declaration's otherwise. */
  cost?: number;
  /** What a delete removes besides the record, its job and its media folder (a clip's pending video). */
  onRemove?(record: ResourceRecord<T>): Promise<void>;
  /**
   * Whether a record in a final state will change no more, so that its live events end
   * (GET `<path>/{id}/events`); a final state is enough when not given. An avatar that is
   * `done` before its talking preview exists is not settled yet.
   */
  settled?(record: ResourceRecord<T>): boolean | Promise<boolean>;
}

/** A record as its live events see it: a version that changes with every change of its row, and whether it is settled. */
export interface ResourceSnapshot {
  version: string;
  settled: boolean;
  view: object;
}

/** A new record's input; the job's attempts are the platform's unless given. */
export type NewRecord = Omit<CreateInput, 'maxAttempts'> & { maxAttempts?: number };

/** A resource kind on the platform: its lifecycle, typed reads, the GET/list/DELETE verbs, their routes and its job. */
export interface Resource<T extends ResourceTypes> extends Lifecycle<T['view']> {
  read(row: ResourceRow): ResourceRecord<T>;
  create(input: NewRecord): Promise<ResourceRow | null>;
  createClaiming(input: NewRecord, claim: Claim): Promise<{ row: ResourceRow } | { refused: 'credits' | 'claimed' }>;
  /** The user's record, read; NotFoundError otherwise. */
  record(userId: string, id: string): Promise<ResourceRecord<T>>;
  /** GET `<path>/{id}`. */
  get(userId: string, id: string): Promise<T['view']>;
  /** GET `<path>`: a page of the user's records (in `status`, when given), newest first, as `{<many>: [...], token?}`. */
  list(userId: string, limit: number, cursor: PageCursor | null, status?: string): Promise<Record<string, unknown>>;
  /** The user's record as its live events see it; undefined once it is gone. */
  snapshot(userId: string, id: string): Promise<ResourceSnapshot | undefined>;
  /** DELETE `<path>/{id}`: the record (refunded when unfinished), its job, its media; the record as it was. */
  delete(userId: string, id: string): Promise<T['view']>;
  /** The routes in mounting order: `create`, list, the kind's own literal paths, get, its own paths under `{id}`, delete. */
  routes(create: Route, ...own: Route[]): Route[];
  /** The job kind: the platform's attempts, exponential backoff, and when they run out the record fails and is refunded. */
  job(handler: JobHandler): JobKind;
  /** The job to queue by `advance` (a consent's upload, an approved avatar). */
  readonly queued: { kind: string; maxAttempts: number };
}

export interface ResourceDefinition<T extends ResourceTypes> {
  readonly declaration: ResourceDeclaration;
  /** The typed row reader. */
  read(row: ResourceRow): ResourceRecord<T>;
  /** The bare lifecycle, without the platform (an operator command, a test). */
  lifecycle(resources: ResourceStore, clock: Clock, present: (record: ResourceRecord<T>) => T['view'], cost?: number): Lifecycle<T['view']>;
  /** The kind built on the platform. */
  on(host: ResourceHost, parts: ResourceParts<T>): Resource<T>;
}

const parse = (text: string): unknown => JSON.parse(text);

const hosted = new WeakMap<ResourceHost, ResourceStore>();
/**
 * The host's resource store, built once from its handle for every kind on it. Jobs are queued
 * through `host.queue.enqueue` at each call (a test may replace it on the running service).
 */
function resourceStoreOf(host: ResourceHost): ResourceStore {
  let store = hosted.get(host);
  if (!store) hosted.set(host, (store = resourceStoreOn(host.store, (input) => host.queue.enqueue(input))));
  return store;
}

/**
 * One declaration per resource kind (an animation, a clip, ...): its lifecycle
 * (src/resources/lifecycle.ts), typed row reader, GET/list/DELETE with their routes and
 * OpenAPI, and its job with the default policy. A kind then writes only its create verb,
 * its job's handler and what is truly its own.
 */
export function defineResource<T extends ResourceTypes>(declaration: ResourceDeclaration): ResourceDefinition<T> {
  const { name } = declaration;
  const capital = (word: string) => word[0]!.toUpperCase() + word.slice(1);
  const label = capital(name);
  const many = declaration.http.many ?? `${name}s`;
  const http = { path: `/${many}`, tag: capital(many), removes: 'its stored media', ...declaration.http, many };
  const read = (row: ResourceRow): ResourceRecord<T> => ({
    row,
    id: row.id,
    userId: row.userId,
    req: parse(row.request) as T['request'],
    details: parse(row.details) as T['details'],
    result: row.result ? (parse(row.result) as T['result']) : null,
  });
  const lifecycle: ResourceDefinition<T>['lifecycle'] = (resources, clock, present, cost = declaration.cost) =>
    resourceLifecycle<T['view']>(
      {
        name,
        idPrefix: declaration.idPrefix,
        cost,
        ...(declaration.job.atCreation === false ? {} : { jobKind: declaration.job.kind }),
        ...(declaration.extraStates ? { extraStates: declaration.extraStates } : {}),
        present: (row) => present(read(row)),
      },
      { resources, clock },
    );

  function on(host: ResourceHost, parts: ResourceParts<T>): Resource<T> {
    const life = lifecycle(resourceStoreOf(host), host.clock, parts.present, parts.cost);
    const maxAttempts = host.config.worker.maxAttempts;
    const present = (row: ResourceRow) => parts.present(read(row));
    const resource: Resource<T> = {
      ...life,
      read,
      create: (input) => life.create({ maxAttempts, ...input }),
      createClaiming: (input, claim) => life.createClaiming({ maxAttempts, ...input }, claim),
      record: async (userId, id) => read(await life.fetch(userId, id, label)),
      get: async (userId, id) => present(await life.fetch(userId, id, label)),
      async list(userId, limit, cursor, status) {
        const page = await life.page(userId, limit, cursor, status);
        return { [http.many]: page.items.map(present), ...(page.token ? { token: page.token } : {}) };
      },
      async snapshot(userId, id) {
        const row = await life.getById(id);
        if (!row || row.userId !== userId) return undefined;
        const record = read(row);
        // Every write of the lifecycle moves modified_at, but two in one millisecond would not: the columns that change say it.
        const version = [row.status, row.modifiedAt, row.progressDone, row.progressTotal, row.details, row.result, row.error, row.claimedBy].join('\u0000');
        const settled = isFinalStatus(life.kind, row.status) && ((await parts.settled?.(record)) ?? true);
        return { version, settled, view: parts.present(record) as object };
      },
      async delete(userId, id) {
        const record = read(await life.remove(userId, id, label));
        // A job that starts after this finds no record and ends; one that runs is stopped at its next lease renewal.
        await host.queue.cancelFor(id);
        await parts.onRemove?.(record);
        await host.media.removePrefix(userId, `${http.many}/${id}/`);
        return parts.present(record);
      },
      routes: (create, ...own) => resourceRoutes({ ...http, name, states: statesOf(life.kind) }, resource, create, own),
      job: (handler) => ({
        kind: declaration.job.kind,
        handler,
        maxAttempts,
        backoffMs: defaultBackoff,
        timeLimitMs: declaration.job.timeLimitMs,
        onExhausted: async (job) => {
          await life.fail(job.resourceId, 'UnknownError', declaration.job.gaveUp);
        },
      }),
      queued: { kind: declaration.job.kind, maxAttempts },
    };
    return resource;
  }

  return { declaration, read, lifecycle, on };
}
