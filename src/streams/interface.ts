/**
 * What the streams module offers the capabilities listed after it (`platform.streams`):
 * talks, clips and agents each add their `/…/streams` routes with `streamRoutes`, giving
 * only how their stream's picture and voice are found; agent chat speaks its answers on an
 * agent stream with `speaker`.
 */
import type { TObject } from '@sinclair/typebox';
import type { Route } from '../platform/module.ts';
import type { AuthUser } from '../platform/caller.ts';
import type { BackgroundInput, FaceRequest } from '../compute/interface.ts';

/** A voice a stream speaks with when a script names none (the provider's type and voice id). */
export interface StreamVoice {
  type: string;
  voiceId: string;
}

/** What a variant's create body resolves to: the picture streamed and its defaults. */
export interface StreamSource {
  /** The picture: an https URL or a stored image (`<scheme>://…`), fetched by the streams module. */
  sourceUrl: string;
  /** A local file of the picture the variant already has (a built-in presenter's): used as it is, sourceUrl is not fetched. */
  sourcePath?: string;
  face?: FaceRequest;
  stitch: boolean;
  background?: BackgroundInput;
  /**
   * A picture the person is shown on (cut out with a matte, the picture scaled to cover the
   * frame): an https URL or a stored image, fetched once when the stream opens, as `sourceUrl`.
   * It replaces `background`.
   */
  backgroundUrl?: string;
  voice?: StreamVoice;
  /** Agent streams: the agent they belong to (chat answers are spoken only on its own streams). */
  agentId?: string;
}

export interface StreamVariant {
  /** The path prefix, e.g. `/talks/streams` or `/agents/{agentId}/streams`. */
  prefix: string;
  /** The OpenAPI tag of its routes. */
  tag: string;
  /** Its routes accept a browser's client key for the agent this path parameter names (Route.clientKey). */
  clientKey?: { agentParam: string };
  /** The create body's schema (src/streams/schemas.ts `streamCreateBody`: the variant's fields beside the shared options). */
  body: TObject;
  /**
   * Reads the create body (already validated against `body`) into a source; JsonError for
   * what is wrong (404 for another user's agent). `params` are the prefix's path parameters
   * (e.g. `agentId`); the request context itself stays out of the domain (layers test).
   */
  source(req: { user: AuthUser; params: Record<string, string> }, body: Record<string, unknown>): Promise<StreamSource>;
}

/** Speaks one answer on a stream, sentence by sentence, as a model produces it. */
export interface StreamSpeaker {
  /** The id the answer's `stream/started` and `stream/done` carry (`metadata.videoId`). */
  readonly videoId: string;
  /** Queues the next sentence (synthesised at once; spoken after the previous one). */
  say(sentence: string): void;
  /** No more sentences: `stream/done` follows the last one. An answer with no sentence ends at once. */
  end(): void;
  /** Sends `subject` or `subject:payload` on the stream's data channel (e.g. `chat/answer`). */
  send(subject: string, payload?: string): void;
}

export interface StreamHub {
  /** The routes of one variant: create, sdp, ice, speak, interrupt, delete. */
  streamRoutes(variant: StreamVariant): Route[];
  /**
   * A speaker on the user's open stream `streamId` whose session is `sessionId`, in this API
   * process or another (docs/streams-across-processes.md); the stream must belong to `agentId`
   * when given. JsonError NotFoundError (no such stream for this user) or SessionError (wrong session).
   */
  speaker(userId: string, streamId: string, sessionId: string, opts?: { agentId?: string }): Promise<StreamSpeaker>;
}
