/**
 * Motion tracks: what a driver does to a face, frame by frame. Bank drivers are procedural
 * and deterministic per (category, name): the same name always yields the same track.
 */
import { DRIVER_BANK, type DriverCategory } from '../driver-bank.ts';
import { seededRandom } from './random.ts';
import { mouthFromAudio, synthesizeSong, type Pcm } from './song.ts';

/** One frame of motion, relative to the neutral (source) face. */
export interface MotionFrame {
  /** Head rotation in degrees (yaw: turn, pitch: nod, roll: tilt). */
  yaw: number;
  pitch: number;
  roll: number;
  /** Head translation as a fraction of the face size. */
  tx: number;
  ty: number;
  /** 0 open .. 1 closed, per eye (left/right of the person). */
  blinkL: number;
  blinkR: number;
  /** 0 closed .. 1 wide open. */
  mouth: number;
  /** 0 .. 1 brow raise. */
  brow: number;
  /** 0 .. 1 smile (mouth corners out and up). */
  smile: number;
  /** 0 .. 1 lip rounding (the mouth corners come in, as for "oo" and "w"); absent: 0. */
  round?: number;
}

export interface MotionTrack {
  fps: number;
  frames: MotionFrame[];
  /** Sound the driver carries (mono PCM), if any. */
  audio?: Pcm;
}

export const BANK_FPS = 25;

export const neutralFrame = (): MotionFrame => ({
  yaw: 0, pitch: 0, roll: 0, tx: 0, ty: 0, blinkL: 0, blinkR: 0, mouth: 0, brow: 0, smile: 0,
});

const between = (rnd: () => number, lo: number, hi: number): number => lo + (hi - lo) * rnd();
const smoothstep = (x: number): number => (x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x));

/** A sum of slow sines with seeded frequencies and phases; 0 at t = 0. */
function wander(rnd: () => number, amp: number, fLo: number, fHi: number, parts = 3): (t: number) => number {
  const comps = Array.from({ length: parts }, (_, i) => ({
    f: between(rnd, fLo, fHi),
    a: amp / (i + 1),
    sign: rnd() < 0.5 ? -1 : 1,
  }));
  const norm = comps.reduce((s, c) => s + c.a, 0) / amp;
  return (t) => comps.reduce((s, c) => s + c.sign * c.a * Math.sin(2 * Math.PI * c.f * t), 0) / norm;
}

/** Eye-blink shape: close fast, hold, open a bit slower. `t` seconds since the blink began. */
function blinkShape(t: number): number {
  if (t < 0 || t > 0.26) return 0;
  if (t < 0.08) return smoothstep(t / 0.08);
  if (t < 0.12) return 1;
  return 1 - smoothstep((t - 0.12) / 0.14);
}

/** Seeded blink times, one every `lo`..`hi` seconds. */
function blinkTimes(rnd: () => number, duration: number, lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let t = between(rnd, 0.6, 1.8); t < duration - 0.3; t += between(rnd, lo, hi)) out.push(t);
  return out;
}

const blinkAt = (times: number[], t: number): number => times.reduce((m, s) => Math.max(m, blinkShape(t - s)), 0);

/** A bump that rises over `rise` s, holds, and falls over `fall` s. */
function pulse(t: number, start: number, hold: number, rise = 0.15, fall = 0.2): number {
  const u = t - start;
  if (u < 0 || u > rise + hold + fall) return 0;
  if (u < rise) return smoothstep(u / rise);
  if (u < rise + hold) return 1;
  return 1 - smoothstep((u - rise - hold) / fall);
}

/** The slowly wandering head of a speaking (or idling) face, seeded. */
function speakerHead(rnd: () => number) {
  return {
    yaw: wander(rnd, between(rnd, 2, 3.5), 0.08, 0.25),
    pitch: wander(rnd, between(rnd, 1.2, 2.2), 0.1, 0.3),
    roll: wander(rnd, between(rnd, 1, 2), 0.06, 0.2),
  };
}

/** One frame of a speaking face at `t` s: head, blink, mouth, and loudness (nods and brows). */
function speakingFrame(head: ReturnType<typeof speakerHead>, t: number, blink: number, mouth: number, round: number, loud: number): MotionFrame {
  const k = fadeIn(t);
  const { yaw, pitch, roll } = head;
  return {
    ...neutralFrame(),
    // The head nods a little with the loudness, as speakers do on stressed syllables.
    yaw: yaw(t) * k, pitch: (pitch(t) + 1.2 * loud) * k, roll: roll(t) * k,
    tx: yaw(t) * 0.002 * k, ty: pitch(t) * 0.002 * k,
    blinkL: blink, blinkR: blink,
    mouth: Math.min(1, Math.max(0, mouth)),
    round: Math.min(1, Math.max(0, round)),
    brow: Math.min(1, 0.25 * loud),
    smile: 0.12,
  };
}

/**
 * A speaking face: the mouth from the speech (`mouth`, `round` per frame, see visemes.ts)
 * and idle motion around it, seeded: blinks every 2-5 s, a small wandering head, brows
 * that lift a little with loud speech, a faint smile.
 */
export function speakingMotion(seed: string, fps: number, speech: { mouth: number[]; round: number[] }, loudness: readonly number[]): MotionFrame[] {
  const rnd = seededRandom(`speech:${seed}`);
  const duration = speech.mouth.length / fps;
  const head = speakerHead(rnd);
  const blinks = blinkTimes(rnd, duration, 2, 5);
  return speech.mouth.map((mouth, i) => {
    const t = i / fps;
    return speakingFrame(head, t, blinkAt(blinks, t), mouth, speech.round[i] ?? 0, loudness[i] ?? 0);
  });
}

/** What speech does to a live face at one instant (all 0 while it is silent). */
export interface SpeechPose {
  mouth: number;
  round: number;
  loudness: number;
}

/**
 * A face without an end (live streams): the motion of `speakingMotion` as a function of the
 * time since the stream began, so idle and speech flow into each other with no jump. Blinks
 * every 2-5 s are drawn as time goes on; `t` must not go backwards by more than a second.
 */
export function liveMotion(seed: string): (t: number, speech?: SpeechPose) => MotionFrame {
  const rnd = seededRandom(`live:${seed}`);
  const head = speakerHead(rnd);
  const blinks: number[] = [];
  let next = between(rnd, 0.6, 1.8);
  return (t, speech) => {
    while (next < t + 1) { blinks.push(next); next += between(rnd, 2, 5); }
    while (blinks.length > 0 && blinks[0]! < t - 1) blinks.shift();
    return speakingFrame(head, t, blinkAt(blinks, t), speech?.mouth ?? 0, speech?.round ?? 0, speech?.loudness ?? 0);
  };
}

/** Fades motion in over the first half second so frame 0 is the source face. */
const fadeIn = (t: number): number => smoothstep(t / 0.5);

function build(duration: number, fps: number, at: (t: number) => Partial<MotionFrame>): MotionFrame[] {
  const n = Math.round(duration * fps);
  return Array.from({ length: n }, (_, i) => {
    const t = i / fps;
    const k = fadeIn(t);
    const f = { ...neutralFrame(), ...at(t) };
    return {
      ...f,
      yaw: f.yaw * k, pitch: f.pitch * k, roll: f.roll * k, tx: f.tx * k, ty: f.ty * k,
      mouth: Math.min(1, Math.max(0, f.mouth)),
      blinkL: Math.min(1, Math.max(0, f.blinkL)),
      blinkR: Math.min(1, Math.max(0, f.blinkR)),
      brow: Math.min(1, Math.max(0, f.brow)),
      smile: Math.min(1, Math.max(0, f.smile)),
    };
  });
}

function nostalgia(rnd: () => number): MotionTrack {
  const duration = Math.round(between(rnd, 8, 10) * 2) / 2;
  const yaw = wander(rnd, between(rnd, 5, 7), 0.07, 0.22);
  const pitch = wander(rnd, between(rnd, 2.5, 4), 0.06, 0.2);
  const roll = wander(rnd, between(rnd, 3, 5), 0.05, 0.18);
  const blinks = blinkTimes(rnd, duration, 2.5, 4.5);
  const smile = between(rnd, 0.15, 0.45);
  return {
    fps: BANK_FPS,
    frames: build(duration, BANK_FPS, (t) => ({
      yaw: yaw(t), pitch: pitch(t), roll: roll(t), tx: yaw(t) * 0.002, ty: pitch(t) * 0.002,
      blinkL: blinkAt(blinks, t), blinkR: blinkAt(blinks, t),
      smile: smile * smoothstep(t / 3), mouth: 0.05 * smoothstep(t / 3),
    })),
  };
}

function fun(rnd: () => number): MotionTrack {
  const duration = Math.round(between(rnd, 6, 8) * 2) / 2;
  // Quick tilts: hold a pose, then snap to the next one.
  const poses: { t: number; yaw: number; pitch: number; roll: number }[] = [{ t: 0, yaw: 0, pitch: 0, roll: 0 }];
  for (let t = between(rnd, 0.4, 0.8); t < duration; t += between(rnd, 0.5, 1.0)) {
    poses.push({ t, yaw: between(rnd, -9, 9), pitch: between(rnd, -6, 6), roll: (rnd() < 0.5 ? -1 : 1) * between(rnd, 5, 11) });
  }
  const snap = 0.18;
  const poseAt = (t: number) => {
    let i = 0;
    while (i + 1 < poses.length && poses[i + 1]!.t <= t) i++;
    const cur = poses[i]!;
    const prev = poses[Math.max(0, i - 1)]!;
    const k = smoothstep((t - cur.t) / snap);
    return {
      yaw: prev.yaw + (cur.yaw - prev.yaw) * k,
      pitch: prev.pitch + (cur.pitch - prev.pitch) * k,
      roll: prev.roll + (cur.roll - prev.roll) * k,
    };
  };
  const events: { t: number; kind: 'mouth' | 'winkL' | 'winkR' | 'brow' }[] = [];
  const kinds = ['mouth', 'winkL', 'winkR', 'brow'] as const;
  for (let t = between(rnd, 0.5, 1.0); t < duration - 0.8; t += between(rnd, 0.6, 1.2)) {
    events.push({ t, kind: kinds[Math.floor(rnd() * kinds.length)]! });
  }
  const mouthAmp = between(rnd, 0.75, 1);
  return {
    fps: BANK_FPS,
    frames: build(duration, BANK_FPS, (t) => {
      const p = poseAt(t);
      let mouth = 0, blinkL = 0, blinkR = 0, brow = 0;
      for (const e of events) {
        if (e.kind === 'mouth') mouth = Math.max(mouth, mouthAmp * pulse(t, e.t, 0.35, 0.12, 0.2));
        if (e.kind === 'winkL') blinkL = Math.max(blinkL, pulse(t, e.t, 0.3, 0.08, 0.12));
        if (e.kind === 'winkR') blinkR = Math.max(blinkR, pulse(t, e.t, 0.3, 0.08, 0.12));
        if (e.kind === 'brow') brow = Math.max(brow, pulse(t, e.t, 0.4, 0.12, 0.2));
      }
      return { ...p, tx: p.yaw * 0.003, ty: -p.pitch * 0.002, mouth, blinkL, blinkR, brow, smile: 0.3 + 0.3 * brow };
    }),
  };
}

function dance(rnd: () => number): MotionTrack {
  const duration = Math.round(between(rnd, 6, 8) * 2) / 2;
  const bpm = Math.round(between(rnd, 96, 128));
  const beat = 60 / bpm;
  const bob = between(rnd, 3.5, 6);
  const sway = between(rnd, 5, 9);
  const turn = between(rnd, 3, 7);
  const swing = rnd() < 0.5 ? 1 : -1;
  const blinks = blinkTimes(rnd, duration, 2, 3.5);
  const accentEvery = rnd() < 0.5 ? 4 : 8;
  return {
    fps: BANK_FPS,
    frames: build(duration, BANK_FPS, (t) => {
      const b = t / beat;
      // Nod down on every beat, sway left/right over two beats, turn over four.
      const nod = Math.pow(Math.abs(Math.sin(Math.PI * b)), 1.5);
      const accent = Math.floor(b) % accentEvery === 0 ? 1.4 : 1;
      return {
        pitch: bob * nod * accent - bob * 0.5,
        roll: swing * sway * Math.sin(Math.PI * b),
        yaw: turn * Math.sin((Math.PI * b) / 2),
        tx: swing * 0.025 * Math.sin(Math.PI * b),
        ty: 0.02 * nod,
        blinkL: blinkAt(blinks, t), blinkR: blinkAt(blinks, t),
        mouth: 0.12 * nod, smile: 0.4, brow: 0.3 * nod,
      };
    }),
  };
}

function subtle(rnd: () => number): MotionTrack {
  const duration = Math.round(between(rnd, 5, 7) * 2) / 2;
  const yaw = wander(rnd, between(rnd, 1.5, 2.5), 0.1, 0.3);
  const pitch = wander(rnd, between(rnd, 1, 1.8), 0.1, 0.3);
  const roll = wander(rnd, between(rnd, 1, 2), 0.08, 0.25);
  const blinks = blinkTimes(rnd, duration, 1.8, 3.2);
  return {
    fps: BANK_FPS,
    frames: build(duration, BANK_FPS, (t) => ({
      yaw: yaw(t), pitch: pitch(t), roll: roll(t),
      blinkL: blinkAt(blinks, t), blinkR: blinkAt(blinks, t),
      smile: 0.1 * smoothstep(t / 2),
    })),
  };
}

function stitch(rnd: () => number): MotionTrack {
  const duration = Math.round(between(rnd, 6, 8) * 2) / 2;
  const yaw = wander(rnd, between(rnd, 4, 6), 0.1, 0.35);
  const pitch = wander(rnd, between(rnd, 2, 3.5), 0.1, 0.35);
  const roll = wander(rnd, between(rnd, 2, 3.5), 0.08, 0.3);
  const blinks = blinkTimes(rnd, duration, 2.2, 4);
  const smileAt = between(rnd, 1.5, 3.5);
  const talk = wander(rnd, 1, 1.5, 3.5, 2);
  const talkFrom = between(rnd, 2, 4);
  return {
    fps: BANK_FPS,
    frames: build(duration, BANK_FPS, (t) => ({
      yaw: yaw(t), pitch: pitch(t), roll: roll(t),
      blinkL: blinkAt(blinks, t), blinkR: blinkAt(blinks, t),
      smile: 0.35 * pulse(t, smileAt, 1.5, 0.4, 0.6),
      mouth: 0.25 * Math.max(0, talk(t)) * pulse(t, talkFrom, 1.2, 0.3, 0.4),
    })),
  };
}

function classics(rnd: () => number, name: string): MotionTrack {
  const song = synthesizeSong(name);
  const duration = song.pcm.samples.length / song.pcm.sampleRate;
  const mouth = mouthFromAudio(song.pcm, BANK_FPS);
  const beat = 60 / song.bpm;
  const sway = between(rnd, 3, 6);
  const nod = between(rnd, 1.5, 3);
  const blinks = blinkTimes(rnd, duration, 2.5, 4);
  const frames = build(duration, BANK_FPS, (t) => {
    const b = t / beat;
    const i = Math.min(mouth.length - 1, Math.round(t * BANK_FPS));
    const m = mouth[i] ?? 0;
    return {
      roll: sway * Math.sin((Math.PI * b) / 2),
      yaw: sway * 0.6 * Math.sin((Math.PI * b) / 4),
      pitch: -nod * m + nod * 0.3 * Math.sin(Math.PI * b),
      blinkL: blinkAt(blinks, t), blinkR: blinkAt(blinks, t),
      mouth: 0.85 * m, brow: 0.4 * m, smile: 0.2,
    };
  });
  // `build` fades the pose in, the mouth follows the sound from the first frame.
  frames.forEach((f, i) => (f.mouth = Math.min(1, 0.85 * (mouth[i] ?? 0))));
  return { fps: BANK_FPS, frames, audio: song.pcm };
}

/** True when `name` is a driver of `category` in the bank. */
export function isBankDriver(category: string, name: string): category is DriverCategory {
  if (!Object.hasOwn(DRIVER_BANK, category)) return false;
  return (DRIVER_BANK[category as DriverCategory].drivers as readonly string[]).includes(name);
}

/** The motion track of a bank driver, or null when the bank has no such driver. */
export function bankMotion(category: string, name: string): MotionTrack | null {
  if (!isBankDriver(category, name)) return null;
  const rnd = seededRandom(`${category}/${name}`);
  switch (category) {
    case 'nostalgia': return nostalgia(rnd);
    case 'fun': return fun(rnd);
    case 'dance': return dance(rnd);
    case 'subtle': return subtle(rnd);
    case 'stitch': return stitch(rnd);
    case 'classics': return classics(rnd, name);
  }
}
