import { describe, expect, it } from 'vitest';
import { parseDuration, parseRate, parseSsml, plainSegments, MAX_BREAK_MS } from '../../src/voices/ssml.ts';
import { chunkText } from '../../src/voices/compose.ts';
import { SpeechError } from '../../src/voices/interface.ts';

function invalidSsml(input: string): SpeechError {
  try {
    parseSsml(input);
  } catch (error) {
    expect(error).toBeInstanceOf(SpeechError);
    expect((error as SpeechError).reason).toBe('invalid-ssml');
    return error as SpeechError;
  }
  throw new Error(`parsed without error: ${input}`);
}

describe('SSML to segments', () => {
  it('splits text at breaks, with times and strengths', () => {
    expect(parseSsml('<speak>Hello <break time="500ms"/> world<break time="1.5s"/>again<break strength="x-strong"/>end<break/>.</speak>')).toEqual([
      { kind: 'text', text: 'Hello', rate: 1 },
      { kind: 'pause', ms: 500 },
      { kind: 'text', text: 'world', rate: 1 },
      { kind: 'pause', ms: 1500 },
      { kind: 'text', text: 'again', rate: 1 },
      { kind: 'pause', ms: 1250 },
      { kind: 'text', text: 'end', rate: 1 },
      { kind: 'pause', ms: 750 },
      { kind: 'text', text: '.', rate: 1 },
    ]);
  });

  it('nests prosody rates (they multiply) and applies the request rate', () => {
    expect(parseSsml('<speak>a <prosody rate="slow">b <prosody rate="200%">c</prosody> d</prosody> e</speak>', 2)).toEqual([
      { kind: 'text', text: 'a', rate: 2 },
      { kind: 'text', text: 'b', rate: 1.5 },
      { kind: 'text', text: 'c', rate: 3 },
      { kind: 'text', text: 'd', rate: 1.5 },
      { kind: 'text', text: 'e', rate: 2 },
    ]);
  });

  it('reads every rate form and every duration form', () => {
    expect([parseRate('x-slow'), parseRate('slow'), parseRate('medium'), parseRate('fast'), parseRate('x-fast')]).toEqual([0.5, 0.75, 1, 1.5, 2]);
    expect([parseRate('80%'), parseRate('+20%'), parseRate('-10%'), parseRate('1.2'), parseRate('quick')]).toEqual([0.8, 1.2, 0.9, 1.2, undefined]);
    expect([parseDuration('500ms'), parseDuration('1s'), parseDuration('1.5s'), parseDuration('250'), parseDuration('soon')]).toEqual([500, 1000, 1500, 250, undefined]);
  });

  it('clamps rates and pause lengths', () => {
    expect(parseSsml('<prosody rate="0.01">slow</prosody><break time="100s"/>x')).toEqual([
      { kind: 'text', text: 'slow', rate: 0.25 },
      { kind: 'pause', ms: MAX_BREAK_MS },
      { kind: 'text', text: 'x', rate: 1 },
    ]);
  });

  it('speaks the text of unknown elements, the alias of <sub>, skips comments and declarations, decodes entities', () => {
    const segments = parseSsml(
      '<?xml version="1.0"?><!-- a comment --><speak version="1.1"><emphasis level="strong">Tom</emphasis> &amp; <say-as interpret-as="characters">AB</say-as> <sub alias="World Wide Web">WWW</sub> &lt;3 &#233;&#x41;<mark name="m"/></speak>',
    );
    expect(segments).toEqual([{ kind: 'text', text: 'Tom & AB  World Wide Web  <3 éA', rate: 1 }]);
  });

  it('accepts text without a <speak> root', () => {
    expect(parseSsml('Just text.')).toEqual([{ kind: 'text', text: 'Just text.', rate: 1 }]);
  });

  it('refuses unbalanced and malformed markup with the place it went wrong', () => {
    expect(invalidSsml('<speak>Hello').message).toMatch(/<speak> is never closed/);
    expect(invalidSsml('<speak>Hello</prosody></speak>').message).toMatch(/<\/prosody> at character 12 closes <speak>/);
    expect(invalidSsml('Hello</speak>').message).toMatch(/closes nothing/);
    expect(invalidSsml('<speak>Hello <break time="500ms"</speak>').message).toMatch(/not quoted|unexpected|not closed/);
    expect(invalidSsml('<speak><break time=500ms/></speak>').message).toMatch(/not quoted/);
    expect(invalidSsml('<speak>a < b</speak>').message).toMatch(/invalid SSML/);
    expect(invalidSsml('<speak>Tom & Jerry</speak>').message).toMatch(/bare '&'/);
    expect(invalidSsml('<speak>&nbsp;</speak>').message).toMatch(/unknown entity/);
    expect(invalidSsml('<speak><break time="soon"/></speak>').message).toMatch(/break time="soon"/);
    expect(invalidSsml('<speak><prosody rate="warp">x</prosody></speak>').message).toMatch(/prosody rate="warp"/);
    expect(invalidSsml('<speak>a</speak><speak>b</speak>').message).toMatch(/only root/);
    expect(invalidSsml('<speak><!-- open').message).toMatch(/comment/);
  });

  it('parses 40,000 characters of hostile markup in linear time', () => {
    // Patterns that make backtracking parsers explode: many opens, many unclosed quotes.
    const opens = '<p>'.repeat(13_000);
    const started = performance.now();
    invalidSsml(opens);
    invalidSsml(`<speak><break time="${'9'.repeat(39_990)}`);
    const deep = `${'<prosody rate="1.0">'.repeat(1_500)}x${'</prosody>'.repeat(1_500)}`;
    expect(parseSsml(deep)).toEqual([{ kind: 'text', text: 'x', rate: 1 }]);
    // Not a timing assertion of precision: quadratic work here would take minutes, not seconds.
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('plain text is one segment at the request rate', () => {
    expect(plainSegments('  Hello <b> & co  ', 1.5)).toEqual([{ kind: 'text', text: 'Hello <b> & co', rate: 1.5 }]);
    expect(plainSegments('   ')).toEqual([]);
  });
});

describe('chunkText', () => {
  it('cuts at sentence ends, keeps every word, and never exceeds the limit', () => {
    const text = 'One two three. Four five six! Seven eight nine? Ten eleven twelve. '.repeat(100);
    const chunks = chunkText(text, 200);
    expect(chunks.every((c) => c.length <= 200)).toBe(true);
    expect(chunks.every((c) => /[.!?]$/.test(c))).toBe(true);
    expect(chunks.join(' ').split(/\s+/)).toEqual(text.trim().split(/\s+/));
  });

  it('cuts a text without sentence ends at spaces, and one without spaces at the limit', () => {
    expect(chunkText('word '.repeat(100), 42).every((c) => c.length <= 42 && !c.includes('wor d'))).toBe(true);
    expect(chunkText('x'.repeat(100), 40)).toEqual(['x'.repeat(40), 'x'.repeat(40), 'x'.repeat(20)]);
  });
});
