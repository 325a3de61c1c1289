/**
 * An incremental reader of server-sent events (the WHATWG event-stream format): bytes in,
 * events out, whatever the chunking (a line, or a UTF-8 character, may be split across
 * chunks). Only `data` and `event` fields matter here; comments and `id`/`retry` are skipped.
 */
export interface SseEvent {
  event: string;
  data: string;
}

export interface SseReader {
  push(chunk: Buffer): void;
  /** Flushes an event the stream ended without a blank line after. */
  end(): void;
}

/** Longest line accepted: a model's single delta is small; anything larger is a broken or hostile stream. */
const MAX_LINE = 1024 * 1024;

export function sseReader(onEvent: (e: SseEvent) => void): SseReader {
  const decoder = new TextDecoder('utf-8');
  let buffer = '';
  let data: string[] = [];
  let event = '';
  let sawBom = false;

  const dispatch = () => {
    if (data.length > 0) onEvent({ event: event || 'message', data: data.join('\n') });
    data = [];
    event = '';
  };

  const line = (text: string) => {
    if (text === '') return dispatch();
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  };

  const drain = (final: boolean) => {
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer[i];
      if (c !== '\n' && c !== '\r') continue;
      // A \r at the very end may be the first half of \r\n: wait for the next chunk.
      if (c === '\r' && i === buffer.length - 1 && !final) break;
      line(buffer.slice(start, i));
      if (c === '\r' && buffer[i + 1] === '\n') i++;
      start = i + 1;
    }
    buffer = buffer.slice(start);
    if (buffer.length > MAX_LINE) throw new Error(`event-stream line longer than ${MAX_LINE} characters`);
  };

  return {
    push(chunk) {
      let text = decoder.decode(chunk, { stream: true });
      if (!sawBom) {
        sawBom = true;
        if (text.startsWith('\uFEFF')) text = text.slice(1);
      }
      buffer += text;
      drain(false);
    },
    end() {
      buffer += decoder.decode();
      drain(true);
      if (buffer !== '') line(buffer);
      buffer = '';
      dispatch();
    },
  };
}
