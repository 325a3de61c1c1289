// Live records: a page follows a resource (a consent being verified, a clip rendering) through
// the public API's server-sent events, GET /{kind}/{id}/events. EventSource cannot send a
// bearer token, so this reads the event stream with fetch. A dropped connection is followed
// again after a growing pause; a refusal the client caused (404, 400) ends the watch.

import { forgetToken, getToken } from './api.js';

const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 10_000;

/** Sleeps `ms`, or less when `signal` aborts. */
function pause(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/** An API refusal that following again would not change. */
export class WatchError extends Error {
  constructor(status, body) {
    super(typeof body?.description === 'string' ? body.description : `The service answered ${status}.`);
    this.status = status;
    this.body = body;
  }
}

/** Reads one event stream; answers 'end', 'deleted', or undefined when it closed early. */
async function follow(res, onRecord) {
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return undefined;
    buffered += value.replace(/\r\n?/g, '\n');
    let cut;
    while ((cut = buffered.indexOf('\n\n')) >= 0) {
      const block = buffered.slice(0, cut);
      buffered = buffered.slice(cut + 2);
      let event = 'message';
      const data = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (event === 'record' && data.length) onRecord(JSON.parse(data.join('\n')));
      else if (event === 'end' || event === 'deleted') {
        await reader.cancel().catch(() => undefined);
        return event;
      }
    }
  }
}

/**
 * Follows the record at `path` (`/consents/cst_…/events`): `onRecord(record)` with the record
 * at once and after each change. Resolves with 'end' once the record will change no more, or
 * 'deleted'; resolves undefined when `signal` aborts; rejects with a WatchError when the API
 * refuses the watch itself (not found, say).
 */
export async function watch(path, onRecord, { signal } = {}) {
  let delay = FIRST_RETRY_MS;
  while (!signal?.aborted) {
    try {
      const res = await fetch(path, { headers: { authorization: `Bearer ${await getToken()}`, accept: 'text/event-stream' }, signal });
      if (res.status === 401) {
        forgetToken();
      } else if (!res.ok) {
        const body = await res.json().catch(() => null);
        if (res.status < 500 && res.status !== 429) throw new WatchError(res.status, body);
      } else {
        const ended = await follow(res, (record) => {
          delay = FIRST_RETRY_MS;
          onRecord(record);
        });
        if (ended) return ended;
      }
    } catch (err) {
      if (err instanceof WatchError) throw err;
      if (signal?.aborted) return undefined;
      // A dropped connection or a network error: follow again after a pause.
    }
    await pause(delay, signal);
    delay = Math.min(delay * 2, LAST_RETRY_MS);
  }
  return undefined;
}
