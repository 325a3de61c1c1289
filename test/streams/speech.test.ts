/** Speaking on a live stream: queueing, barge-in (data channel and HTTP), credits, audio scripts, and agent streams with the chat speaker. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRESENTER, SESSION_ERROR, connect, credits, streamSuite } from './helpers.ts';
import { runFfmpeg } from '../../src/media/ffmpeg.ts';
import { ApiError } from '../../src/errors.ts';
import { uploadPhoto } from '../talks/helpers.ts';
import { sentences, trimLeadingSilence, type SpeechPiece } from '../../src/streams/speech.ts';
import { createToneVoice } from '../helpers/tone-voice.ts';
import { createVoiceCatalogue } from '../../src/voices/catalogue.ts';
import { SpeechError, type SpeechRequest } from '../../src/voices/interface.ts';

const suite = streamSuite();
const agentBody = { preview_name: 'Emma', presenter: { type: 'clip', presenter_id: PRESENTER }, llm: { provider: 'openai', model: 'llama3.2', base_url: 'http://localhost:11434/v1', instructions: 'Be brief.' } };
const LONG = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
const subjects = (messages: string[]) => messages.map((m) => m.split(':')[0]);
const videoIdOf = (message: string) => (JSON.parse(message.slice(message.indexOf(':') + 1)) as { metadata: { videoId: string } }).metadata.videoId;

describe('scripts on a stream', () => {
  it('queues a script posted while another plays: each gets its stream/started and stream/done, in order', async () => {
    const { h } = suite.make();
    const u = h.user();
    const s = suite.keep(await connect(h, u.key, '/clips/streams', { presenter_id: PRESENTER }));
    const say = (input: string) => h.call('POST', s.path, { key: u.key, body: { session_id: s.sessionId, script: { type: 'text', input } } });
    const [a, b] = [await say('First script here.'), await say('Second script here.')];
    expect([a.status, b.status]).toEqual([200, 200]);
    await s.peer.waitUntil(() => s.peer.messages.filter((m) => m.startsWith('stream/done')).length === 2, 'both scripts done');
    expect(subjects(s.peer.messages)).toEqual(['stream/started', 'stream/done', 'stream/started', 'stream/done']);
    expect(s.peer.messages.map(videoIdOf)).toEqual([a.body.video_id, a.body.video_id, b.body.video_id, b.body.video_id]);
  });

  it('stops the current speech at once on the SDK\'s stream/interrupt message, drops the queued script, and goes on with the next one', async () => {
    const t = suite.make();
    const { h } = t;
    const u = h.user();
    const s = suite.keep(await connect(h, u.key, '/clips/streams', { presenter_id: PRESENTER, fluent: true }));
    expect(s.create.interrupt_enabled).toBe(true);
    const say = (input: string) => h.call('POST', s.path, { key: u.key, body: { session_id: s.sessionId, script: { type: 'text', input } } });
    const long = await say(LONG);
    const dropped = await say('This one is dropped.');
    await s.peer.waitFor('stream/started');
    s.peer.send(JSON.stringify({ type: 'stream/interrupt', videoId: long.body.video_id, timestamp: Date.now() }));
    const done = await s.peer.waitFor('stream/done');
    expect(JSON.parse(done.slice('stream/done:'.length))).toEqual({ metadata: { videoId: long.body.video_id }, interrupted: true });
    const next = await say('And now this one.');
    await s.peer.waitUntil(() => s.peer.messages.filter((m) => m.startsWith('stream/done')).length === 2, 'the next script done');
    expect(s.peer.messages.map(videoIdOf)).toEqual([long.body.video_id, long.body.video_id, next.body.video_id, next.body.video_id]);
    expect(s.peer.messages.some((m) => m.includes(dropped.body.video_id))).toBe(false);
  });

  it('stops the current speech on POST …/interrupt (the documented HTTP barge-in)', async () => {
    const { h } = suite.make();
    const u = h.user();
    const s = suite.keep(await connect(h, u.key, '/talks/streams', { source_url: await uploadPhoto(h, u.key) }));
    const long = await h.call('POST', s.path, { key: u.key, body: { session_id: s.sessionId, script: { type: 'text', input: LONG } } });
    await s.peer.waitFor('stream/started');
    const res = await h.call('POST', `${s.path}/interrupt`, { key: u.key, body: { session_id: s.sessionId } });
    expect(res).toMatchObject({ status: 200, body: { status: 'success' } });
    const done = await s.peer.waitFor('stream/done');
    expect(done).toContain('"interrupted":true');
    expect(done).toContain(long.body.video_id);
  });

  it('speaks an audio script from the media store', async () => {
    const t = suite.make();
    const { h, renderer } = t;
    const u = h.user();
    const dir = mkdtempSync(join(tmpdir(), 'strm-audio-'));
    try {
      const file = join(dir, 'a.mp3');
      expect((await runFfmpeg(['-y', '-f', 'lavfi', '-i', 'sine=frequency=300:duration=1.5', '-c:a', 'libmp3lame', '-b:a', '32k', file])).code).toBe(0);
      const form = new FormData();
      form.set('audio', new Blob([readFileSync(file)]), 'a.mp3');
      const up = (await (await h.app.request('/audios', { method: 'POST', headers: { authorization: `Basic ${u.key}` }, body: form })).json()) as { url: string };
      const s = suite.keep(await connect(h, u.key, '/clips/streams', { presenter_id: PRESENTER }));
      const res = await h.call('POST', s.path, { key: u.key, body: { session_id: s.sessionId, script: { type: 'audio', audio_url: up.url }, background: { color: '#FFFFFF' }, config: { stitch: true } } });
      expect(res.status).toBe(200);
      expect(res.body.duration).toBeGreaterThan(1.3);
      expect(res.body.duration).toBeLessThan(1.7);
      await s.peer.waitFor('stream/done');
      expect(renderer.speeches).toEqual([{ videoId: res.body.video_id, ms: expect.any(Number), last: true }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('streaming as it is synthesised', () => {
  it('splits a text into sentences', () => {
    expect(sentences('Hello there. How are you today?  Fine! And... you')).toEqual(['Hello there.', 'How are you today?', 'Fine!', 'And...', 'you']);
    expect(sentences('no punctuation at all')).toEqual(['no punctuation at all']);
    expect(sentences('... !!')).toEqual([]);
  });

  it('hands the first sentence to the renderer before the second is synthesised', async () => {
    // A voice whose second sentence waits until the renderer has the first: a hub that synthesised the whole script first would never finish.
    const tone = createToneVoice('flite');
    let renderer: { speeches: unknown[] } | undefined;
    const gated = {
      ...tone,
      async synthesize(req: SpeechRequest) {
        if (tone.calls.length >= 1) {
          const started = Date.now();
          while (renderer!.speeches.length === 0) {
            if (Date.now() - started > 20_000) throw new Error('the first sentence never reached the renderer');
            await new Promise((r) => setTimeout(r, 20));
          }
        }
        return tone.synthesize(req);
      },
    };
    const t = suite.make({}, createVoiceCatalogue({ providers: [gated], fallback: 'local' }));
    renderer = t.renderer;
    const { h } = t;
    const u = h.user();
    const s = suite.keep(await connect(h, u.key, '/clips/streams', { presenter_id: PRESENTER }));
    await h.call('POST', s.path, { key: u.key, body: { session_id: s.sessionId, script: { type: 'text', input: 'First sentence here. Second sentence here.' } } });
    const done = await s.peer.waitFor('stream/done');
    expect(done).not.toContain('interrupted');
    expect(t.renderer.speeches.map((p) => p.last)).toEqual([false, true]);
    expect(s.peer.messages.some((m) => m.startsWith('stream/error'))).toBe(false);
  });
});

describe('a voice that fails', () => {
  it('sends stream/error for the script, ends what already played with stream/done, drops the rest, and the stream goes on', async () => {
    const tone = createToneVoice('flite');
    const failing = {
      ...tone,
      async synthesize(req: SpeechRequest) {
        if (req.text.startsWith('Broken')) throw new SpeechError('vendor', 'the vendor refused this sentence');
        return tone.synthesize(req);
      },
    };
    const t = suite.make({}, createVoiceCatalogue({ providers: [failing], fallback: 'local' }));
    const { h } = t;
    const u = h.user();
    const s = suite.keep(await connect(h, u.key, '/clips/streams', { presenter_id: PRESENTER }));
    const say = (input: string) => h.call('POST', s.path, { key: u.key, body: { session_id: s.sessionId, script: { type: 'text', input } } });
    const first = await say('Fine sentence here. Broken sentence here. Never spoken here.');
    const error = await s.peer.waitFor('stream/error');
    expect(JSON.parse(error.slice('stream/error:'.length))).toEqual({ kind: 'TextToSpeechError', description: 'the vendor refused this sentence', metadata: { videoId: first.body.video_id } });
    await s.peer.waitFor('stream/done');
    const next = await say('Still speaking after that.');
    await s.peer.waitUntil(() => s.peer.messages.filter((m) => m.startsWith('stream/done')).length === 2, 'the next script done');
    expect(subjects(s.peer.messages).filter((m) => m !== 'stream/error')).toEqual(['stream/started', 'stream/done', 'stream/started', 'stream/done']);
    expect(s.peer.messages.filter((m) => m.startsWith('stream/started')).map(videoIdOf)).toEqual([first.body.video_id, next.body.video_id]);
    expect(tone.calls.map((c) => c.text)).not.toContain('Never spoken here.');
  });
});

describe('credits', () => {
  it('a user without credits cannot speak (402); speech heard is charged one credit per started 15 s', async () => {
    const { h } = suite.make();
    const poor = h.user({ credits: 0 });
    const s = suite.keep(await connect(h, poor.key, '/clips/streams', { presenter_id: PRESENTER }));
    const res = await h.call('POST', s.path, { key: poor.key, body: { session_id: s.sessionId, script: { type: 'text', input: 'Hello there.' } } });
    expect(res.status).toBe(402);
    expect(res.body.kind).toBe('InsufficientCreditsError');

    const rich = h.user({ credits: 5 });
    const r = suite.keep(await connect(h, rich.key, '/clips/streams', { presenter_id: PRESENTER }));
    await h.call('POST', r.path, { key: rich.key, body: { session_id: r.sessionId, script: { type: 'text', input: 'One short line.' } } });
    await r.peer.waitFor('stream/done');
    await r.peer.waitUntil(() => credits(h, rich.id) === 4, 'one credit charged');
  });
});

describe('credits per streamed second', () => {
  it('adds the stream\'s heard time up (two short scripts cost one credit), and charges speech cut off by DELETE', async () => {
    const { h } = suite.make();
    const u = h.user({ credits: 5 });
    const s = suite.keep(await connect(h, u.key, '/clips/streams', { presenter_id: PRESENTER }));
    for (const input of ['One short line.', 'And another one.']) {
      const from = s.peer.messages.length;
      expect((await h.call('POST', s.path, { key: u.key, body: { session_id: s.sessionId, script: { type: 'text', input } } })).status).toBe(200);
      await s.peer.waitFor('stream/done', { from });
    }
    await s.peer.waitUntil(() => credits(h, u.id) === 4, 'one credit for both scripts');
    expect(credits(h, u.id)).toBe(4);

    const v = h.user({ credits: 5 });
    const t2 = suite.keep(await connect(h, v.key, '/clips/streams', { presenter_id: PRESENTER }));
    expect((await h.call('POST', t2.path, { key: v.key, body: { session_id: t2.sessionId, script: { type: 'text', input: 'A sentence that is cut off. And more that is never heard.' } } })).status).toBe(200);
    await t2.peer.waitFor('stream/started');
    expect((await h.call('DELETE', t2.path, { key: v.key, body: { session_id: t2.sessionId } })).status).toBe(200);
    await t2.peer.waitUntil(() => credits(h, v.id) === 4, 'the heard part charged');
  });
});

describe('agent streams', () => {
  it('an agent with a photo (talk presenter) streams that photo, fetched from the media store', async () => {
    const t = suite.make();
    const { h, renderer } = t;
    const u = h.user();
    const photo = await uploadPhoto(h, u.key);
    const agent = await h.call('POST', '/agents', { key: u.key, body: { ...agentBody, presenter: { type: 'talk', source_url: photo } } });
    expect(agent.status).toBe(201);
    const res = await h.call('POST', `/agents/${agent.body.id}/streams`, { key: u.key, body: { compatibility_mode: 'on' } });
    expect(res.status).toBe(201);
    const picture = readFileSync(renderer.opened[0]!.sourcePath);
    expect([...picture.subarray(0, 2)]).toEqual([0xff, 0xd8]);
    expect(renderer.opened[0]!.sourcePath).not.toContain('presenters');
  });


  it('streams the agent\'s presenter; another user\'s agent is not found; agent chat speaks its answer sentence by sentence with the speaker', async () => {
    const t = suite.make();
    const { h, service, voice } = t;
    const a = h.user();
    const b = h.user();
    const agent = await h.call('POST', '/agents', { key: a.key, body: agentBody });
    expect(agent.status).toBe(201);
    const prefix = `/agents/${agent.body.id}/streams`;
    expect((await h.call('POST', prefix, { key: b.key, body: {} })).status).toBe(404);
    expect((await h.call('POST', '/agents/agt_unknown/streams', { key: a.key, body: {} })).status).toBe(404);
    const s = suite.keep(await connect(h, a.key, prefix, { stream_warmup: true, end_user_data: { plan: 'x' } }));
    await s.peer.waitFor('stream/ready');
    // The same stream through another agent's prefix is not found.
    const other = await h.call('POST', '/agents', { key: a.key, body: agentBody });
    expect((await h.call('POST', `/agents/${other.body.id}/streams/${s.id}/ice`, { key: a.key, body: { session_id: s.sessionId } })).status).toBe(404);

    expect(() => service.speaker(a.id, s.id, 'sess_wrong', { agentId: agent.body.id })).toThrow(expect.objectContaining(SESSION_ERROR));
    expect(() => service.speaker(a.id, s.id, s.sessionId, { agentId: other.body.id })).toThrow(ApiError);
    expect(() => service.speaker(b.id, s.id, s.sessionId)).toThrow(expect.objectContaining({ kind: 'NotFoundError' }));
    // The same refusals over HTTP, before any model is called: the exact SessionError the SDK matches, and 404 across agents.
    const chat = await h.call('POST', `/agents/${agent.body.id}/chat`, { key: a.key, body: {} });
    const ask = (agentId: string, chatId: string, sessionId: string) =>
      h.call('POST', `/agents/${agentId}/chat/${chatId}`, { key: a.key, body: { messages: [{ role: 'user', content: 'Hello?' }], streamId: s.id, sessionId } });
    const wrong = await ask(agent.body.id, chat.body.id, 'sess_wrong');
    expect([wrong.status, wrong.body]).toEqual([400, SESSION_ERROR]);
    const otherChat = await h.call('POST', `/agents/${other.body.id}/chat`, { key: a.key, body: {} });
    expect((await ask(other.body.id, otherChat.body.id, s.sessionId)).status).toBe(404);
    const speaker = service.speaker(a.id, s.id, s.sessionId, { agentId: agent.body.id });
    speaker.send('chat/answer', encodeURIComponent('Hi there. Fine.'));
    speaker.say('Hi there.');
    speaker.say('Fine, thank you.');
    speaker.end();
    const done = await s.peer.waitFor('stream/done');
    expect(videoIdOf(done)).toBe(speaker.videoId);
    expect(s.peer.messages).toContain('chat/answer:Hi%20there.%20Fine.');
    expect(s.peer.messages.filter((m) => m.startsWith('stream/started')).map(videoIdOf)).toEqual([speaker.videoId]);
    // The agent's voice: the presenter's own (Eileen's Flite voice).
    expect(voice.calls.slice(-2).map((c) => [c.text, c.voiceId])).toEqual([['Hi there.', 'en-US-flite-slt'], ['Fine, thank you.', 'en-US-flite-slt']]);
  });
});

describe('the silence a voice puts before its first word', () => {
  const tone = (silentMs: number, soundMs: number, rate = 16_000) => {
    const pcm = new Int16Array(((silentMs + soundMs) * rate) / 1000);
    for (let i = (silentMs * rate) / 1000; i < pcm.length; i++) pcm[i] = Math.round(8000 * Math.sin(i / 5));
    return pcm;
  };

  it('is cut down to 30 ms before the first sound, the cues moved with it (a cue wholly in the cut goes)', () => {
    const piece: SpeechPiece = { pcm: tone(170, 200), sampleRate: 16_000, cues: [{ phoneme: 'pau', alphabet: 'arpabet', startMs: 0, endMs: 130 }, { phoneme: 'hh', alphabet: 'arpabet', startMs: 130, endMs: 250 }, { phoneme: 'ax', alphabet: 'arpabet', startMs: 250, endMs: 370 }] };
    const trimmed = trimLeadingSilence(piece);
    expect(trimmed.pcm.length).toBe(piece.pcm.length - 140 * 16);
    expect(trimmed.pcm[30 * 16 - 1]).toBe(0);
    expect(trimmed.pcm[30 * 16 + 1]).not.toBe(0);
    expect(trimmed.cues).toEqual([{ phoneme: 'hh', alphabet: 'arpabet', startMs: 0, endMs: 110 }, { phoneme: 'ax', alphabet: 'arpabet', startMs: 110, endMs: 230 }]);
  });

  it('leaves a piece that starts at once, and one that is silence throughout, as they are', () => {
    const prompt = { pcm: tone(10, 200), sampleRate: 16_000, cues: [] };
    expect(trimLeadingSilence(prompt)).toBe(prompt);
    const silent = { pcm: new Int16Array(16_000), sampleRate: 16_000, cues: [] };
    expect(trimLeadingSilence(silent)).toBe(silent);
  });
});
