/**
 * Speaks segments (text at a rate, or a pause) one after the other with an engine that can
 * speak one plain text, and joins the audio, the phonemes and the words on one time line.
 * Runs inside the voice worker (src/voices/worker.ts); pure apart from the engine it is given.
 */
import { SpeechError, type TimedPhoneme, type TimedWord } from './interface.ts';
import type { Segment } from './ssml.ts';

/** What an engine returns for one plain text: times relative to its own audio. */
export interface EngineSpeech {
  pcm: Int16Array;
  sampleRate: number;
  phonemes: TimedPhoneme[];
  words: TimedWord[];
}

export interface Engine {
  readonly sampleRate: number;
  /** Speaks one plain text at `rate` (1 = the voice's own); `stop()` true asks it to give up early. */
  speak(voice: string, text: string, rate: number, stop: () => boolean): EngineSpeech;
}

export interface ComposedSpeech {
  pcm: Int16Array;
  sampleRate: number;
  durationMs: number;
  phonemes: TimedPhoneme[];
  words: TimedWord[];
}

const shift = <T extends { startMs: number; endMs: number }>(items: T[], offsetMs: number): T[] =>
  offsetMs === 0 ? items : items.map((item) => ({ ...item, startMs: item.startMs + offsetMs, endMs: item.endMs + offsetMs }));

export function composeSpeech(engine: Engine, voice: string, segments: Segment[], stop: () => boolean): ComposedSpeech {
  const sampleRate = engine.sampleRate;
  const parts: Int16Array[] = [];
  const phonemes: TimedPhoneme[] = [];
  const words: TimedWord[] = [];
  let samples = 0;
  for (const segment of segments) {
    if (stop()) throw new SpeechError('aborted', 'the synthesis was aborted');
    const offsetMs = (samples / sampleRate) * 1000;
    if (segment.kind === 'pause') {
      const silence = new Int16Array(Math.round((segment.ms / 1000) * sampleRate));
      parts.push(silence);
      samples += silence.length;
      continue;
    }
    const spoken = engine.speak(voice, segment.text, segment.rate, stop);
    if (stop()) throw new SpeechError('aborted', 'the synthesis was aborted');
    parts.push(spoken.pcm);
    samples += spoken.pcm.length;
    for (const p of shift(spoken.phonemes, offsetMs)) phonemes.push(p);
    for (const w of shift(spoken.words, offsetMs)) words.push(w);
  }
  const pcm = parts.length === 1 ? parts[0]! : concatPcm(parts);
  return { pcm, sampleRate, durationMs: (samples / sampleRate) * 1000, phonemes, words };
}

/** Joins chunks of PCM into one array. */
export function concatPcm(chunks: Int16Array[]): Int16Array {
  let total = 0;
  for (const c of chunks) total += c.length;
  const out = new Int16Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * Cuts a long text into pieces of at most `max` characters at sentence ends (or, failing
 * that, at a space) in the second half of each piece, so an engine that works per call never
 * gets a huge input. Each piece advances at least max/2 after scanning at most max/2: linear.
 */
export function chunkText(text: string, max: number): string[] {
  const chunks: string[] = [];
  let start = 0;
  while (text.length - start > max) {
    const limit = start + max;
    const floor = start + Math.floor(max / 2);
    let cut = -1;
    for (let i = limit - 1; i > floor; i--) {
      const c = text[i];
      if ((c === '.' || c === '!' || c === '?' || c === ';' || c === '\n') && (text[i + 1] === ' ' || text[i + 1] === '\n')) {
        cut = i + 1;
        break;
      }
    }
    if (cut < 0) cut = text.lastIndexOf(' ', limit - 1);
    if (cut <= floor) cut = limit;
    chunks.push(text.slice(start, cut));
    start = cut;
  }
  chunks.push(text.slice(start));
  return chunks.map((c) => c.trim()).filter((c) => c !== '');
}
