import { SpeechError, type Speech, type TimedWord } from '../interface.ts';

/** Mono 16-bit samples and their rate: what a vendor's audio decodes to. */
export interface Pcm {
  pcm: Int16Array;
  sampleRate: number;
}

/** Signed 16-bit little-endian bytes as samples (a trailing odd byte is dropped). */
export function pcmFromLittleEndian(bytes: Buffer): Int16Array {
  const out = new Int16Array(bytes.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readInt16LE(i * 2);
  return out;
}

const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;
/** Size fields of a WAV written while streaming (the length was not known yet). */
const UNKNOWN_SIZE = 0xffffffff;

/**
 * Decodes a RIFF WAVE file of 16-bit integer PCM (one or more channels, averaged to mono).
 * Streaming encoders (OpenAI's among them) write 0xFFFFFFFF or 0 as the data size: the data
 * then runs to the end of the file. Anything else (float, 8-bit, compressed) is refused.
 */
export function decodeWav(buf: Buffer, vendor: string): Pcm {
  const bad = (why: string) => new SpeechError('vendor', `${vendor} sent audio that is not 16-bit PCM WAV (${why})`);
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'RIFF' || buf.toString('latin1', 8, 12) !== 'WAVE') throw bad('no RIFF/WAVE header');
  let format: { channels: number; sampleRate: number } | undefined;
  let offset = 12;
  while (offset + 8 <= buf.length) {
    const id = buf.toString('latin1', offset, offset + 4);
    const size = buf.readUInt32LE(offset + 4);
    const start = offset + 8;
    if (id === 'fmt ') {
      if (size < 16 || start + 16 > buf.length) throw bad('short fmt chunk');
      const tag = buf.readUInt16LE(start);
      const channels = buf.readUInt16LE(start + 2);
      const sampleRate = buf.readUInt32LE(start + 4);
      const bits = buf.readUInt16LE(start + 14);
      const subFormat = tag === WAVE_FORMAT_EXTENSIBLE && size >= 26 && start + 26 <= buf.length ? buf.readUInt16LE(start + 24) : tag;
      if (subFormat !== WAVE_FORMAT_PCM || bits !== 16) throw bad(`format ${tag}, ${bits} bits`);
      if (channels < 1 || sampleRate < 1000 || sampleRate > 384_000) throw bad(`${channels} channels at ${sampleRate} Hz`);
      format = { channels, sampleRate };
    } else if (id === 'data') {
      if (!format) throw bad('data before fmt');
      const end = size === UNKNOWN_SIZE || size === 0 || start + size > buf.length ? buf.length : start + size;
      return { pcm: toMono(pcmFromLittleEndian(buf.subarray(start, end)), format.channels), sampleRate: format.sampleRate };
    }
    if (size === UNKNOWN_SIZE) break;
    offset = start + size + (size & 1);
  }
  throw bad('no data chunk');
}

function toMono(samples: Int16Array, channels: number): Int16Array {
  if (channels === 1) return samples;
  const frames = Math.floor(samples.length / channels);
  const out = new Int16Array(frames);
  for (let f = 0; f < frames; f++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += samples[f * channels + c]!;
    out[f] = Math.round(sum / channels);
  }
  return out;
}

/** Speech from decoded parts spoken one after another (a long text is sent in pieces); word times shift by what came before. */
export function joinSpeech(parts: { audio: Pcm; words: TimedWord[] }[], voice: Speech['voice'], vendor: string): Speech {
  const sampleRate = parts[0]?.audio.sampleRate ?? 24_000;
  if (parts.some((p) => p.audio.sampleRate !== sampleRate)) throw new SpeechError('vendor', `${vendor} answered the pieces of one text at different sample rates`);
  const pcm = new Int16Array(parts.reduce((n, p) => n + p.audio.pcm.length, 0));
  const words: TimedWord[] = [];
  let at = 0;
  for (const part of parts) {
    const offsetMs = Math.round((at / sampleRate) * 1000);
    pcm.set(part.audio.pcm, at);
    for (const w of part.words) words.push({ text: w.text, startMs: w.startMs + offsetMs, endMs: w.endMs + offsetMs });
    at += part.audio.pcm.length;
  }
  return { pcm, sampleRate, durationMs: (pcm.length / sampleRate) * 1000, phonemes: [], words, voice };
}

/**
 * A long text in pieces of at most `max` characters, cut after a sentence end when one is in
 * the second half of the piece, else at a space, else hard. Pieces are trimmed; none is empty.
 */
export function splitText(text: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = text.trim();
  while (rest.length > max) {
    const window = rest.slice(0, max);
    const sentence = Math.max(...['. ', '! ', '? ', '。', '\n'].map((end) => window.lastIndexOf(end)));
    const space = window.lastIndexOf(' ');
    const cut = sentence >= max / 2 ? sentence + 1 : space >= max / 2 ? space : max;
    pieces.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) pieces.push(rest);
  return pieces.filter(Boolean);
}

/** English name of a BCP 47 tag's language ("en-US" -> "English"), or the tag when unknown. */
export function languageName(locale: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(locale.split('-')[0]!) ?? locale;
  } catch {
    return locale;
  }
}
