import { inputFile } from '../media/input-file.ts';
import { mkdir, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { RenderError } from '../errors.ts';
import type { SpeechCue } from '../compute/interface.ts';
import { wavBytes } from '../compute/local/song.ts';
import { runFfmpeg } from '../media/ffmpeg.ts';
import { AUDIO_LIMITS, measureAudio } from '../media/audio.ts';
import { isRefusal, type SpeakingVoices, type Synthesiser, type SynthesisRequest } from './voices.ts';
import type { Config } from '../config.ts';
import type { GuardedClient } from '../egress/client.ts';
import type { MediaAccess } from '../media/index.ts';
import { HTTPS_AUDIO_CREDITS, SECONDS_PER_CREDIT } from './credits.ts';
import type { SpeakingVoice } from './records.ts';
import type { SpeakingScript } from './script.ts';
import type { Lifecycle } from '../resources/lifecycle.ts';
import type { PendingVideos } from './pending.ts';

/** What speaks a script: a clip or a talk (the script as requested, the voice fixed at creation, the owner). */
export interface Speaker {
  userId: string;
  req: { script: SpeakingScript };
  details: { voice: SpeakingVoice | null };
}
export interface SpeechDeps {
  /** The platform's voice catalogue; undefined: no voice can speak here. */
  voices: SpeakingVoices | undefined;
  config: Config;
  client: GuardedClient;
  media: MediaAccess;
}

/** The speech a face speaks: an audio file in the work folder, its phoneme cues, its length. */
export interface PreparedSpeech {
  path: string;
  contentType: string;
  cues: SpeechCue[];
  seconds: number;
}

/** A job failure that lies in the request (the voice refused, the audio is unusable): the clip ends in error. */
export class SpeakingFailure extends Error {
  constructor(readonly kind: string, readonly description: string) {
    super(description);
  }
}

const RATES: Record<string, number> = { 'x-slow': 0.5, slow: 0.75, medium: 1, fast: 1.25, 'x-fast': 1.5 };

/** `voice_config.rate` as a number relative to 1. */
export function rateOf(rate: string | undefined): number | undefined {
  if (rate === undefined) return undefined;
  const n = RATES[rate] ?? Number(rate);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** 16-bit mono WAV of the provider's samples. */
export const int16Wav = (pcm: Int16Array, sampleRate: number): Buffer => wavBytes({ sampleRate, samples: Float32Array.from(pcm, (s) => s / 32767) });

/** Speaks `request` with `provider` into `<workDir>/speech.wav` (16-bit PCM) with its phoneme cues. */
export async function speakToWav(provider: Synthesiser, request: SynthesisRequest, workDir: string): Promise<PreparedSpeech> {
  let speech;
  try {
    speech = await provider.synthesize(request);
  } catch (err) {
    if (isRefusal(err)) throw new SpeakingFailure('TextToSpeechError', err.message);
    throw err;
  }
  if (speech.pcm.length === 0) throw new SpeakingFailure('TextToSpeechError', 'The voice produced no sound for this script');
  const path = join(workDir, 'speech.wav');
  await writeFile(path, int16Wav(speech.pcm, speech.sampleRate));
  const cues = speech.phonemes.map((p) => ({ phoneme: p.phoneme, alphabet: p.alphabet, startMs: p.startMs, endMs: p.endMs }));
  return { path, contentType: 'audio/wav', cues, seconds: speech.durationMs / 1000 };
}

/** The provider of a voice fixed at creation; a SpeakingFailure when it is no longer there. */
export function providerOf(voices: SpeakingVoices | undefined, type: string): Synthesiser {
  const provider = voices?.providers.find((p) => p.type === type);
  if (!provider) throw new SpeakingFailure('TextToSpeechError', `The ${type} voice provider is no longer available on this server`);
  return provider;
}

function synthesize(deps: SpeechDeps, clip: Speaker, workDir: string, signal: AbortSignal): Promise<PreparedSpeech> {
  const { req, details } = clip;
  if (req.script.type !== 'text' || !details.voice) throw new Error('synthesize: not a text script');
  const rate = rateOf(req.script.provider?.voice_config?.rate);
  const request = { text: req.script.input, voiceId: details.voice.voiceId, ssml: req.script.ssml ?? false, ...(rate !== undefined ? { rate } : {}), signal };
  return speakToWav(providerOf(deps.voices, details.voice.type), request, workDir);
}

/** An audio script's file: in the media store, or fetched (held to the size and length limits). */
async function obtainAudio(deps: SpeechDeps, clip: Speaker, workDir: string): Promise<PreparedSpeech> {
  if (clip.req.script.type !== 'audio') throw new Error('obtainAudio: not an audio script');
  const url = clip.req.script.audio_url;
  const ext = extname(new URL(url.replace(/^[^:]+:/, 'https:')).pathname).toLowerCase() || '.wav';
  const stored = url.startsWith(`${deps.config.storageScheme}://`);
  // An https audio's length is unknown at creation: it was charged a flat rate, which bounds it.
  const maxSeconds = stored ? AUDIO_LIMITS.maxSeconds : HTTPS_AUDIO_CREDITS * SECONDS_PER_CREDIT;
  const path = await inputFile(deps, {
    url, userId: clip.userId, workDir, fileName: `audio-download${ext}`,
    maxBytes: AUDIO_LIMITS.maxBytes, accept: (t) => t === '' || /^(?:audio\/|video\/mp4|application\/octet-stream)/i.test(t),
    missing: () => new SpeakingFailure('AudioError', 'The audio no longer exists in your media store'),
    tooLarge: () => new SpeakingFailure('InvalidFileSizeError', `The audio is larger than the limit of ${AUDIO_LIMITS.maxBytes} bytes`),
    failed: (message) => new SpeakingFailure('AudioError', `Could not load the audio: ${message}`),
  });
  const seconds = await measureAudio(path);
  if (seconds === undefined || seconds <= 0) throw new SpeakingFailure('AudioError', 'The audio has no stream that decodes');
  if (seconds > maxSeconds) {
    throw new SpeakingFailure('InvalidAudioDurationError', `The audio is ${seconds.toFixed(1)} s long; an https audio may be at most ${maxSeconds} s (upload a longer one with POST /audios; at most ${AUDIO_LIMITS.maxSeconds} s)`);
  }
  const contentType = { '.mp3': 'audio/mpeg', '.wav': 'audio/wav', '.flac': 'audio/flac', '.m4a': 'audio/mp4', '.mp4': 'video/mp4' }[ext] ?? 'application/octet-stream';
  return { path, contentType, cues: [], seconds };
}

/** The clip's speech: synthesized from its text (off the event loop: the provider's job), or its audio. */
export const obtainSpeech = (deps: SpeechDeps, clip: Speaker, workDir: string, signal: AbortSignal): Promise<PreparedSpeech> =>
  clip.req.script.type === 'text' ? synthesize(deps, clip, workDir, signal) : obtainAudio(deps, clip, workDir);

/** A talk's `config.pad_audio`: the speech followed by `seconds` of silence, as a 16-bit WAV (the cues stand: the silence comes after them). */
async function padWithSilence(speech: PreparedSpeech, seconds: number, workDir: string): Promise<PreparedSpeech> {
  const path = join(workDir, 'speech-padded.wav');
  // The bundled ffmpeg's apad counts in samples only, so the rate is fixed first.
  const rate = 48_000;
  const args = ['-y', '-v', 'error', '-i', speech.path, '-af', `aresample=${rate},apad=pad_len=${Math.round(seconds * rate)}`, '-c:a', 'pcm_s16le', path];
  const { code, stderr } = await runFfmpeg(args, { timeoutMs: 5 * 60_000 });
  if (code !== 0) throw new Error(`padding the speech failed: ${stderr.trim().split('\n').at(-1) ?? ''}`);
  return { path, contentType: 'audio/wav', cues: speech.cues, seconds: (await measureAudio(path)) ?? speech.seconds + seconds };
}

/**
 * The speech of a clip or a talk, ready for its render: spoken (or fetched), kept in the
 * owner's media store as `<folder>/<id>/audio.<ext>`, noted in the record's details (a parked
 * job's later run reads them); the pending folder (reset when the render started) is where
 * the playlist goes.
 */
export async function prepareSpeech(
  deps: SpeechDeps & { lifecycle: Pick<Lifecycle<unknown>, 'setDetails'>; pending: Pick<PendingVideos, 'dir'> },
  record: Speaker & { id: string; details: { audioKey?: string; speechSec?: number } },
  folder: string,
  workDir: string,
  signal: AbortSignal,
  padSec = 0,
): Promise<{ speech: PreparedSpeech; previewDir: string }> {
  const spoken = await obtainSpeech(deps, record, workDir, signal);
  const speech = padSec > 0 ? await padWithSilence(spoken, padSec, workDir) : spoken;
  const audioKey = `${folder}/${record.id}/audio${extname(speech.path)}`;
  await deps.media.putFile(record.userId, audioKey, speech.path, speech.contentType);
  Object.assign(record.details, { audioKey, speechSec: Math.round(speech.seconds * 1000) / 1000 });
  await deps.lifecycle.setDetails(record.id, record.details);
  const previewDir = deps.pending.dir(record.id);
  await mkdir(previewDir, { recursive: true });
  return { speech, previewDir };
}
