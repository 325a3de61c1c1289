/**
 * espeak-ng (WebAssembly) as an Engine: one warm instance per worker thread (the first two
 * syntheses after start take seconds of wasm warm-up; later ones run at ~0.005x real time).
 * Runs only inside the voice worker (src/voices/worker.ts).
 */
import Module, { type ESpeakNGWorker, type EspeakEvent } from '@echogarden/espeak-ng-emscripten';
import { SpeechError, type TimedPhoneme, type TimedWord } from '../interface.ts';
import type { Engine, EngineSpeech } from '../compose.ts';
import { concatPcm } from '../compose.ts';

/** espeak's own default rate (words per minute), which rate 1 means. */
export const ESPEAK_DEFAULT_WPM = 175;
/** The range espeak-ng speaks in (its documented minimum and maximum without sonic). */
export const ESPEAK_MIN_WPM = 80;
export const ESPEAK_MAX_WPM = 450;

export const espeakWpm = (rate: number) => Math.round(Math.min(ESPEAK_MAX_WPM, Math.max(ESPEAK_MIN_WPM, ESPEAK_DEFAULT_WPM * rate)));

/** Turns espeak's events into timed phonemes and words (times in ms within this audio). */
export function timingsFromEvents(text: string, events: EspeakEvent[], durationMs: number): { phonemes: TimedPhoneme[]; words: TimedWord[] } {
  const chars = Array.from(text); // espeak counts code points, 1-based
  const boundaries = events.filter((e) => e.type === 'phoneme' || e.type === 'end' || e.type === 'word' || e.type === 'sentence');
  const phonemes: TimedPhoneme[] = [];
  const words: TimedWord[] = [];
  let word: TimedWord | undefined;
  for (let i = 0; i < boundaries.length; i++) {
    const e = boundaries[i]!;
    if (e.type === 'word') {
      const start = Math.max(0, e.text_position - 1);
      word = { text: chars.slice(start, start + e.word_length).join(''), startMs: e.audio_position, endMs: e.audio_position };
      words.push(word);
      continue;
    }
    if (e.type !== 'phoneme' || typeof e.id !== 'string' || e.id === '') continue; // '' marks a pause
    let endMs = durationMs;
    for (let j = i + 1; j < boundaries.length; j++) {
      const next = boundaries[j]!;
      if (next.type !== 'word' && next.audio_position > e.audio_position) {
        endMs = next.audio_position;
        break;
      }
    }
    const startMs = Math.min(e.audio_position, durationMs);
    endMs = Math.min(Math.max(endMs, startMs), durationMs);
    phonemes.push({ phoneme: e.id, alphabet: 'ipa', startMs, endMs });
    if (word) word.endMs = Math.max(word.endMs, endMs);
  }
  // A word event can come a few ms before the previous word's last phoneme ends.
  for (let i = 0; i + 1 < words.length; i++) words[i]!.endMs = Math.max(words[i]!.startMs, Math.min(words[i]!.endMs, words[i + 1]!.startMs));
  return { phonemes, words: words.filter((w) => w.text.trim() !== '') };
}

export async function createEspeakEngine(): Promise<Engine> {
  const module = await Module();
  const worker: ESpeakNGWorker = new module.eSpeakNGWorker();
  const sampleRate = worker.get_samplerate();
  let currentVoice = '';
  let currentWpm = -1;

  return {
    sampleRate,
    speak(voice: string, text: string, rate: number, stop: () => boolean): EngineSpeech {
      if (voice !== currentVoice) {
        if (worker.set_voice(voice) !== 0) throw new SpeechError('unknown-voice', `espeak-ng has no voice '${voice}'`);
        currentVoice = voice;
        currentWpm = -1; // a new voice resets the rate
      }
      const wpm = espeakWpm(rate);
      if (wpm !== currentWpm) {
        worker.set_rate(wpm);
        currentWpm = wpm;
      }
      const chunks: Int16Array[] = [];
      const events: EspeakEvent[] = [];
      worker.synthesize(text, (pcm, chunkEvents) => {
        chunks.push(pcm);
        for (const e of chunkEvents) events.push(e);
        return stop();
      });
      const pcm = concatPcm(chunks);
      return { pcm, sampleRate, ...timingsFromEvents(text, events, (pcm.length / sampleRate) * 1000) };
    },
  };
}
