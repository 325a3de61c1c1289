/**
 * A stream's speech: a text script synthesised sentence by sentence (the first sentence is
 * handed to the renderer before the next is synthesised), or an audio script fetched and
 * decoded to PCM. The voices are the clips' ones (src/voices/).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { ApiError } from '../errors.ts';
import { inputFile, type InputFileDeps } from '../media/input-file.ts';
import { runFfmpeg } from '../media/ffmpeg.ts';
import { AUDIO_LIMITS } from '../media/audio.ts';
import { rateOf, providerOf, SpeakingFailure } from '../speaking/speech.ts';
import type { SpeakingVoice } from '../speaking/records.ts';
import { isRefusal, type SpeakingVoices } from '../speaking/voices.ts';
import type { SpeechCue } from '../compute/interface.ts';

export interface SpeechPiece {
  pcm: Int16Array;
  sampleRate: number;
  cues: SpeechCue[];
}

/** Splits a text into sentences (each keeps its closing punctuation); a text with none is one sentence. */
export function sentences(text: string): string[] {
  const parts = text.replace(/\s+/g, ' ').trim().match(/[^.!?。！？]+(?:[.!?。！？]+["')\]]*|$)/g) ?? [];
  return parts.map((s) => s.trim()).filter((s) => /[\p{L}\p{N}]/u.test(s));
}

/** One sentence spoken by `voice`; a refused synthesis is a SpeakingFailure (TextToSpeechError). */
export async function speakSentence(voices: SpeakingVoices | undefined, voice: SpeakingVoice, text: string, opts: { ssml: boolean; rate?: string; signal: AbortSignal }): Promise<SpeechPiece> {
  const provider = providerOf(voices, voice.type);
  const rate = rateOf(opts.rate);
  try {
    const speech = await provider.synthesize({ text, voiceId: voice.voiceId, ssml: opts.ssml, ...(rate !== undefined ? { rate } : {}), signal: opts.signal });
    return {
      pcm: speech.pcm,
      sampleRate: speech.sampleRate,
      cues: speech.phonemes.map((p) => ({ phoneme: p.phoneme, alphabet: p.alphabet, startMs: p.startMs, endMs: p.endMs })),
    };
  } catch (err) {
    if (isRefusal(err)) throw new SpeakingFailure('TextToSpeechError', err.message);
    throw err;
  }
}

/** A 10 ms window quieter than this (RMS of 16-bit samples, about -50 dBFS) is silence before the speech. */
const LEAD_SILENCE_RMS = 100;
/** What is kept of the silence before the first sound: the onset's own ramp. */
const LEAD_KEEP_MS = 30;

/**
 * The piece without the silence its voice puts before the first word (Flite: 130 to 170 ms
 * of a pause phoneme), keeping LEAD_KEEP_MS, its cues moved with it: on a live stream that
 * silence is only a wait before the person hears anything. Applied to the first piece of a
 * script; the pauses between sentences are speech's own rhythm and stay.
 */
export function trimLeadingSilence(piece: SpeechPiece): SpeechPiece {
  const win = Math.max(1, Math.round(piece.sampleRate / 100));
  let onset = -1;
  for (let i = 0; i + win <= piece.pcm.length; i += win) {
    let sum = 0;
    for (let j = i; j < i + win; j++) sum += piece.pcm[j]! * piece.pcm[j]!;
    if (Math.sqrt(sum / win) >= LEAD_SILENCE_RMS) {
      onset = i;
      break;
    }
  }
  const cut = onset < 0 ? 0 : Math.max(0, onset - Math.round((LEAD_KEEP_MS * piece.sampleRate) / 1000));
  if (cut === 0) return piece;
  const cutMs = (cut * 1000) / piece.sampleRate;
  return {
    pcm: piece.pcm.slice(cut),
    sampleRate: piece.sampleRate,
    cues: piece.cues.filter((c) => c.endMs > cutMs).map((c) => ({ ...c, startMs: Math.max(0, c.startMs - cutMs), endMs: c.endMs - cutMs })),
  };
}

const DECODE_RATE = 24_000;

/** An audio script: fetched (or found in the owner's media store), held to the upload limits, decoded to mono PCM. */
export async function audioPiece(deps: InputFileDeps & { workDir: string }, userId: string, url: string): Promise<SpeechPiece> {
  const dir = await mkdtemp(join(deps.workDir, 'audio-'));
  try {
    const ext = extname(new URL(url.replace(/^[^:]+:/, 'https:')).pathname).toLowerCase() || '.wav';
    const path = await inputFile(deps, {
      url, userId, workDir: dir, fileName: `audio${ext}`,
      maxBytes: AUDIO_LIMITS.maxBytes, accept: (t) => t === '' || /^(?:audio\/|video\/mp4|application\/octet-stream)/i.test(t),
      missing: () => new ApiError('BadRequestError', 'Invalid request body: script.audio_url names an object that does not exist in your media store'),
      tooLarge: () => new ApiError('InvalidFileSizeError', `The audio is larger than the limit of ${AUDIO_LIMITS.maxBytes} bytes`),
      failed: (message) => new ApiError('BadRequestError', `Could not load the audio: ${message}`),
    });
    const max = String(AUDIO_LIMITS.maxSeconds);
    const { code, stdout } = await runFfmpeg(['-v', 'error', '-i', path, '-t', max, '-vn', '-ac', '1', '-ar', String(DECODE_RATE), '-f', 's16le', 'pipe:1'], { timeoutMs: 60_000 });
    if (code !== 0 || stdout.length < 2) throw new ApiError('BadRequestError', 'Invalid request body: script.audio_url names a file with no audio stream that decodes');
    const pcm = new Int16Array(stdout.buffer.slice(stdout.byteOffset, stdout.byteOffset + (stdout.length & ~1)));
    return { pcm, sampleRate: DECODE_RATE, cues: [] };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
