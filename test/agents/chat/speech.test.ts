import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../../helpers/harness.ts';
import { startTlsServer, type ReceivedRequest, type TestServer } from '../../helpers/tls.ts';
import { toneCatalogue } from '../../helpers/tone-voice.ts';
import { makeTool } from '../../helpers/tools.ts';
import { modulesWithStreams, recordingStreams, type RecordingStreams } from '../../helpers/recording-streams.ts';
import { chunk, writeEvents } from '../../llm/model-server.ts';

/**
 * An answer spoken on an agent stream: the streams module is a test double (in the real
 * one's place in the module list) that records
 * each sentence, and the loopback model server holds its stream open until the first
 * sentence has reached the speaker, so a speech that waited for the model's end would fail
 * here (the hold gives up after 20 s and the order of events shows it).
 */

let model: TestServer;
let h: Harness;
let streams: RecordingStreams;
let key: string;
let userId: string;
let handler: (req: ReceivedRequest, res: ServerResponse) => void | Promise<void>;

beforeAll(async () => {
  model = await startTlsServer();
  streams = recordingStreams();
  h = harness({ MIMIC_EGRESS_ALLOW: 'localhost' }, { ca: [model.ca], voices: toneCatalogue('local').catalogue }, modulesWithStreams(streams.hub));
  ({ key, id: userId } = h.user());
  model.handle((req, res) => handler(req, res));
});
afterAll(async () => {
  await h.close();
  await model.close();
});
beforeEach(() => {
  streams.log.length = 0;
  model.received.length = 0;
});

async function makeAgent(tools: string[] = []): Promise<string> {
  const res = await h.call('POST', '/agents', {
    key,
    body: { presenter: { type: 'clip', presenter_id: 'eileen-Nc7kQ2rT5x' }, llm: { provider: 'openai', model: 'gpt-test', base_url: `${model.url}/v1`, tools } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}
async function makeChat(agent: string): Promise<string> {
  const res = await h.call('POST', `/agents/${agent}/chat`, { key });
  expect(res.status).toBe(201);
  return res.body.id;
}
const ask = (agent: string, chat: string, extra: Record<string, unknown>) =>
  h.call('POST', `/agents/${agent}/chat/${chat}`, { key, body: { messages: [{ role: 'user', content: 'Who are you?' }], ...extra } });

describe('an answer spoken on the agent stream', () => {
  it('reaches the speaker sentence by sentence while the model still streams, then the answer and the end go out', async () => {
    const agent = await makeAgent();
    const chat = await makeChat(agent);
    streams.open(userId, 'strm_1', 'sess_1', agent);
    handler = async (_req, res) => {
      writeEvents(res, [chunk({ content: 'Hello there. Dr. Smith' }), chunk({ content: ' said the price is 3.5 euros! I am' })], false);
      // Held until the first sentences are spoken (or 20 s: then the log's order fails the test).
      await streams.waitFor((e) => e.startsWith('say:Dr. Smith')).catch(() => {});
      streams.log.push('model:end');
      writeEvents(res, [chunk({ content: ' Emma' }), chunk({}, 'stop')]);
    };
    const res = await ask(agent, chat, { streamId: 'strm_1', sessionId: 'sess_1' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const text = 'Hello there. Dr. Smith said the price is 3.5 euros! I am Emma';
    expect(res.body.result).toBe(text);
    expect(streams.log).toEqual([
      'say:Hello there.',
      'say:Dr. Smith said the price is 3.5 euros!',
      'model:end',
      'say:I am Emma',
      `send:chat/answer:${encodeURIComponent(text)}`,
      'end',
    ]);
  });

  it('does not speak a round that turns into tool calls; a client tool is announced on the data channel', async () => {
    const map = await makeTool(h, key, {
      name: 'show_map', description: 'Shows a map', provider: 'browser',
      schema: { parameters: { type: 'object', properties: { place: { type: 'string' } } } }, config: { type: 'client' },
    });
    const agent = await makeAgent([map]);
    const chat = await makeChat(agent);
    streams.open(userId, 'strm_2', 'sess_2', agent);
    handler = (_req, res) =>
      writeEvents(res, [
        chunk({ content: 'One moment, let me open' }),
        chunk({ tool_calls: [{ index: 0, id: 'call_m', type: 'function', function: { name: 'show_map', arguments: '{"place":"Oslo"}' } }] }),
        chunk({}, 'tool_calls'),
      ]);
    const res = await ask(agent, chat, { streamId: 'strm_2', sessionId: 'sess_2' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const toolCalls = [{ id: 'call_m', name: 'show_map', tool_id: map, arguments: '{"place":"Oslo"}' }];
    expect(res.body.toolCalls).toEqual(toolCalls);
    expect(streams.log).toEqual([
      `send:chat/tool-calls:${JSON.stringify({ toolCalls })}`,
      `send:chat/answer:${encodeURIComponent('One moment, let me open')}`,
      'end',
    ]);
  });

  it('refuses a wrong stream or session before the model is called', async () => {
    const agent = await makeAgent();
    const other = await makeAgent();
    const chat = await makeChat(agent);
    streams.open(userId, 'strm_3', 'sess_3', agent);
    streams.open(userId, 'strm_other_agent', 'sess_4', other);
    streams.open('usr_someone_else', 'strm_foreign', 'sess_5', agent);
    handler = (_req, res) => writeEvents(res, [chunk({ content: 'Never.' }), chunk({}, 'stop')]);
    for (const [extra, status, match] of [
      [{ streamId: 'strm_nope', sessionId: 'sess_3' }, 404, /not found/i],
      [{ streamId: 'strm_foreign', sessionId: 'sess_5' }, 404, /not found/i],
      [{ streamId: 'strm_other_agent', sessionId: 'sess_4' }, 404, /not found/i],
      [{ streamId: 'strm_3', sessionId: 'sess_wrong' }, 400, /missing or invalid session_id/],
      [{ streamId: 'strm_3' }, 400, /missing or invalid session_id/],
      [{ sessionId: 'sess_3' }, 400, /streamId is required/],
    ] as const) {
      const res = await ask(agent, chat, extra);
      expect(res.status, JSON.stringify(extra)).toBe(status);
      expect(res.body.description, JSON.stringify(extra)).toMatch(match);
    }
    expect(model.received).toHaveLength(0);
    expect(streams.log).toEqual([]);
  });

  it('ends the speech when the model fails after speaking, and answers the failure', async () => {
    const agent = await makeAgent();
    const chat = await makeChat(agent);
    streams.open(userId, 'strm_6', 'sess_6', agent);
    handler = (_req, res) => {
      writeEvents(res, [chunk({ content: 'First sentence. Then' })], false);
      res.end('data: {broken json\n\n');
    };
    const res = await ask(agent, chat, { streamId: 'strm_6', sessionId: 'sess_6' });
    expect(res.status).toBe(502);
    expect(streams.log).toEqual(['say:First sentence.', 'end']);
  });

  it('completes the answer when the stream goes away mid-answer, logging it once', async () => {
    const agent = await makeAgent();
    const chat = await makeChat(agent);
    streams.open(userId, 'strm_7', 'sess_7', agent, { gone: true });
    handler = (_req, res) => writeEvents(res, [chunk({ content: 'One. Two. Three.' }), chunk({}, 'stop')]);
    const before = h.logs.length;
    const res = await ask(agent, chat, { streamId: 'strm_7', sessionId: 'sess_7' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toBe('One. Two. Three.');
    expect(h.logs.slice(before).filter((l) => l.includes('the stream stopped taking speech'))).toHaveLength(1);
  });
});
