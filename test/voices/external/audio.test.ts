import { describe, expect, it } from 'vitest';
import { decodeWav, splitText } from '../../../src/voices/external/audio.ts';
import { parseSsml } from '../../../src/voices/external/ssml.ts';
import { SpeechError } from '../../../src/voices/interface.ts';
import { sine, wavOf } from './vendor.ts';

/** The decoding and text handling the external providers share. */
const refusedWav = (buf: Buffer) => {
  try {
    decodeWav(buf, 'acme');
  } catch (err) {
    expect(err).toBeInstanceOf(SpeechError);
    return (err as SpeechError).message;
  }
  throw new Error('expected a refusal');
};

describe('decodeWav', () => {
  it('reads mono, stereo (mixed down), streamed sizes and extra chunks', () => {
    expect(decodeWav(wavOf(sine(50)), 'acme')).toEqual({ pcm: sine(50), sampleRate: 24_000 });
    expect(decodeWav(wavOf(sine(50, 16_000), 16_000, { channels: 2, streamed: true, extraChunk: true }), 'acme')).toEqual({ pcm: sine(50, 16_000), sampleRate: 16_000 });
  });

  it('refuses what is not 16-bit PCM WAV, naming the vendor', () => {
    const eightBit = wavOf(sine(10));
    eightBit.writeUInt16LE(8, 34);
    const float = wavOf(sine(10));
    float.writeUInt16LE(3, 20);
    const noData = wavOf(sine(10)).subarray(0, 36);
    expect(refusedWav(Buffer.from('ID3\x04mp3 data here'))).toBe('acme sent audio that is not 16-bit PCM WAV (no RIFF/WAVE header)');
    expect(refusedWav(eightBit)).toMatch(/format 1, 8 bits/);
    expect(refusedWav(float)).toMatch(/format 3, 16 bits/);
    expect(refusedWav(noData)).toMatch(/no data chunk/);
  });
});

describe('splitText', () => {
  it('cuts after sentences, else at spaces, else hard, and loses no word', () => {
    expect(splitText('One two. Three four five.', 12)).toEqual(['One two.', 'Three four', 'five.']);
    expect(splitText('x'.repeat(25), 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
    expect(splitText('  short  ', 100)).toEqual(['short']);
    const text = Array.from({ length: 300 }, (_, i) => `w${i}${i % 7 === 0 ? '.' : ''}`).join(' ');
    const pieces = splitText(text, 100);
    expect(pieces.every((p) => p.length <= 100)).toBe(true);
    expect(pieces.join(' ')).toBe(text);
  });
});

describe('parseSsml', () => {
  it('unwraps <speak>, keeps the inner markup, and gives the text with entities decoded', () => {
    expect(parseSsml("<speak version='1.0'>A &amp; B<!-- note --><break time='1s'/>C &#233;t&#xE9;</speak>")).toEqual({
      inner: "A &amp; B<!-- note --><break time='1s'/>C &#233;t&#xE9;",
      text: 'A & B C été',
    });
    expect(parseSsml('no markup at all').text).toBe('no markup at all');
  });

  it.each([
    ['<speak>open', /<speak> is not closed at the end/],
    ['<p>open', /<p> is not closed/],
    ['<p>a</s>', /<\/s> does not close the open element/],
    ['1 < 2', /a "<" that does not start a tag/],
    ['R&D', /a bare "&"/],
    ['&nbsp;', /unknown entity/],
    ['<?xml version="1.0"?>hi', /a "<" that does not start a tag/],
    ['<![CDATA[x]]>', /a "<" that does not start a tag/],
    ['<speak><speak>x</speak></speak>', /<speak> may not appear inside/],
    ['<break/>', /there is no text to speak/],
  ])('refuses %s', (source, message) => {
    expect(() => parseSsml(source)).toThrow(message);
  });
});
