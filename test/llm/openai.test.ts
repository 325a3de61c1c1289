import type { ServerResponse } from 'node:http';
import { beforeEach, describe, expect, it } from 'vitest';
import { createGuardedClient, type GuardedClient } from '../../src/egress/client.ts';
import { createOpenAIChat } from '../../src/llm/openai.ts';
import { createCustomChat } from '../../src/llm/custom.ts';
import { LlmError, type ChatModel } from '../../src/llm/interface.ts';
import { CANARY, leakedIn } from '../helpers/canaries.ts';
import { rejectionOf } from '../helpers/rejection.ts';
import type { TestServer } from '../helpers/tls.ts';
import { loopbackModelServer } from './model-server.ts';

/** A loopback model server that streams as OpenAI's chat completions do. */
let model: ChatModel;

const sse = (res: ServerResponse, events: unknown[], opts: { done?: boolean } = {}) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const e of events) res.write(`data: ${JSON.stringify(e)}\n\n`);
  if (opts.done !== false) res.write('data: [DONE]\n\n');
  res.end();
};
const delta = (d: object, finish: string | null = null) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: d, finish_reason: finish }] });
const failure = (p: Promise<unknown>) => rejectionOf(p, LlmError);

const world = loopbackModelServer();
let server: TestServer;
let client: GuardedClient;
beforeEach(() => {
  ({ server, client } = world);
  server.received.length = 0;
  model = createOpenAIChat({ baseUrl: `${server.url}/v1/`, model: 'gpt-test', client, headers: async () => ({ authorization: `Bearer ${CANARY.bearer}` }) });
});

describe('OpenAI-compatible chat completions', () => {
  it('streams the text in order and sends model, messages, stream, tools and the bearer header', async () => {
    server.handle((_req, res) => sse(res, [delta({ role: 'assistant', content: '' }), delta({ content: 'Hel' }), delta({ content: 'lo, ' }), delta({ content: 'Oslo!' }), delta({}, 'stop')]));
    const pieces: string[] = [];
    const answer = await model.complete({
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }],
      tools: [{ name: 'weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
      temperature: 0.2,
      onText: (d) => pieces.push(d),
    });
    expect(answer).toEqual({ text: 'Hello, Oslo!', toolCalls: [], finishReason: 'stop' });
    expect(pieces).toEqual(['Hel', 'lo, ', 'Oslo!']);
    const [req] = server.received;
    expect(req!.path).toBe('/v1/chat/completions');
    expect(req!.headers.authorization).toBe(`Bearer ${CANARY.bearer}`);
    expect(JSON.parse(req!.body.toString())).toEqual({
      model: 'gpt-test',
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }],
      stream: true,
      tools: [{ type: 'function', function: { name: 'weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
      temperature: 0.2,
    });
  });

  it('joins streamed tool-call fragments by index, and sends tool results back in the OpenAI shape', async () => {
    server.handle((_req, res) =>
      sse(res, [
        delta({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'weather', arguments: '' } }] }),
        delta({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'time', arguments: '{"tz":' } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
        delta({ tool_calls: [{ index: 1, function: { arguments: '"UTC"}' } }] }),
        delta({}, 'tool_calls'),
      ]),
    );
    const answer = await model.complete({ messages: [{ role: 'user', content: 'Weather and time?' }] });
    expect(answer).toEqual({
      text: '',
      finishReason: 'tool_calls',
      toolCalls: [
        { id: 'call_a', name: 'weather', arguments: '{"city":"Oslo"}' },
        { id: 'call_b', name: 'time', arguments: '{"tz":"UTC"}' },
      ],
    });
    server.handle((_req, res) => sse(res, [delta({ content: 'Sunny.' }, 'stop')]));
    await model.complete({
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', name: 'weather', arguments: '{"city":"Oslo"}' }] },
        { role: 'tool', tool_call_id: 'call_a', content: '{"sky":"clear"}' },
      ],
    });
    expect(JSON.parse(server.received.at(-1)!.body.toString()).messages).toEqual([
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }] },
      { role: 'tool', tool_call_id: 'call_a', content: '{"sky":"clear"}' },
    ]);
  });

  it('reads a server that answers one JSON completion instead of a stream', async () => {
    server.handle((_req, res) =>
      void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'Plain answer.' }, finish_reason: 'stop' }] })),
    );
    const pieces: string[] = [];
    expect(await model.complete({ messages: [{ role: 'user', content: 'Hi' }], onText: (d) => pieces.push(d) })).toEqual({ text: 'Plain answer.', toolCalls: [], finishReason: 'stop' });
    expect(pieces).toEqual(['Plain answer.']);
  });

  it.each([
    [401, 'auth', { error: { message: `Incorrect API key provided: ${CANARY.bearer}`, type: 'invalid_request_error', code: 'invalid_api_key' } }],
    [429, 'rate_limited', { error: { message: `Rate limit for ${CANARY.bearer}`, code: 'rate_limit_exceeded' } }],
    [404, 'bad_request', { error: { message: 'The model `gpt-test` does not exist', code: 'model_not_found' } }],
    [500, 'unavailable', { error: `internal: ${CANARY.bearer}` }],
  ])('maps HTTP %i to %s, naming the status and code but never the server\'s text', async (status, reason, body) => {
    server.handle((_req, res) => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
    const err = await failure(model.complete({ messages: [{ role: 'user', content: 'Hi' }] }));
    expect(err.reason).toBe(reason);
    expect(err.status).toBe(status);
    expect(err.message).toMatch(new RegExp(`HTTP ${status}`));
    expect(leakedIn(`${err.message} ${err.stack}`)).toEqual([]);
    expect(err.message).not.toMatch(/Incorrect|does not exist|internal/);
  });

  it('is a protocol error when the stream is not JSON, or a tool call has no name', async () => {
    server.handle((_req, res) => void res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {not json\n\n'));
    expect((await failure(model.complete({ messages: [{ role: 'user', content: 'Hi' }] }))).reason).toBe('protocol');
    server.handle((_req, res) => sse(res, [delta({ tool_calls: [{ index: 0, id: 'c', function: { arguments: '{}' } }] }, 'tool_calls')]));
    expect((await failure(model.complete({ messages: [{ role: 'user', content: 'Hi' }] }))).reason).toBe('protocol');
    server.handle((_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>'));
    expect((await failure(model.complete({ messages: [{ role: 'user', content: 'Hi' }] }))).reason).toBe('protocol');
  });

  it('stops at once when cancelled mid-answer (barge-in), and when the server goes quiet', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(delta({ content: 'Once upon' }))}\n\n`);
      // ...and never another byte.
    });
    const controller = new AbortController();
    const pieces: string[] = [];
    const pending = model.complete({ messages: [{ role: 'user', content: 'A story' }], signal: controller.signal, onText: (d) => {
      pieces.push(d);
      controller.abort();
    } });
    expect((await failure(pending)).reason).toBe('cancelled');
    expect(pieces).toEqual(['Once upon']);

    const quiet = createOpenAIChat({ baseUrl: `${server.url}/v1`, model: 'm', client, limits: { idleTimeoutMs: 200 } });
    const err = await failure(quiet.complete({ messages: [{ role: 'user', content: 'A story' }] }));
    expect(err.reason).toBe('timeout');
    expect(err.message).toMatch(/sent nothing for 200 ms/);
  });

  it('is refused by the egress policy for an address the operator did not allow', async () => {
    const strict = createGuardedClient({ allow: [], defaultTimeoutMs: 2000, defaultMaxBytes: 1024 });
    try {
      const m = createOpenAIChat({ baseUrl: `${server.url}/strict/v1`, model: 'm', client: strict });
      expect((await failure(m.complete({ messages: [{ role: 'user', content: 'Hi' }] }))).reason).toBe('refused');
      expect(server.received.filter((r) => r.path.startsWith('/strict'))).toEqual([]);
    } finally {
      await strict.close();
    }
  });

  it('holds the whole answer to its byte limit', async () => {
    server.handle((_req, res) => sse(res, Array.from({ length: 200 }, () => delta({ content: 'x'.repeat(100) }))));
    const small = createOpenAIChat({ baseUrl: `${server.url}/v1`, model: 'm', client, limits: { maxBytes: 4096 } });
    expect((await failure(small.complete({ messages: [{ role: 'user', content: 'Hi' }] }))).reason).toBe('unavailable');
  });
});

describe('the hosted service\'s custom LLM contract', () => {
  it('streams deltas, or reads {content}, with x-api-key', async () => {
    const custom = createCustomChat({ url: `${server.url}/my-llm`, client, headers: async () => ({ 'x-api-key': CANARY.apiKey }) });
    server.handle((_req, res) => sse(res, [{ choices: [{ delta: { content: 'Hi ' } }] }, { choices: [{ delta: { content: 'there' } }] }]));
    expect((await custom.complete({ messages: [{ role: 'user', content: 'Hello' }] })).text).toBe('Hi there');
    const req = server.received.at(-1)!;
    expect(req.path).toBe('/my-llm');
    expect(req.headers['x-api-key']).toBe(CANARY.apiKey);
    expect(JSON.parse(req.body.toString())).toEqual({ messages: [{ role: 'user', content: 'Hello' }], stream: true });

    server.handle((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ content: 'Whole answer' })));
    expect(await custom.complete({ messages: [{ role: 'user', content: 'Hello' }] })).toEqual({ text: 'Whole answer', toolCalls: [], finishReason: 'stop' });

    server.handle((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ answer: 'no content field' })));
    expect((await failure(custom.complete({ messages: [{ role: 'user', content: 'Hello' }] }))).reason).toBe('protocol');
    expect((await failure(custom.complete({ messages: [{ role: 'user', content: 'Hello' }], tools: [{ name: 't', parameters: {} }] }))).reason).toBe('bad_request');
  });
});
