/** Server-sent events read from a response body as they arrive: each `{event, data}` (data parsed as JSON). */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string; data: any }> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffered += value;
      let cut: number;
      while ((cut = buffered.indexOf('\n\n')) >= 0) {
        const block = buffered.slice(0, cut);
        buffered = buffered.slice(cut + 2);
        const event = /^event: ?(.*)$/m.exec(block)?.[1];
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n');
        if (event === undefined && data === '') continue; // a comment (heartbeat)
        yield { event: event ?? 'message', data: data === '' ? null : JSON.parse(data) };
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
