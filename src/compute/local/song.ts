/**
 * The sound of the classics drivers: a sung melody synthesized offline (a harmonic voice
 * shaped by vowel formants, with vibrato, one syllable per note), plus the mouth curve
 * derived from its loudness so the lips follow the sound.
 */
import { seededRandom } from './random.ts';

export interface Pcm {
  sampleRate: number;
  /** Mono samples in -1..1. */
  samples: Float32Array;
}

export interface Song {
  pcm: Pcm;
  bpm: number;
}

const SAMPLE_RATE = 22050;
const MAJOR_PENTATONIC = [0, 2, 4, 7, 9, 12, 14];
/** Formants (Hz) of a few sung vowels: a, o, e, u, i. */
const VOWELS: [number, number][] = [[750, 1200], [500, 900], [450, 1900], [350, 800], [300, 2200]];

const voiceRange = (name: string): [number, number] => {
  if (/female|queen|birthday|feliz|santa/.test(name)) return [220, 290];
  if (/male|rigoletto|country|old-souls/.test(name)) return [110, 150];
  return [150, 220];
};

/** Deterministic per name; 8-10 s long. */
export function synthesizeSong(name: string): Song {
  const rnd = seededRandom(`song/${name}`);
  const bpm = Math.round(88 + rnd() * 50);
  const beat = 60 / bpm;
  const duration = Math.round((8 + rnd() * 2) * 2) / 2;
  const [lo, hi] = voiceRange(name);
  const root = lo + (hi - lo) * rnd();
  const samples = new Float32Array(Math.round(duration * SAMPLE_RATE));

  // A melody of phrases: 4-7 notes of a half, one or two beats, then a rest.
  type Note = { start: number; len: number; freq: number; vowel: [number, number] };
  const notes: Note[] = [];
  let t = 0.2;
  let degree = Math.floor(rnd() * 3);
  while (t < duration - 0.4) {
    const phrase = 4 + Math.floor(rnd() * 4);
    for (let i = 0; i < phrase && t < duration - 0.4; i++) {
      const len = beat * [0.5, 1, 1, 2][Math.floor(rnd() * 4)]!;
      degree = Math.max(0, Math.min(MAJOR_PENTATONIC.length - 1, degree + Math.floor(rnd() * 5) - 2));
      const semis = MAJOR_PENTATONIC[degree]!;
      notes.push({ start: t, len: Math.min(len, duration - 0.2 - t), freq: root * 2 ** (semis / 12), vowel: VOWELS[Math.floor(rnd() * VOWELS.length)]! });
      t += len;
    }
    t += beat * (1 + Math.floor(rnd() * 2));
  }

  for (const note of notes) {
    const first = Math.round(note.start * SAMPLE_RATE);
    const sung = note.len * 0.85; // the rest of the note is the consonant gap: mouth closes
    const count = Math.round(sung * SAMPLE_RATE);
    const harmonics: number[] = [];
    for (let k = 1; k * note.freq < 4000; k++) {
      const f = k * note.freq;
      const formant = note.vowel.reduce((s, fc, j) => s + (j === 0 ? 1 : 0.6) * Math.exp(-(((f - fc) / 130) ** 2)), 0);
      harmonics.push((0.25 / k + formant) / Math.sqrt(k));
    }
    const norm = harmonics.reduce((s, a) => s + a, 0);
    let phase = 0;
    for (let i = 0; i < count && first + i < samples.length; i++) {
      const s = i / SAMPLE_RATE;
      const env = Math.min(1, s / 0.04) * Math.min(1, (sung - s) / 0.07) * (1 - 0.25 * (s / sung));
      const vibrato = 1 + 0.012 * Math.min(1, s / 0.25) * Math.sin(2 * Math.PI * 5.5 * s);
      phase += (2 * Math.PI * note.freq * vibrato) / SAMPLE_RATE;
      let v = 0;
      for (let k = 0; k < harmonics.length; k++) v += harmonics[k]! * Math.sin((k + 1) * phase);
      samples[first + i]! += (0.6 * env * v) / norm;
    }
  }
  return { pcm: { sampleRate: SAMPLE_RATE, samples }, bpm };
}

/**
 * Mouth opening per video frame from the loudness: RMS per frame, dB relative to the peak
 * over a 30 dB floor, with attack/release smoothing.
 */
export function mouthFromAudio(pcm: Pcm, fps: number): number[] {
  const hop = pcm.sampleRate / fps;
  const frames = Math.floor(pcm.samples.length / hop);
  const rms: number[] = [];
  for (let f = 0; f < frames; f++) {
    let sum = 0;
    const a = Math.round(f * hop), b = Math.round((f + 1) * hop);
    for (let i = a; i < b; i++) sum += pcm.samples[i]! ** 2;
    rms.push(Math.sqrt(sum / Math.max(1, b - a)));
  }
  const peak = Math.max(1e-9, ...rms);
  let level = 0;
  return rms.map((r) => {
    const db = 20 * Math.log10(Math.max(r, 1e-9) / peak);
    const target = Math.min(1, Math.max(0, (db + 30) / 30));
    level += (target - level) * (target > level ? 0.7 : 0.45);
    return level;
  });
}

/** 16-bit mono WAV bytes of `pcm`. */
export function wavBytes(pcm: Pcm): Buffer {
  const data = Buffer.alloc(pcm.samples.length * 2);
  pcm.samples.forEach((s, i) => data.writeInt16LE(Math.round(Math.max(-1, Math.min(1, s)) * 32767), i * 2));
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(pcm.sampleRate, 24);
  header.writeUInt32LE(pcm.sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}
