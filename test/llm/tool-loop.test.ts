import { describe, expect, it } from 'vitest';
import { createOpenAIChat } from '../../src/llm/openai.ts';
import { answerWithTools, type ToolOutcome } from '../../src/llm/tool-loop.ts';
import type { ChatAnswer, ChatModel, ChatRequest, ToolCall, ToolSpec } from '../../src/llm/interface.ts';
import { loopbackModelServer } from './model-server.ts';

/** A model double that answers from a script, one answer per call, and keeps what it was sent. */
function scriptedModel(answers: Partial<ChatAnswer>[]): ChatModel & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    provider: 'script',
    model: 'script',
    requests,
    async complete(request) {
      requests.push({ ...request, messages: [...request.messages] });
      const a = answers.shift() ?? { text: 'out of script' };
      if (a.text) request.onText?.(a.text);
      return { text: a.text ?? '', toolCalls: a.toolCalls ?? [], finishReason: a.toolCalls?.length ? 'tool_calls' : 'stop' };
    },
  };
}

const weather: ToolSpec = { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const showMap: ToolSpec = { name: 'show_map', parameters: { type: 'object' } };
const call = (id: string, name: string, args: object): ToolCall => ({ id, name, arguments: JSON.stringify(args) });

describe('the tool-call loop', () => {
  it('runs server tools, gives their results back, and ends with the model\'s words', async () => {
    const model = scriptedModel([{ toolCalls: [call('c1', 'weather', { city: 'Oslo' })] }, { text: 'It is clear in Oslo.' }]);
    const ran: ToolCall[] = [];
    const spoken: string[] = [];
    const result = await answerWithTools({
      model,
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      serverTools: [weather],
      runServerTool: async (c) => {
        ran.push(c);
        return { content: '{"sky":"clear"}', failed: false };
      },
      onText: (d) => spoken.push(d),
    });
    expect(ran).toEqual([call('c1', 'weather', { city: 'Oslo' })]);
    expect(result).toEqual({
      text: 'It is clear in Oslo.',
      rounds: 2,
      clientCalls: [],
      added: [
        { role: 'assistant', content: null, tool_calls: [call('c1', 'weather', { city: 'Oslo' })] },
        { role: 'tool', tool_call_id: 'c1', content: '{"sky":"clear"}' },
        { role: 'assistant', content: 'It is clear in Oslo.' },
      ],
    });
    expect(model.requests[1]!.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c1', content: '{"sky":"clear"}' });
    expect(spoken).toEqual(['It is clear in Oslo.']);
  });

  it('hands client tools back to the caller after running the server tools of the same round', async () => {
    const model = scriptedModel([{ toolCalls: [call('c1', 'weather', { city: 'Oslo' }), call('c2', 'show_map', { city: 'Oslo' })] }]);
    const result = await answerWithTools({
      model, messages: [{ role: 'user', content: 'Show me Oslo' }], serverTools: [weather], clientTools: [showMap],
      runServerTool: async () => ({ content: 'ok', failed: false }),
    });
    expect(result.clientCalls).toEqual([call('c2', 'show_map', { city: 'Oslo' })]);
    expect(result.added.filter((m) => m.role === 'tool')).toEqual([{ role: 'tool', tool_call_id: 'c1', content: 'ok' }]);
  });

  it('tells the model when it names a tool it was not given, never running anything', async () => {
    const model = scriptedModel([{ toolCalls: [call('c1', 'delete_everything', {})] }, { text: 'Sorry.' }]);
    let ran = 0;
    const result = await answerWithTools({ model, messages: [{ role: 'user', content: 'x' }], serverTools: [weather], runServerTool: async () => ((ran++), { content: '', failed: false }) });
    expect(ran).toBe(0);
    expect(result.added[1]).toEqual({ role: 'tool', tool_call_id: 'c1', content: 'There is no tool named "delete_everything".' });
  });

  it('stops after maxRounds, caps the calls per round and cuts long results', async () => {
    const many = Array.from({ length: 3 }, (_, i) => call(`c${i}`, 'weather', { city: `C${i}` }));
    const model = scriptedModel([{ toolCalls: many }, { toolCalls: many }, { toolCalls: many }]);
    let ran = 0;
    const result = await answerWithTools({
      model, messages: [{ role: 'user', content: 'loop' }], serverTools: [weather],
      runServerTool: async (): Promise<ToolOutcome> => ((ran++), { content: 'y'.repeat(50), failed: false }),
      limits: { maxRounds: 2, maxCallsPerRound: 2, maxResultChars: 10 },
    });
    expect(result.stopped).toBe('max_rounds');
    expect(result.rounds).toBe(2);
    expect(ran).toBe(4);
    const tools = result.added.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(tools[0]).toBe('yyyyyyyyyy… [cut: 40 more characters]');
    expect(tools[2]).toMatch(/^Not run: at most 2 tool calls/);
  });
});

describe('the loop against a loopback model server that streams tool calls', () => {
  const world = loopbackModelServer();

  it('asks, runs the tool, answers with its result', async () => {
    const { server, client } = world;
    server.handle((req, res) => {
      const { messages } = JSON.parse(req.body.toString()) as { messages: { role: string; content: string }[] };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (d: object, finish: string | null = null) => res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: d, finish_reason: finish }] })}\n\n`);
      const last = messages.at(-1)!;
      if (last.role === 'tool') {
        send({ content: `The sky is ${(JSON.parse(last.content) as { sky: string }).sky}.` });
        send({}, 'stop');
      } else {
        send({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"ci' } }] });
        send({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Oslo"}' } }] });
        send({}, 'tool_calls');
      }
      res.end('data: [DONE]\n\n');
    });
    const model = createOpenAIChat({ baseUrl: `${server.url}/v1`, model: 'm', client });
    const seen: ToolCall[] = [];
    const result = await answerWithTools({
      model, messages: [{ role: 'user', content: 'Weather in Oslo?' }], serverTools: [weather],
      runServerTool: async (c) => {
        seen.push(c);
        return { content: JSON.stringify({ sky: JSON.parse(c.arguments).city === 'Oslo' ? 'clear' : '?' }), failed: false };
      },
    });
    expect(seen).toEqual([{ id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' }]);
    expect(result.text).toBe('The sky is clear.');
    expect(server.received).toHaveLength(2);
  });
});
