/**
 * The module contract: a capability (animations, secrets, tools, ...) is a folder that exports
 * one `CapabilityModule`. src/modules.ts lists them; nothing else in the platform names one.
 * docs/architecture.md explains the layers and how to add a capability.
 */
import type { Handler } from 'hono';
import type { TSchema } from '@sinclair/typebox';
import type { ErrorCatalogue, ErrorKind } from '../errors.ts';
import type { Command } from './command.ts';
import type { Platform } from './platform.ts';
import type { AnyServiceKey, ModuleServices, Provision } from './service-key.ts';
import type { JobKind } from '../jobs/catalogue.ts';
import type { AuthUser } from './caller.ts';
import type { DataMigration } from '../db/data-migrations.ts';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Hono's typed context for the app's routes: what the edge's middleware sets (src/http/env.ts
 * re-exports it). Read one with `c.get('user')`: `c.var` builds an object of every variable
 * on each read.
 */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** Set by the auth middleware on every authenticated route. */
    user: AuthUser;
  };
}

export interface RouteParam {
  name: string;
  in: 'path' | 'query' | 'header';
  description: string;
  required?: boolean;
}

/**
 * One HTTP operation: the handler and everything the platform needs around it (auth, body
 * limit) and publishes about it (the OpenAPI operation, built from the same schemas that
 * validate the request). Paths use OpenAPI's `{name}` form; the platform mounts `:name`.
 */
export interface Route {
  method: Method;
  path: string;
  /** The router's pattern when it differs from `path` (e.g. `/media/*` for a key of several segments). */
  pattern?: string;
  summary: string;
  /** Longer prose for the reference (CommonMark), e.g. why an operation is deprecated. */
  description?: string;
  tag: string;
  /**
   * Who may call it: 'api-key' (the default: the caller's API key, rate limited per key),
   * or 'public' (no API key: the route checks its own capability, e.g. a signed URL or a
   * worker token, and says so in `security`).
   */
  access?: 'api-key' | 'public';
  /** The OpenAPI security requirement of a public route that has its own credential. */
  security?: readonly Record<string, readonly string[]>[];
  /**
   * Opts the route in for a browser's client key (`Authorization: Client-Key ...`): only for
   * the agent its `agentParam` path parameter names, and only from the key's origins. Every
   * route without it refuses a client key (403): default deny.
   */
  clientKey?: { agentParam: string };
  /** Largest request body in bytes; 'stream' when the handler bounds a streamed body itself. Default: MIMIC_MAX_BODY_BYTES. */
  bodyLimit?: number | 'stream';
  deprecated?: boolean;
  body?: TSchema;
  /** The JSON body may be left out (the handler reads none as `{}`): published as not required. */
  bodyOptional?: boolean;
  /** A body that is not JSON: its content type and a description (e.g. a multipart upload). */
  rawBody?: { contentType: string; description: string };
  params?: RouteParam[];
  ok: { status: number; schema?: TSchema; description: string; contentType?: string };
  errors?: ErrorKind[];
  handler: Handler<AppEnv>;
}

/** One accepted WebSocket, as a module sees it (the platform owns the connection, its limits and its heartbeat). */
export interface ClientSocket {
  /** Sends one text frame; false when the socket is no longer open (nothing is sent). */
  send(text: string): boolean;
  /** Sends one binary frame; false when the socket is no longer open. */
  sendBinary(data: Uint8Array): boolean;
  /** Bytes queued and not yet sent (back-pressure: a sender may drop what is late). */
  buffered(): number;
  close(code: number, reason: string): void;
  /** Called once when the socket closes, whoever closed it. */
  onClose(listener: () => void): void;
}

/** Who opened a socket: the same API key check as HTTP, with the `~<connection id>` suffix of the Authorization form kept apart. */
export interface SocketCaller {
  user: AuthUser;
  connectionId?: string;
}

/**
 * A WebSocket endpoint on the HTTP server (src/http/sockets.ts upgrades it). By default the
 * caller's API key comes in `Authorization`, or in the `authorization` query parameter
 * (browsers cannot set headers on a WebSocket), and the caller is a `SocketCaller`; a route
 * with its own credential (a signed URL, as compute workers use) checks it in `authorize`
 * instead. A browser's Origin must be one MIMIC_CORS_ORIGINS allows (or the public URL's).
 * Not in the OpenAPI document: the module's docs describe it.
 */
export interface SocketRoute<C = SocketCaller> {
  /** The exact path, e.g. `/notifications`. */
  path: string;
  /**
   * Accepts a browser's client key (`Client-Key ...`, docs/agents.md): its caller is scoped to
   * the key's agent and end user (`user.client`), and the page's Origin must be one of the
   * key's. Without it a client key is refused (403): default deny.
   */
  clientKey?: boolean;
  /** Largest message a client may send, in bytes (default 4096); a larger one closes the socket with 1009. */
  maxMessageBytes?: number;
  /** The route's own credential check, in place of the API key: its caller, or null (401). Never log the URL: it holds the credential. */
  authorize?(url: URL): Promise<C | null>;
  open(socket: ClientSocket, caller: C): void;
  /** A text message from the client; absent: messages are ignored. */
  message?(socket: ClientSocket, caller: C, text: string): void;
  /** A binary message; absent: a binary message closes the socket with 1003. */
  binary?(socket: ClientSocket, caller: C, data: Buffer): void;
}

/**
 * A resource kind, as its lifecycle (src/resources/lifecycle.ts) offers it: its final states
 * send webhooks (`<kind.name>.<status>`), and the dispatcher asks it for the body (for
 * animations, exactly the GET record; null when the resource is gone).
 */
export interface WebhookResource {
  readonly kind: { readonly name: string };
  webhookBody(resourceId: string, userId: string): Promise<object | null>;
}

/** A module's settings: read from the environment once at start, validated, documented. */
export interface ConfigSection<S> {
  /** Each variable with its default, for docs and `--help`. */
  variables: { name: string; default: string; description: string }[];
  /** Throws ConfigurationError on a bad value. */
  load(env: Record<string, string | undefined>): S;
}

/** What a module contributes once it is built on the platform. */
export interface ModuleInstance {
  routes?: Route[];
  /** WebSocket endpoints on the same server (src/http/sockets.ts). */
  sockets?: SocketRoute<unknown>[];
  /** Job kinds (src/jobs/catalogue.ts) the platform's one job runner runs. */
  jobs?: JobKind[];
  /** Its resource kinds' lifecycles: webhooks of `<kind>.<status>` ask them for the body. */
  resources?: WebhookResource[];
  /** The services its module declared it `provides`, each as `provide(KEY, value)`. */
  provides?: readonly Provision[];
  /**
   * Code migrations of stored rows that need the running platform (the vault's decrypted
   * values): each runs once, in module order, after the vault is ready and before the
   * server listens (src/db/data-migrations.ts).
   */
  dataMigrations?: DataMigration[];
  /** Started after the server listens, stopped before the store closes; the service does not wait for a promise it returns (a test may). */
  start?(): void | Promise<void>;
  stop?(): Promise<void>;
  /**
   * Background work that carries the jobs' results out (the webhook deliveries): stopped at
   * shutdown after the job runner has finished its jobs, so what they queued still goes out.
   */
  drain?(): Promise<void>;
}

/**
 * What a module is given of the others: the services it declared (`get`, `find`), and every
 * module's resource kinds (`ModuleInstance.resources`). These are known only once every module
 * is built: read them when they are used (a webhook is sent), not in `create`.
 */
export interface ModuleContext<Needs extends AnyServiceKey = never, Uses extends AnyServiceKey = never> extends ModuleServices<Needs, Uses> {
  resources(): readonly WebhookResource[];
}

export interface CapabilityModule<
  S = unknown,
  I extends ModuleInstance = ModuleInstance,
  N extends string = string,
  Needs extends AnyServiceKey = AnyServiceKey,
  Uses extends AnyServiceKey = AnyServiceKey,
> {
  name: N;
  /** Operator commands (`npm run -s mimic -- <group> <verb>`), keyed by their words. */
  commands?: Record<string, Command>;
  config?: ConfigSection<S>;
  /** The error kinds only this module throws, with their statuses (its src/<name>/errors.ts), merged into the one catalogue at start. */
  errors?: ErrorCatalogue;
  /** Services of other modules it cannot work without: the service refuses to start when no listed module provides one. */
  needs?: readonly Needs[];
  /** Services of other modules it uses when a listed module provides them. */
  uses?: readonly Uses[];
  /** Services its instance offers other modules (`ModuleInstance.provides` gives their values). */
  provides?: readonly AnyServiceKey[];
  /**
   * Builds the module's part of the running service. The modules are created providers first
   * (src/platform/order.ts), whatever their order in src/modules.ts.
   */
  create(platform: Platform, settings: S, services: ModuleContext<Needs, Uses>): I;
}

/** Declares a module with its settings type checked against its config section, and `services` typed by its `needs` and `uses`. */
export const defineModule = <const N extends string, S, I extends ModuleInstance, Needs extends AnyServiceKey = never, Uses extends AnyServiceKey = never>(
  m: CapabilityModule<S, I, N, Needs, Uses>,
): CapabilityModule<S, I, N, Needs, Uses> => m;
