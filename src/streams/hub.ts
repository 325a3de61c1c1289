/**
 * The live streams of this API process: each one a werift peer (src/streams/peer.ts) and a
 * render session of the `StreamRenderer`, held in memory. A stream is sticky to the process
 * that created it (docs/streams.md); nothing of it is in SQLite except the credits its speech
 * is charged. Every verb here takes the caller's user id and the stream id; another user's
 * stream is "not found", a wrong session is a SessionError.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { ApiError, RenderError } from '../errors.ts';
import type { Clock, IdFactory } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { StreamEvent, StreamRenderer, StreamRenderSession, StreamSpeech } from '../compute/stream.ts';
import type { BackgroundInput } from '../compute/interface.ts';
import { inputFile, type InputFileDeps } from '../media/input-file.ts';
import type { VoiceCatalogue } from '../voices/catalogue.ts';
import type { UserStore } from '../users/store.ts';
import { chooseVoice } from '../speaking/voice.ts';
import { SpeakingFailure } from '../speaking/speech.ts';
import type { SpeakingVoice } from '../speaking/records.ts';
import { SECONDS_PER_CREDIT, creditsForSeconds, estimateSpeechSeconds, spokenText } from '../speaking/credits.ts';
import { createStreamPeer, type CompatibilityMode, type IceCandidate, type StreamPeer } from './peer.ts';
import type { StreamSettings } from './settings.ts';
import { createStreamLimits } from './limits.ts';
import type { StreamSource, StreamSpeaker } from './interface.ts';

/** How long closing a stream waits for its peer and render session before it moves on. */
const CLOSE_WAIT_MS = 5_000;
/**
 * How long creating a stream waits for the renderer's preparation (the photo's face search,
 * the rig, the render process) before it answers anyway: a prepared photo (cached by content)
 * is ready well within it, and its errors are the create's 400; a new photo keeps preparing
 * while the client connects, and a failure then is `stream/error` on the data channel.
 */
const PREPARE_WAIT_MS = 250;
/** After a late preparation failure, how long the stream stays for its stream/error to reach the client. */
const FAILED_LINGER_MS = 1_000;
import { audioPiece, sentences, speakSentence, trimLeadingSilence, type SpeechPiece } from './speech.ts';
import type { StreamScriptBody } from '../schemas/streams.ts';

export const DEFAULT_SESSION_TIMEOUT_S = 300;
const MAX_PICTURE_BYTES = 10 * 1024 * 1024;
/** Ended streams remembered per owner, and owners remembered, so a late DELETE of one is a success (bounded: oldest forgotten first). */
const ENDED_PER_OWNER = 64;
const ENDED_OWNERS = 4_096;

export interface HubDeps {
  settings: StreamSettings;
  /** Undefined: this build has no stream renderer, and creating a stream is a 503. */
  renderer: StreamRenderer | undefined;
  voices: VoiceCatalogue | undefined;
  users: Pick<UserStore, 'get' | 'addCredits'>;
  input: InputFileDeps;
  /** Scratch folders of the streams live under it (removed when a stream closes). */
  workRoot: string;
  clock: Clock;
  newId: IdFactory;
  log: Logger;
}

export interface CreateOptions {
  warmup: boolean;
  fluent: boolean;
  timeoutS: number;
  compatibility: CompatibilityMode;
}

interface LiveStream {
  id: string;
  userId: string;
  sessionId: string;
  source: StreamSource;
  opts: CreateOptions;
  peer: StreamPeer;
  /** Set once the renderer's preparation is done; `opening` settles then (undefined: it failed and the stream is closing). */
  session: StreamRenderSession | undefined;
  opening: Promise<StreamRenderSession | undefined>;
  workDir: string;
  state: 'offered' | 'connected' | 'closed';
  /** Settles when the SDP answer being applied is done (whether it worked or not). */
  answering: Promise<void> | undefined;
  idle: NodeJS.Timeout | undefined;
  /** Bumped by an interrupt: sentences synthesised for an older generation are dropped. */
  generation: number;
  /** Synthesis runs one piece at a time, in order. */
  chain: Promise<void>;
  /** Scripts handed to the renderer and not yet done. */
  speaking: Set<string>;
  /** Scripts whose speech failed: their later pieces are dropped. */
  failed: Set<string>;
  abort: AbortController;
  /** Speech heard on this stream so far, and the credits charged for it (one per started SECONDS_PER_CREDIT s of the total). */
  spokenMs: number;
  charged: number;
}

export const SESSION_ERROR = 'missing or invalid session_id';

export interface StreamStats {
  streams: number;
  timers: number;
  channels: number;
  reserved: number;
}

/** What is kept of a stream once it has closed: enough to tell its owner's late DELETE from another user's. */
interface EndedStream {
  sessionId: string;
  agentId: string | undefined;
}

export function createStreamService(deps: HubDeps) {
  const streams = new Map<string, LiveStream>();
  /**
   * Recently ended streams, by owner then stream id (both in insertion order, oldest first).
   * The agents SDK closes its peer first and DELETEs after; the stream has already ended
   * ("peer connection failed"), and its owner's DELETE must still succeed.
   */
  const ended = new Map<string, Map<string, EndedStream>>();
  /** Remote ICE candidates the policy refused, all streams of this process together. */
  let iceRefused = 0;
  const limits = createStreamLimits(deps.settings, {
    open: () => streams.size,
    openOf: (userId) => [...streams.values()].filter((s) => s.userId === userId).length,
  });

  const send = (s: LiveStream, subject: string, payload?: unknown): void => {
    if (s.state === 'closed') return;
    s.peer.send(payload === undefined ? subject : `${subject}:${JSON.stringify(payload)}`);
  };

  function armIdle(s: LiveStream): void {
    if (s.idle) clearTimeout(s.idle);
    if (s.state === 'closed') return;
    s.idle = setTimeout(() => {
      s.idle = undefined;
      // Speech still playing is activity: wait for its end.
      if (s.speaking.size > 0) armIdle(s);
      else void close(s, 'timeout');
    }, s.opts.timeoutS * 1000);
    s.idle.unref?.();
  }

  async function close(s: LiveStream, reason: string): Promise<void> {
    if (s.state === 'closed') return;
    s.state = 'closed';
    streams.delete(s.id);
    remember(s);
    if (s.idle) clearTimeout(s.idle);
    s.idle = undefined;
    s.abort.abort();
    s.generation++;
    deps.log.info('stream closed', { stream_id: s.id, reason });
    // A peer or a render session that never answers must not hold a DELETE or a shutdown: they get CLOSE_WAIT_MS.
    const ended = await Promise.race([Promise.allSettled([s.session?.close(), s.peer.close()]).then(() => true), delay(CLOSE_WAIT_MS).then(() => false)]);
    if (!ended) deps.log.warn('stream teardown still running; left behind', { stream_id: s.id, wait_ms: CLOSE_WAIT_MS });
    await rm(s.workDir, { recursive: true, force: true });
  }

  function remember(s: LiveStream): void {
    let mine = ended.get(s.userId);
    if (mine) ended.delete(s.userId);
    else mine = new Map();
    ended.set(s.userId, mine);
    mine.set(s.id, { sessionId: s.sessionId, agentId: s.source.agentId });
    if (mine.size > ENDED_PER_OWNER) mine.delete(mine.keys().next().value!);
    if (ended.size > ENDED_OWNERS) ended.delete(ended.keys().next().value!);
  }

  /**
   * Charges the speech the client heard, per streamed second: the stream's heard time adds up,
   * and a credit is taken as each started SECONDS_PER_CREDIT s of it begins (the clips' rate; two
   * 3 s scripts cost one credit). A short balance gives what is left.
   */
  async function charge(s: LiveStream, spokenMs: number): Promise<void> {
    if (spokenMs <= 0) return;
    s.spokenMs += spokenMs;
    const credits = creditsForSeconds(s.spokenMs / 1000) - s.charged;
    if (credits <= 0) return;
    s.charged += credits;
    const change = await deps.users.addCredits(s.userId, -credits);
    if (change.status === 'insufficient' && change.credits > 0) await deps.users.addCredits(s.userId, -change.credits);
  }

  function onEvent(s: LiveStream, e: StreamEvent): void {
    // Speech heard is paid for even when the stream was closed under it (DELETE, timeout, the peer leaving).
    if (e.type === 'done') charge(s, e.spokenMs).catch((err) => deps.log.error('stream credits not charged', { stream_id: s.id, error: String(err) }));
    if (s.state === 'closed') return;
    switch (e.type) {
      case 'ready':
        send(s, 'stream/ready');
        return;
      case 'started':
        send(s, 'stream/started', { metadata: { videoId: e.videoId } });
        return;
      case 'done':
        s.speaking.delete(e.videoId);
        send(s, 'stream/done', { metadata: { videoId: e.videoId }, ...(e.interrupted ? { interrupted: true } : {}) });
        armIdle(s);
        return;
      case 'error':
        send(s, 'stream/error', { kind: e.kind, description: e.description, ...(e.videoId ? { metadata: { videoId: e.videoId } } : {}) });
        void close(s, `renderer error ${e.kind}`);
        return;
    }
  }

  function onMessage(s: LiveStream, text: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (msg && typeof msg === 'object' && (msg as { type?: unknown }).type === 'stream/interrupt') interrupt(s);
  }

  function interrupt(s: LiveStream): void {
    s.generation++;
    // The renderer empties its queue: only the script playing now hears a done (deleting it twice is harmless).
    s.speaking.clear();
    s.session?.interrupt();
    // Pieces not yet handed over are dropped; scripts whose last piece never reached the renderer end here.
    armIdle(s);
  }

  async function pictureOf(userId: string, source: StreamSource, workDir: string): Promise<string> {
    if (source.sourcePath) return source.sourcePath;
    return fetchPicture(userId, source.sourceUrl, workDir, 'source', 'source_url', 'the picture');
  }

  /** The picture behind the person: fetched once, here, when the stream opens (the renderer scales it to the frame). */
  async function backgroundOf(userId: string, source: StreamSource, workDir: string): Promise<BackgroundInput | undefined> {
    if (source.backgroundUrl === undefined) return source.background;
    return { kind: 'image', path: await fetchPicture(userId, source.backgroundUrl, workDir, 'background', 'background.source_url', 'the background picture') };
  }

  function fetchPicture(userId: string, url: string, workDir: string, name: string, field: string, what: string): Promise<string> {
    const ext = /\.jpe?g(?:[?#]|$)/i.test(url) ? '.jpg' : '.png';
    return inputFile(deps.input, {
      url, userId, workDir, fileName: `${name}${ext}`, maxBytes: MAX_PICTURE_BYTES,
      accept: (t) => t === '' || /^(?:image\/|application\/octet-stream)/i.test(t),
      missing: () => new ApiError('BadRequestError', `Invalid request body: ${field} names an object that does not exist in your media store`),
      tooLarge: () => new ApiError('InvalidFileSizeError', `${what[0]!.toUpperCase()}${what.slice(1)} is larger than the limit of ${MAX_PICTURE_BYTES} bytes`),
      failed: (message) => new ApiError('BadRequestError', `Could not load ${what}: ${message}`),
    });
  }

  const renderFailure = (err: unknown): unknown => {
    if (!(err instanceof RenderError)) return err;
    if (err.kind === 'FaceError' || err.kind === 'InvalidFaceError') return new ApiError('InvalidFaceError', err.description);
    if (err.kind === 'UnknownError') return err;
    return new ApiError('BadRequestError', err.description);
  };

  /** The user's open stream, else 404 (unknown, closed and other users' streams alike). */
  function find(userId: string, streamId: string, agentId?: string): LiveStream {
    const s = streams.get(streamId);
    if (!s || s.userId !== userId || (agentId !== undefined && s.source.agentId !== agentId)) throw new ApiError('NotFoundError', 'stream not found');
    return s;
  }

  /** The stream, after its session: a missing or different session_id is the SessionError the SDK matches. */
  function withSession(userId: string, streamId: string, sessionId: unknown, agentId?: string): LiveStream {
    const s = find(userId, streamId, agentId);
    if (typeof sessionId !== 'string' || !sameSecret(sessionId, s.sessionId)) throw new ApiError('SessionError', SESSION_ERROR);
    return s;
  }

  /** Hands a synthesised piece to the renderer unless an interrupt or close came first. */
  function hand(s: LiveStream, generation: number, videoId: string, piece: SpeechPiece, last: boolean): void {
    if (s.state === 'closed' || generation !== s.generation || !s.session || s.failed.has(videoId)) return;
    s.speaking.add(videoId);
    const speech: StreamSpeech = { videoId, pcm: piece.pcm, sampleRate: piece.sampleRate, cues: piece.cues, last };
    s.session.speak(speech);
  }

  /**
   * `hand`, once media can flow: speech posted after the SDP answer but before ICE and DTLS are
   * up is held (synthesised meanwhile), not rendered into a connection that drops its packets.
   */
  async function handWhenUp(s: LiveStream, generation: number, videoId: string, piece: SpeechPiece, last: boolean): Promise<void> {
    await s.peer.connected();
    await s.opening;
    hand(s, generation, videoId, piece, last);
  }

  /** Queues one piece of work on the stream's synthesis chain; a failure becomes stream/error (the stream goes on). */
  function enqueue(s: LiveStream, videoId: string, work: () => Promise<void>): void {
    s.chain = s.chain.then(() => (s.failed.has(videoId) || s.state === 'closed' ? undefined : work())).catch((err: unknown) => {
      if (s.state === 'closed' || s.failed.has(videoId)) return;
      const known = err instanceof SpeakingFailure || err instanceof ApiError;
      if (!known) deps.log.error('stream speech failed', { stream_id: s.id, error: String(err) });
      send(s, 'stream/error', { kind: known ? err.kind : 'TextToSpeechError', description: known ? err.description : 'The speech could not be synthesised', metadata: { videoId } });
      // A script the renderer has begun hears its end (its stream/done follows what played); the rest of it is dropped.
      if (s.speaking.has(videoId)) hand(s, s.generation, videoId, { pcm: new Int16Array(0), sampleRate: 16_000, cues: [] }, true);
      s.failed.add(videoId);
    });
  }

  /** Applies the browser's SDP answer and starts the session's media. */
  async function applyAnswer(s: LiveStream, sdp: string): Promise<{ status: 'success' }> {
    let codec;
    try {
      codec = await s.peer.answer(sdp);
    } catch {
      throw new ApiError('BadRequestError', 'Invalid request body: answer.sdp is not an SDP answer to this stream\'s offer', [{ field: 'answer.sdp', message: 'is not an answer to the offer' }]);
    }
    if ((s.state as LiveStream['state']) === 'closed') throw new ApiError('NotFoundError', 'stream not found');
    s.state = 'connected';
    armIdle(s);
    // The renderer starts when media can flow: its first keyframe must not be dropped (the picture would wait 2 s for the next).
    void s.peer.connected().then(async (up) => {
      if (!up || s.state !== 'connected') return;
      // The photo may still be preparing (a new one): media starts when both are ready.
      const session = await s.opening;
      if (!session || s.state !== 'connected') return;
      return session.start({ codec, fluent: s.opts.fluent, warmup: s.opts.warmup });
    }).catch((err: unknown) => {
      deps.log.error('stream did not start', { stream_id: s.id, error: String(err) });
      send(s, 'stream/error', { kind: 'UnknownError', description: 'The stream could not start' });
      void close(s, 'start failed');
    });
    return { status: 'success' as const };
  }

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
      void s.peer.connected().then(() => delay(FAILED_LINGER_MS)).then(() => close(s, 'preparation failed'));
      return undefined;
    }
  }

  async function voiceFor(s: LiveStream, script: Extract<StreamScriptBody, { type: 'text' }>): Promise<SpeakingVoice> {
    const asked = script.provider ? { type: script.provider.type, voice_id: script.provider.voice_id } : s.source.voice ? { type: s.source.voice.type, voice_id: s.source.voice.voiceId } : undefined;
    if (!asked) throw new ApiError('BadRequestError', 'Invalid request body: script.provider is required (this stream has no voice of its own)', [{ field: 'script.provider', message: 'is required' }]);
    return chooseVoice(deps.voices, asked, undefined);
  }

  async function requireCredits(userId: string): Promise<void> {
    const user = await deps.users.get(userId);
    if (!user || user.credits < 1) throw new ApiError('InsufficientCreditsError', `Not enough credits: speech on a stream costs one credit per started ${SECONDS_PER_CREDIT} s, charged as it is streamed`);
  }

  return {
    /** Checks the stream and its session before the body's other fields (so a missing session_id is a SessionError). */
    authorize(userId: string, streamId: string, sessionId: unknown, agentId?: string): void {
      withSession(userId, streamId, sessionId, agentId);
    },

    async create(userId: string, source: () => Promise<StreamSource>, opts: CreateOptions) {
      const renderer = deps.renderer;
      if (!renderer) throw new ApiError('ServiceUnavailableError', 'Live streams are not available on this server: it has no stream renderer');
      const release = limits.reserve(userId);
      let peer: StreamPeer | undefined;
      let session: StreamRenderSession | undefined;
      let opening: Promise<StreamRenderSession> | undefined;
      let workDir: string | undefined;
      try {
        const src = await source();
        await mkdir(deps.workRoot, { recursive: true });
        workDir = await mkdtemp(join(deps.workRoot, 'strm-'));
        const sourcePath = await pictureOf(userId, src, workDir);
        const background = await backgroundOf(userId, src, workDir);
        const id = deps.newId('strm');
        const sessionId = `sess_${randomBytes(24).toString('base64url')}`;
        const holder: { s?: LiveStream } = {};
        peer = createStreamPeer(
          { iceServers: deps.settings.iceServers, icePolicy: deps.settings.icePolicy, compatibility: opts.compatibility, gatherTimeoutMs: deps.settings.gatherTimeoutMs, ...(deps.settings.iceAddress ? { iceAddress: deps.settings.iceAddress } : {}) },
          { message: (text) => holder.s && onMessage(holder.s, text), failed: () => holder.s && void close(holder.s, 'peer connection failed'), refused: (reasons, count) => deps.log.info('ice candidates refused', { stream_id: id, reasons, refused_stream: count, refused_total: (iceRefused += Object.values(reasons).reduce((a, b) => a + b, 0)) }) },
        );
        // The renderer prepares (face search, rig, render process) while the peer gathers and the client connects.
        opening = renderer.open(
          { streamId: id, sourcePath, ...(src.face ? { face: src.face } : {}), stitch: src.stitch, ...(background ? { background } : {}), seed: id, workDir },
          peer.sink,
          (e) => holder.s && onEvent(holder.s, e),
        );
        opening.then((opened) => (session = opened), () => undefined);
        const [sdp, early] = await Promise.all([peer.offer(), settledWithin(opening, PREPARE_WAIT_MS)]);
        if (early && !early.ok) throw renderFailure(early.error);
        const s: LiveStream = {
          id, userId, sessionId, source: src, opts, peer, session, opening: Promise.resolve(undefined), workDir, state: 'offered', answering: undefined, idle: undefined, spokenMs: 0, charged: 0,
          generation: 0, chain: Promise.resolve(), speaking: new Set(), failed: new Set(), abort: new AbortController(),
        };
        s.opening = early ? Promise.resolve(session) : prepared(s, opening);
        holder.s = s;
        streams.set(id, s);
        armIdle(s);
        return {
          id,
          session_id: sessionId,
          offer: { type: 'offer' as const, sdp },
          jsep: { type: 'offer' as const, sdp },
          ice_servers: deps.settings.iceServers,
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

    async answer(userId: string, streamId: string, sessionId: unknown, sdp: string, agentId?: string) {
      const s = withSession(userId, streamId, sessionId, agentId);
      if (s.state !== 'offered') throw new ApiError('ConflictError', 'This stream already has its answer');
      const applied = applyAnswer(s, sdp);
      s.answering = applied.then(
        () => undefined,
        () => undefined,
      );
      return applied;
    },

    async ice(userId: string, streamId: string, sessionId: unknown, candidate: IceCandidate | null, agentId?: string) {
      const s = withSession(userId, streamId, sessionId, agentId);
      armIdle(s);
      try {
        await s.peer.addCandidate(candidate);
      } catch {
        throw new ApiError('BadRequestError', 'Invalid request body: candidate is not an ICE candidate of this stream', [{ field: 'candidate', message: 'is not a candidate line' }]);
      }
      return { status: 'success' as const };
    },

    async speak(userId: string, streamId: string, sessionId: unknown, script: StreamScriptBody, agentId?: string) {
      const s = withSession(userId, streamId, sessionId, agentId);
      // A script racing the client's own SDP answer (both in flight) waits for the answer.
      if (s.state === 'offered' && s.answering) await s.answering;
      if (s.state !== 'connected') throw new ApiError('ConflictError', 'This stream is not connected yet: post the SDP answer first (…/sdp)');
      await requireCredits(userId);
      armIdle(s);
      const videoId = deps.newId('vid');
      const generation = s.generation;
      let duration: number;
      if (script.type === 'text') {
        const ssml = script.ssml === true || script.ssml === 'true';
        const parts = sentences(spokenText(script.input, ssml));
        if (parts.length === 0) throw new ApiError('BadRequestError', 'Invalid request body: script.input has nothing to say', [{ field: 'script.input', message: 'has nothing to say' }]);
        const voice = await voiceFor(s, script);
        if (!deps.voices) throw new ApiError('ServiceUnavailableError', 'No voice can speak here: text scripts are not available on this server');
        duration = Math.round(estimateSpeechSeconds(script.input, ssml) * 1000) / 1000;
        // Plain text is spoken sentence by sentence; SSML as one piece (its tags may span sentences).
        const pieces = ssml ? [script.input] : parts;
        pieces.forEach((text, i) =>
          enqueue(s, videoId, async () => {
            if (generation !== s.generation) return;
            const piece = await speakSentence(deps.voices, voice, text, { ssml, rate: script.provider?.voice_config?.rate, signal: s.abort.signal });
            await handWhenUp(s, generation, videoId, i === 0 ? trimLeadingSilence(piece) : piece, i === pieces.length - 1);
          }),
        );
      } else {
        const piece = await audioPiece({ ...deps.input, workDir: s.workDir }, userId, script.audio_url);
        duration = Math.round((piece.pcm.length / piece.sampleRate) * 1000) / 1000;
        enqueue(s, videoId, () => handWhenUp(s, generation, videoId, piece, true));
      }
      return { status: 'started' as const, duration, session_id: s.sessionId, video_id: videoId };
    },

    interrupt(userId: string, streamId: string, sessionId: unknown, agentId?: string) {
      interrupt(withSession(userId, streamId, sessionId, agentId));
      return { status: 'success' as const };
    },

    async remove(userId: string, streamId: string, sessionId: unknown, agentId?: string) {
      // Deleting what its owner already saw end is a success (idempotent); another user's stream stays "not found".
      const gone = streams.has(streamId) ? undefined : ended.get(userId)?.get(streamId);
      if (gone && (agentId === undefined || gone.agentId === agentId)) {
        if (typeof sessionId !== 'string' || !sameSecret(sessionId, gone.sessionId)) throw new ApiError('SessionError', SESSION_ERROR);
        return { status: 'success' as const };
      }
      await close(withSession(userId, streamId, sessionId, agentId), 'deleted');
      return { status: 'success' as const };
    },

    speaker(userId: string, streamId: string, sessionId: string, opts: { agentId?: string } = {}): StreamSpeaker {
      const s = withSession(userId, streamId, sessionId, opts.agentId);
      const videoId = deps.newId('vid');
      const generation = s.generation;
      let said = 0;
      let ended = false;
      return {
        videoId,
        say(sentence) {
          if (ended || s.state !== 'connected' || spokenText(sentence, false) === '') return;
          const first = said++ === 0;
          enqueue(s, videoId, async () => {
            if (generation !== s.generation) return;
            const voice = await voiceFor(s, { type: 'text', input: sentence });
            const piece = await speakSentence(deps.voices, voice, sentence, { ssml: false, signal: s.abort.signal });
            await handWhenUp(s, generation, videoId, first ? trimLeadingSilence(piece) : piece, false);
          });
        },
        end() {
          if (ended) return;
          ended = true;
          // The last piece is empty: the sentences went out as they came, and the renderer ends the answer after them.
          if (said > 0) enqueue(s, videoId, () => handWhenUp(s, generation, videoId, { pcm: new Int16Array(0), sampleRate: 16_000, cues: [] }, true));
        },
        send(subject, payload) {
          if (s.state === 'closed') return;
          s.peer.send(payload === undefined ? subject : `${subject}:${payload}`);
        },
      };
    },

    stats(): StreamStats {
      const all = [...streams.values()];
      return { streams: all.length, timers: all.filter((s) => s.idle !== undefined).length, channels: all.reduce((n, s) => n + s.peer.channels, 0), reserved: limits.reserved() };
    },

    async stop(): Promise<void> {
      await Promise.all([...streams.values()].map((s) => close(s, 'server stopping')));
    },
  };
}

export type StreamService = ReturnType<typeof createStreamService>;

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

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
