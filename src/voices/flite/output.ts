/** Reading what Flite writes: the phone list of `-psdur` and the WAV file. Pure (no WASI here). */
import { SpeechError, type TimedPhoneme } from '../interface.ts';

/**
 * `pau:0.164 hh:0.255 ...` (phone:end seconds) to timed phonemes; pauses are left out. Flite
 * prints one line per utterance (a sentence of a `-f` text), each timed from its own start,
 * and writes the utterances' audio one after another: a line's times are offset by the
 * length of the lines before it.
 */
export function parsePhones(stdout: string, durationMs: number): TimedPhoneme[] {
  const phonemes: TimedPhoneme[] = [];
  let base = 0;
  for (const line of stdout.split('\n')) {
    let previousEnd = 0;
    for (const token of line.split(/\s+/)) {
      const colon = token.lastIndexOf(':');
      if (colon <= 0) continue;
      const end = Number(token.slice(colon + 1)) * 1000;
      if (!Number.isFinite(end)) continue;
      const phone = token.slice(0, colon);
      const startMs = Math.min(base + previousEnd, durationMs);
      const endMs = Math.min(Math.max(base + end, startMs), durationMs);
      if (phone !== 'pau') phonemes.push({ phoneme: phone, alphabet: 'arpabet', startMs, endMs });
      previousEnd = Math.max(previousEnd, end);
    }
    base += previousEnd;
  }
  return phonemes;
}

/** The samples of a 16-bit mono PCM WAV file (walks the RIFF chunks to `data`). */
export function wavSamples(wav: Buffer): { pcm: Int16Array; sampleRate: number } {
  if (wav.toString('ascii', 0, 4) !== 'RIFF' || wav.toString('ascii', 8, 12) !== 'WAVE') throw new SpeechError('vendor', 'flite wrote no WAV file');
  let at = 12;
  let sampleRate = 0;
  while (at + 8 <= wav.length) {
    const id = wav.toString('ascii', at, at + 4);
    const size = wav.readUInt32LE(at + 4);
    if (id === 'fmt ') sampleRate = wav.readUInt32LE(at + 12);
    if (id === 'data') {
      const bytes = wav.subarray(at + 8, Math.min(wav.length, at + 8 + size));
      const pcm = new Int16Array(Math.floor(bytes.length / 2));
      for (let i = 0; i < pcm.length; i++) pcm[i] = bytes.readInt16LE(i * 2);
      return { pcm, sampleRate };
    }
    at += 8 + size + (size % 2);
  }
  throw new SpeechError('vendor', 'flite wrote a WAV file without data');
}
