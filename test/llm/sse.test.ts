import { describe, expect, it } from 'vitest';
import { sseReader, type SseEvent } from '../../src/llm/sse.ts';

const read = (chunks: (string | Buffer)[]): SseEvent[] => {
  const out: SseEvent[] = [];
  const r = sseReader((e) => out.push(e));
  for (const c of chunks) r.push(typeof c === 'string' ? Buffer.from(c) : c);
  r.end();
  return out;
};

describe('server-sent events reader', () => {
  it('reads events whatever the chunking: CRLF, LF, CR, comments, multi-line data, named events', () => {
    const text = ': keep-alive\r\ndata: {"a":1}\r\n\r\nevent: ping\ndata: x\ndata: y\n\ndata:z\r\rid: 7\ndata: last\n\n';
    const whole = read([text]);
    expect(whole).toEqual([
      { event: 'message', data: '{"a":1}' },
      { event: 'ping', data: 'x\ny' },
      { event: 'message', data: 'z' },
      { event: 'message', data: 'last' },
    ]);
    // Every split point, including between \r and \n, gives the same events.
    for (let i = 1; i < text.length; i++) expect(read([text.slice(0, i), text.slice(i)])).toEqual(whole);
  });

  it('keeps a UTF-8 character split across chunks', () => {
    const bytes = Buffer.from('data: héllo ✓\n\n');
    for (let i = 1; i < bytes.length; i++) expect(read([bytes.subarray(0, i), bytes.subarray(i)])).toEqual([{ event: 'message', data: 'héllo ✓' }]);
  });

  it('dispatches an event the stream ended without a blank line after', () => {
    expect(read(['data: tail'])).toEqual([{ event: 'message', data: 'tail' }]);
  });

  it('refuses a line without end (a broken or hostile stream)', () => {
    const r = sseReader(() => undefined);
    expect(() => {
      for (let i = 0; i < 20; i++) r.push(Buffer.alloc(64 * 1024, 'a'));
    }).toThrow(/longer than/);
  });
});
