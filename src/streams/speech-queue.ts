/**
 * A stream's speech queue: scripts and agent answers are synthesised one piece at a time, in
 * order, and each piece is handed to the render session as soon as it is ready (the session
 * plays them in order, once its media has started). An interrupt drops what is not handed
 * over yet and empties the renderer's queue.
 */
import { ApiError } from '../errors.ts';
import type { IdFactory } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { StreamSpeech } from '../compute/stream.ts';
import type { InputFileDeps } from '../media/input-file.ts';
import type { SpeakingVoices } from '../speaking/voices.ts';
import { chooseVoice } from '../speaking/voice.ts';
import { SpeakingFailure } from '../speaking/speech.ts';
import type { SpeakingVoice } from '../speaking/records.ts';
import { estimateSpeechSeconds, spokenText } from '../speaking/credits.ts';
import type { StreamScriptBody } from './schemas.ts';
import { audioPiece, sentences, speakSentence, trimLeadingSilence, type SpeechPiece } from './speech.ts';
import type { StreamSpeaker } from './interface.ts';
import type { LiveStream } from './sessions.ts';
import type { ArmIdle } from './timeouts.ts';
import { send } from './events.ts';

export interface SpeechQueueDeps {
  voices: SpeakingVoices | undefined;
  input: InputFileDeps;
  newId: IdFactory;
  log: Logger;
  armIdle: ArmIdle;
}

/** The empty last piece: it ends a script whose other pieces went out already. */
const END_PIECE: SpeechPiece = { pcm: new Int16Array(0), sampleRate: 16_000, cues: [] };

export function createSpeechQueue(deps: SpeechQueueDeps) {
  /** Hands a synthesised piece to the renderer unless an interrupt or close came first. */
  function hand(s: LiveStream, generation: number, videoId: string, piece: SpeechPiece, last: boolean): void {
    if (s.state === 'closed' || generation !== s.generation || !s.session || s.failed.has(videoId)) return;
    s.speaking.add(videoId);
    const speech: StreamSpeech = { videoId, pcm: piece.pcm, sampleRate: piece.sampleRate, cues: piece.cues, last };
    s.session.speak(speech);
  }

  /**
   * `hand`, once the renderer has prepared the session (a new photo may still be preparing).
   * Speech handed before the peer is up waits in the session: its media, speech included,
   * starts only when media can flow (applyAnswer), so nothing is said into a dead connection.
   */
  async function handPrepared(s: LiveStream, generation: number, videoId: string, piece: SpeechPiece, last: boolean): Promise<void> {
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
      if (s.speaking.has(videoId)) hand(s, s.generation, videoId, END_PIECE, true);
      s.failed.add(videoId);
    });
  }

  async function voiceFor(s: LiveStream, script: Extract<StreamScriptBody, { type: 'text' }>): Promise<SpeakingVoice> {
    const asked = script.provider ? { type: script.provider.type, voice_id: script.provider.voice_id } : s.source.voice ? { type: s.source.voice.type, voice_id: s.source.voice.voiceId } : undefined;
    if (!asked) throw new ApiError('BadRequestError', 'Invalid request body: script.provider is required (this stream has no voice of its own)', [{ field: 'script.provider', message: 'is required' }]);
    return chooseVoice(deps.voices, asked, undefined);
  }

  return {
    /** Queues a script on a connected stream: its id and the length it is expected to play. */
    async speak(s: LiveStream, userId: string, script: StreamScriptBody) {
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
            await handPrepared(s, generation, videoId, i === 0 ? trimLeadingSilence(piece) : piece, i === pieces.length - 1);
          }),
        );
      } else {
        const piece = await audioPiece({ ...deps.input, workDir: s.workDir }, userId, script.audio_url);
        duration = Math.round((piece.pcm.length / piece.sampleRate) * 1000) / 1000;
        enqueue(s, videoId, () => handPrepared(s, generation, videoId, piece, true));
      }
      return { status: 'started' as const, duration, session_id: s.sessionId, video_id: videoId };
    },

    /** Speaks one answer on the stream sentence by sentence, as it is produced. */
    speaker(s: LiveStream): StreamSpeaker {
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
            await handPrepared(s, generation, videoId, first ? trimLeadingSilence(piece) : piece, false);
          });
        },
        end() {
          if (ended) return;
          ended = true;
          // The last piece is empty: the sentences went out as they came, and the renderer ends the answer after them.
          if (said > 0) enqueue(s, videoId, () => handPrepared(s, generation, videoId, END_PIECE, true));
        },
        send(subject, payload) {
          if (s.state === 'closed') return;
          s.peer.send(payload === undefined ? subject : `${subject}:${payload}`);
        },
      };
    },

    /** Barge-in: the script playing stops, and nothing queued before now is said. */
    interrupt(s: LiveStream): void {
      s.generation++;
      // The renderer empties its queue: only the script playing now hears a done (deleting it twice is harmless).
      s.speaking.clear();
      s.session?.interrupt();
      // Pieces not yet handed over are dropped; scripts whose last piece never reached the renderer end here.
      deps.armIdle(s);
    },
  };
}

export type SpeechQueue = ReturnType<typeof createSpeechQueue>;
