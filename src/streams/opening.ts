/**
 * Opening a stream: its pictures fetched, its peer's offer gathered while the renderer prepares
 * the face, then the client's SDP answer, after which the session's media starts once the
 * peer is up (its first keyframe must not be dropped).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { ApiError, RenderError } from '../errors.ts';
import type { IdFactory } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { StreamRenderer, StreamRenderSession } from '../compute/stream.ts';
import type { InputFileDeps } from '../media/input-file.ts';
import { createStreamPeer, type StreamPeer } from './peer.ts';
import type { StreamSettings } from './settings.ts';
import type { StreamSource } from './interface.ts';
import type { CreateOptions, LiveStream, Sessions } from './sessions.ts';
import type { Close } from './teardown.ts';
import type { ArmIdle } from './timeouts.ts';
import { send, type StreamEvents } from './events.ts';
import { streamPictures } from './pictures.ts';

/**
 * How long creating a stream waits for the renderer's preparation (the photo's face search,
 * the rig, the render process) before it answers anyway: a prepared photo (cached by content)
 * is ready well within it, and its errors are the create's 400; a new photo keeps preparing
 * while the client connects, and a failure then is `stream/error` on the data channel.
 */
const PREPARE_WAIT_MS = 250;
/** After a late preparation failure, how long the stream stays for its stream/error to reach the client. */
const FAILED_LINGER_MS = 1_000;

export interface OpeningDeps {
  settings: StreamSettings;
  /** Undefined: this build has no stream renderer, and creating a stream is a 503. */
  renderer: StreamRenderer | undefined;
  input: InputFileDeps;
  /** Scratch folders of the streams live under it (removed when a stream closes). */
  workRoot: string;
  newId: IdFactory;
  log: Logger;
  sessions: Sessions;
  events: StreamEvents;
  armIdle: ArmIdle;
  close: Close;
}

export function createOpening(deps: OpeningDeps) {
  const pictures = streamPictures(deps.input);
  /** Remote ICE candidates the policy refused, all streams of this process together. */
  let iceRefused = 0;

  /** The session once the renderer has prepared it; a failure after the create answered is stream/error, then the stream closes. */
  async function prepared(s: LiveStream, opening: Promise<StreamRenderSession>): Promise<StreamRenderSession | undefined> {
    try {
      const session = await opening;
      s.session = session;
      // Closed while preparing: nothing else will close this session.
      if (s.state === 'closed') {
        await session.close();
        return undefined;
      }
      return session;
    } catch (err) {
      const e = renderFailure(err);
      const known = e instanceof ApiError;
      if (!known) deps.log.error('stream preparation failed', { stream_id: s.id, error: String(err) });
      // Held by the peer until the client's data channel opens.
      send(s, 'stream/error', { kind: known ? e.kind : 'UnknownError', description: known ? e.description : 'The stream could not be prepared' });
      void s.peer.connected().then(() => delay(FAILED_LINGER_MS)).then(() => deps.close(s, 'preparation failed'));
      return undefined;
    }
  }

  return {
    /** Creates a stream of `source`: its offer, session and ICE servers for the client. */
    async open(userId: string, source: () => Promise<StreamSource>, opts: CreateOptions) {
      const { settings, renderer } = deps;
      if (!renderer) throw new ApiError('ServiceUnavailableError', 'Live streams are not available on this server: it has no stream renderer');
      const release = deps.sessions.reserve(userId, opts.client);
      let peer: StreamPeer | undefined;
      let session: StreamRenderSession | undefined;
      let opening: Promise<StreamRenderSession> | undefined;
      let workDir: string | undefined;
      try {
        const src = await source();
        await mkdir(deps.workRoot, { recursive: true });
        workDir = await mkdtemp(join(deps.workRoot, 'strm-'));
        const sourcePath = await pictures.pictureOf(userId, src, workDir);
        const background = await pictures.backgroundOf(userId, src, workDir);
        const id = deps.newId('strm');
        const sessionId = `sess_${randomBytes(24).toString('base64url')}`;
        const holder: { s?: LiveStream } = {};
        peer = createStreamPeer(
          { iceServers: settings.iceServers, icePolicy: settings.icePolicy, compatibility: opts.compatibility, gatherTimeoutMs: settings.gatherTimeoutMs, ...(settings.iceAddress ? { iceAddress: settings.iceAddress } : {}) },
          { message: (text) => holder.s && deps.events.onMessage(holder.s, text), failed: () => holder.s && void deps.close(holder.s, 'peer connection failed'), refused: (reasons, count) => deps.log.info('ice candidates refused', { stream_id: id, reasons, refused_stream: count, refused_total: (iceRefused += Object.values(reasons).reduce((a, b) => a + b, 0)) }) },
        );
        // The renderer prepares (face search, rig, render process) while the peer gathers and the client connects.
        opening = renderer.open(
          { streamId: id, sourcePath, ...(src.face ? { face: src.face } : {}), stitch: src.stitch, ...(background ? { background } : {}), seed: id, workDir },
          peer.sink,
          (e) => holder.s && deps.events.onEvent(holder.s, e),
        );
        opening.then((opened) => (session = opened), () => undefined);
        const [sdp, early] = await Promise.all([peer.offer(), settledWithin(opening, PREPARE_WAIT_MS)]);
        if (early && !early.ok) throw renderFailure(early.error);
        const s: LiveStream = {
          id, userId, sessionId, source: src, opts, peer, session, opening: Promise.resolve(undefined), workDir, state: 'offered', answering: undefined, idle: undefined, spokenMs: 0, charged: 0, mediaStarted: false,
          generation: 0, chain: Promise.resolve(), speaking: new Set(), failed: new Set(), abort: new AbortController(),
        };
        s.opening = early ? Promise.resolve(session) : prepared(s, opening);
        holder.s = s;
        deps.sessions.add(s);
        deps.armIdle(s);
        return {
          id,
          session_id: sessionId,
          offer: { type: 'offer' as const, sdp },
          jsep: { type: 'offer' as const, sdp },
          ice_servers: settings.iceServers,
          // Barge-in works on every stream (data channel and HTTP); the SDK sends its interrupt message when both are true.
          fluent: opts.fluent,
          interrupt_enabled: true,
        };
      } catch (err) {
        // A preparation still running is closed when it ends.
        void opening?.then((opened) => opened.close(), () => undefined);
        await Promise.allSettled([session?.close(), peer?.close()]);
        if (workDir) await rm(workDir, { recursive: true, force: true });
        throw err;
      } finally {
        release();
      }
    },

    /** Applies the browser's SDP answer and starts the session's media once the peer is up. */
    async answer(s: LiveStream, sdp: string): Promise<{ status: 'success' }> {
      let codec;
      try {
        codec = await s.peer.answer(sdp);
      } catch {
        throw new ApiError('BadRequestError', 'Invalid request body: answer.sdp is not an SDP answer to this stream\'s offer', [{ field: 'answer.sdp', message: 'is not an answer to the offer' }]);
      }
      if ((s.state as LiveStream['state']) === 'closed') throw new ApiError('NotFoundError', 'stream not found');
      s.state = 'connected';
      deps.armIdle(s);
      // The renderer starts when media can flow: its first keyframe must not be dropped (the picture would wait 2 s for the next).
      void s.peer.connected().then(async (up) => {
        if (!up || s.state !== 'connected') return;
        // The photo may still be preparing (a new one): media starts when both are ready.
        const session = await s.opening;
        if (!session || s.state !== 'connected') return;
        s.mediaStarted = true;
        return session.start({ codec, fluent: s.opts.fluent, warmup: s.opts.warmup });
      }).catch((err: unknown) => {
        deps.log.error('stream did not start', { stream_id: s.id, error: String(err) });
        send(s, 'stream/error', { kind: 'UnknownError', description: 'The stream could not start' });
        void deps.close(s, 'start failed');
      });
      return { status: 'success' as const };
    },
  };
}

/** A render error as the create answers it (the picture's faults are the client's 400s). */
function renderFailure(err: unknown): unknown {
  if (!(err instanceof RenderError)) return err;
  if (err.kind === 'FaceError' || err.kind === 'InvalidFaceError') return new ApiError('InvalidFaceError', err.description);
  if (err.kind === 'UnknownError') return err;
  return new ApiError('BadRequestError', err.description);
}

/** How `p` settled if it did within `ms`, else undefined (it goes on). */
async function settledWithin<T>(p: Promise<T>, ms: number): Promise<{ ok: true; value: T } | { ok: false; error: unknown } | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, ms, undefined)));
  try {
    return await Promise.race([p.then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error })), late]);
  } finally {
    clearTimeout(timer);
  }
}
