/** The voice pitch measurement of avatar training (src/compute/local/pitch.ts). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { framePitch, medianPitch } from '../../src/compute/local/pitch.ts';
import { createFliteEngine } from '../../src/voices/flite/engine.ts';

const RATE = 16_000;

/** A voiced tone: a fundamental with two weaker harmonics (a voice has its energy above F0 too). */
function tone(hz: number, seconds: number, amplitude = 0.3): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  for (let i = 0; i < out.length; i++) {
    const t = i / RATE;
    out[i] = amplitude * (Math.sin(2 * Math.PI * hz * t) + 0.6 * Math.sin(4 * Math.PI * hz * t) + 0.3 * Math.sin(6 * Math.PI * hz * t)) / 1.9;
  }
  return out;
}

describe('medianPitch on synthetic sound', () => {
  it.each([85, 120, 180, 220, 310])('finds a %d Hz tone with harmonics within 1 %%', (hz) => {
    const got = medianPitch(tone(hz, 2), RATE)!;
    expect(Math.abs(got - hz) / hz).toBeLessThan(0.01);
  });

  it('reads a pure sine and s16 samples alike', () => {
    const pcm = new Int16Array(RATE * 2);
    for (let i = 0; i < pcm.length; i++) pcm[i] = Math.round(9000 * Math.sin((2 * Math.PI * 200 * i) / RATE));
    expect(Math.abs(medianPitch(pcm, RATE)! - 200)).toBeLessThan(2);
  });

  it('ignores silence and quiet frames around the voice', () => {
    const x = new Float32Array(RATE * 6);
    x.set(tone(150, 2), RATE * 2);
    for (let i = 0; i < x.length; i++) x[i]! += 0.001 * Math.sin(i * 12.9898) * 0.5;
    expect(Math.abs(medianPitch(x, RATE)! - 150)).toBeLessThan(2);
  });

  it('measures nothing in silence, in noise, or in too short a voice', () => {
    expect(medianPitch(new Float32Array(RATE * 2), RATE)).toBeNull();
    let seed = 7;
    const noise = Float32Array.from({ length: RATE * 2 }, () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5) * 0.5);
    expect(medianPitch(noise, RATE)).toBeNull();
    expect(medianPitch(tone(150, 0.2), RATE)).toBeNull();
    expect(framePitch(new Float32Array(640), RATE)).toBeNull();
  });
});

describe('medianPitch on Flite speech', () => {
  let engine: Awaited<ReturnType<typeof createFliteEngine>>;
  beforeAll(async () => {
    engine = await createFliteEngine();
  });
  afterAll(() => engine?.close());

  const TEXT = 'I agree that my recorded likeness may be used to make a presenter. The weather was calm and the harbour was quiet in the morning.';
  const pitchOf = (voice: string) => {
    const s = engine.speak(voice, TEXT, 1, () => false);
    return medianPitch(s.pcm, s.sampleRate);
  };

  it('puts the female voice well above the male ones, each in its plausible range', () => {
    const p = { slt: pitchOf('slt'), awb: pitchOf('awb'), rms: pitchOf('rms'), kal: pitchOf('kal16') };
    console.log('Flite median F0 (Hz):', JSON.stringify(p));
    expect(p.slt).toBeGreaterThan(150);
    expect(p.slt).toBeLessThan(260);
    for (const male of [p.awb, p.rms, p.kal]) {
      expect(male).toBeGreaterThan(70);
      expect(male).toBeLessThan(150);
      expect(p.slt! / male!).toBeGreaterThan(1.3);
    }
  });
});
