/** The stream endpoints' validation, sessions, tenancy, limits and idle timeout, over the real HTTP app. */
import { describe, expect, it } from 'vitest';
import { PRESENTER, SESSION_ERROR, connect, streamSuite, type StreamHarness } from './helpers.ts';
import { RenderError } from '../../src/errors.ts';
import type { BrowserPeer } from '../helpers/browser-peer.ts';

const suite = streamSuite();
let t: StreamHarness | undefined;
const peers = { push: (p: BrowserPeer) => suite.keep({ peer: p }) };

const fieldsOf = (body: { details?: { field: string }[] }) => (body.details ?? []).map((d) => d.field);

async function open(key: string, body: Record<string, unknown> = { presenter_id: PRESENTER }) {
  const res = await t!.h.call('POST', '/clips/streams', { key, body });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, sessionId: res.body.session_id as string, path: `/clips/streams/${res.body.id}` };
}

describe('creating a stream', () => {
  it.each([
    ['no presenter_id', {}, 'presenter_id'],
    ['a session_timeout over 300 s', { presenter_id: PRESENTER, session_timeout: 301 }, 'session_timeout'],
    ['a compatibility_mode that is not on, off or auto', { presenter_id: PRESENTER, compatibility_mode: 'sometimes' }, 'compatibility_mode'],
    ['a stream_warmup that is not a boolean', { presenter_id: PRESENTER, stream_warmup: 'yes' }, 'stream_warmup'],
    ['a config.stitch that is not a boolean', { presenter_id: PRESENTER, config: { stitch: 1 } }, 'config.stitch'],
  ])('refuses %s with 400 naming the field', async (_, body, field) => {
    t = suite.make();
    const u = t.h.user();
    const res = await t.h.call('POST', '/clips/streams', { key: u.key, body });
    expect(res.status).toBe(400);
    expect(res.body.kind).toBe('BadRequestError');
    expect(fieldsOf(res.body)).toContain(field);
    expect(t.service.stats()).toMatchObject({ streams: 0, reserved: 0 });
  });

  it('refuses a presenter that does not exist, a talk photo not in the media store, and a photo without a face', async () => {
    t = suite.make();
    const u = t.h.user();
    const none = await t.h.call('POST', '/clips/streams', { key: u.key, body: { presenter_id: 'nobody' } });
    expect(none.status).toBe(400);
    expect(fieldsOf(none.body)).toEqual(['presenter_id']);
    const photo = await t.h.call('POST', '/talks/streams', { key: u.key, body: { source_url: 's3://images/img_nobody.jpg' } });
    expect(photo.status).toBe(400);
    expect(fieldsOf(photo.body)).toEqual(['source_url']);
    t.renderer.failNextOpen = new RenderError('FaceError', 'No face was found on the picture');
    const face = await t.h.call('POST', '/clips/streams', { key: u.key, body: { presenter_id: PRESENTER } });
    expect(face.status).toBe(400);
    expect(face.body).toEqual({ kind: 'InvalidFaceError', description: 'No face was found on the picture' });
    expect(t.service.stats()).toMatchObject({ streams: 0, reserved: 0 });
    expect(t.renderer.live()).toEqual({ sessions: 0, processes: 0, sockets: 0 });
  });

  it('needs an API key', async () => {
    t = suite.make();
    const res = await t.h.call('POST', '/talks/streams', { body: { source_url: 'https://img.test/a.jpg' } });
    expect(res.status).toBe(401);
  });

  it('stitch on a talk stream needs the stitch permission', async () => {
    t = suite.make();
    const u = t.h.user();
    const res = await t.h.call('POST', '/talks/streams', { key: u.key, body: { source_url: 'https://img.test/a.jpg', config: { stitch: true } } });
    expect(res.status).toBe(403);
  });
});

describe('session_id and tenancy', () => {
  it('answers the exact SessionError for a missing or wrong session_id on every call, and 404 for an unknown stream', async () => {
    t = suite.make();
    const { h } = t;
    const u = h.user();
    const s = await open(u.key);
    const calls: [string, string, Record<string, unknown>][] = [
      ['POST', `${s.path}/sdp`, { answer: { type: 'answer', sdp: 'v=0' } }],
      ['POST', `${s.path}/ice`, { candidate: 'candidate:1 1 udp 1 127.0.0.1 9 typ host', sdpMid: '0', sdpMLineIndex: 0 }],
      ['POST', s.path, { script: { type: 'text', input: 'Hello there.' } }],
      ['POST', `${s.path}/interrupt`, {}],
      ['DELETE', s.path, {}],
    ];
    for (const [method, path, body] of calls) {
      for (const session of [undefined, 'sess_wrong', 42]) {
        const res = await h.call(method, path, { key: u.key, body: session === undefined ? body : { ...body, session_id: session } });
        expect({ path, session, status: res.status, body: res.body }).toEqual({ path, session, status: 400, body: SESSION_ERROR });
      }
      const unknown = await h.call(method, path.replace(s.id, 'strm_unknown'), { key: u.key, body: { ...body, session_id: s.sessionId } });
      expect(unknown.status).toBe(404);
      expect(unknown.body.kind).toBe('NotFoundError');
    }
    // DELETE without any body is the SessionError too (the demo sends one; a client that forgets it learns why).
    const bare = await h.call('DELETE', s.path, { key: u.key });
    expect(bare.body).toEqual(SESSION_ERROR);
  });

  it('another user\'s stream is not found, even with its session_id; its owner deleting it again is a success', async () => {
    t = suite.make();
    const { h } = t;
    const a = h.user();
    const b = h.user();
    const s = await open(a.key);
    for (const [method, path, body] of [
      ['POST', `${s.path}/sdp`, { answer: { type: 'answer', sdp: 'v=0' } }],
      ['POST', `${s.path}/ice`, {}],
      ['POST', s.path, { script: { type: 'text', input: 'Hello there.' } }],
      ['POST', `${s.path}/interrupt`, {}],
      ['DELETE', s.path, {}],
    ] as const) {
      const res = await h.call(method, path, { key: b.key, body: { ...body, session_id: s.sessionId } });
      expect(res.status).toBe(404);
    }
    expect((await h.call('DELETE', s.path, { key: a.key, body: { session_id: s.sessionId } })).status).toBe(200);
    const again = await h.call('DELETE', s.path, { key: a.key, body: { session_id: s.sessionId } });
    expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: { status: 'success' } });
    // The ended stream is still not the other user's, nor usable by its owner, nor deleted with a wrong session.
    expect((await h.call('DELETE', s.path, { key: b.key, body: { session_id: s.sessionId } })).status).toBe(404);
    expect((await h.call('POST', s.path, { key: a.key, body: { session_id: s.sessionId, script: { type: 'text', input: 'Hello there.' } } })).status).toBe(404);
    expect((await h.call('DELETE', s.path, { key: a.key, body: { session_id: 'sess_wrong' } })).body).toEqual(SESSION_ERROR);
  });

  it('a stream that ended when its peer left is deleted with success by its owner (the agents SDK closes first, then DELETEs), 404 for another user', async () => {
    t = suite.make();
    const { h } = t;
    const a = h.user();
    const b = h.user();
    const s = await connect(h, a.key, '/clips/streams', { presenter_id: PRESENTER, fluent: true });
    s.peer.close();
    await s.peer.waitUntil(() => t!.service.stats().streams === 0, 'the stream to end with its peer');
    expect((await h.call('DELETE', s.path, { key: b.key, body: { session_id: s.sessionId } })).status).toBe(404);
    const del = await h.call('DELETE', s.path, { key: a.key, body: { session_id: s.sessionId } });
    expect({ status: del.status, body: del.body }).toEqual({ status: 200, body: { status: 'success' } });
  });
});

describe('presenter aliases', () => {
  it('opens a clip stream on the hosted demo\'s hard-coded public presenter (v2_public_alex@qcvo4gupoy), streaming its built-in alias', async () => {
    t = suite.make();
    const { h } = t;
    const u = h.user();
    const res = await h.call('POST', '/clips/streams', { key: u.key, body: { presenter_id: 'v2_public_alex@qcvo4gupoy', driver_id: 'e3nbserss8' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await h.call('DELETE', `/clips/streams/${res.body.id}`, { key: u.key, body: { session_id: res.body.session_id } });
  });
});

describe('sdp, ice and speak bodies', () => {
  it('validates each body after the session, and refuses what is out of order', async () => {
    t = suite.make();
    const { h } = t;
    const u = h.user();
    const s = await open(u.key);
    const noAnswer = await h.call('POST', `${s.path}/sdp`, { key: u.key, body: { session_id: s.sessionId } });
    expect(noAnswer.status).toBe(400);
    expect(fieldsOf(noAnswer.body)).toEqual(['answer']);
    const garbage = await h.call('POST', `${s.path}/sdp`, { key: u.key, body: { session_id: s.sessionId, answer: { type: 'answer', sdp: 'not sdp at all' } } });
    expect(garbage.status).toBe(400);
    expect(fieldsOf(garbage.body)).toEqual(['answer.sdp']);
    const early = await h.call('POST', s.path, { key: u.key, body: { session_id: s.sessionId, script: { type: 'text', input: 'Hello there.' } } });
    expect(early.status).toBe(409);
    const badIce = await h.call('POST', `${s.path}/ice`, { key: u.key, body: { session_id: s.sessionId, candidate: 12 } });
    expect(badIce.status).toBe(400);
    expect(fieldsOf(badIce.body)).toContain('candidate');
    // Both end-of-candidates forms of the real clients.
    expect((await h.call('POST', `${s.path}/ice`, { key: u.key, body: { session_id: s.sessionId } })).status).toBe(200);
    expect((await h.call('POST', `${s.path}/ice`, { key: u.key, body: { candidate: null, sdpMid: null, sdpMLineIndex: null, session_id: s.sessionId } })).status).toBe(200);
    const notJson = await h.call('POST', `${s.path}/ice`, { key: u.key, raw: '{', headers: { 'content-type': 'application/json' } });
    expect(notJson.status).toBe(400);
  });

  it('refuses a second answer, a script without anything to say, and a script with no voice to speak it', async () => {
    t = suite.make();
    const { h } = t;
    const u = h.user();
    const s = await connect(h, u.key, '/clips/streams', { presenter_id: PRESENTER });
    peers.push(s.peer);
    const twice = await h.call('POST', `${s.path}/sdp`, { key: u.key, body: { session_id: s.sessionId, answer: { type: 'answer', sdp: s.peer.answerSdp } } });
    expect(twice.status).toBe(409);
    for (const [script, field] of [
      [{ type: 'text', input: '' }, 'script.input'],
      [{ type: 'text', input: '... !!' }, 'script.input'],
      [{ type: 'video', input: 'x' }, 'script'],
      [{ type: 'audio', audio_url: 'not a url' }, 'script.audio_url'],
      [{ type: 'text', input: 'Hello there.', provider: { type: 'flite' } }, 'script.provider.voice_id'],
    ] as const) {
      const res = await h.call('POST', s.path, { key: u.key, body: { session_id: s.sessionId, script } });
      expect({ script, status: res.status }).toEqual({ script, status: 400 });
      expect(fieldsOf(res.body).join(' ')).toContain(field);
    }
    const missing = await h.call('POST', s.path, { key: u.key, body: { session_id: s.sessionId, script: { type: 'audio', audio_url: 's3://audios/aud_x/a.mp3' } } });
    expect(missing.status).toBe(400);
  });
});

describe('limits', () => {
  it('holds each user to MIMIC_STREAMS_PER_USER and the process to MIMIC_STREAMS_MAX (429), and frees a place on DELETE', async () => {
    t = suite.make({ MIMIC_STREAMS_PER_USER: '2', MIMIC_STREAMS_MAX: '3' });
    const { h } = t;
    const a = h.user();
    const b = h.user();
    const first = await open(a.key);
    await open(a.key);
    const third = await h.call('POST', '/clips/streams', { key: a.key, body: { presenter_id: PRESENTER } });
    expect(third.status).toBe(429);
    expect(third.body.kind).toBe('TooManyRequestsError');
    expect(third.body.description).toMatch(/limit per user/);
    await open(b.key);
    const full = await h.call('POST', '/clips/streams', { key: b.key, body: { presenter_id: PRESENTER } });
    expect(full.status).toBe(429);
    expect(full.body.description).toMatch(/live streams open, its limit/);
    await h.call('DELETE', first.path, { key: a.key, body: { session_id: first.sessionId } });
    await open(a.key);
  });

  it('two creates at once cannot both take the last place', async () => {
    t = suite.make({ MIMIC_STREAMS_PER_USER: '1' });
    const u = t.h.user();
    const both = await Promise.all([0, 1].map(() => t!.h.call('POST', '/clips/streams', { key: u.key, body: { presenter_id: PRESENTER } })));
    expect(both.map((r) => r.status).sort()).toEqual([201, 429]);
  });
});

describe('timeouts and cleanup', () => {
  it('closes a stream after session_timeout seconds without activity, and its calls are then 404', async () => {
    t = suite.make();
    const { h } = t;
    const u = h.user();
    const s = await connect(h, u.key, '/clips/streams', { presenter_id: PRESENTER, session_timeout: 1, fluent: true });
    peers.push(s.peer);
    await s.peer.waitUntil(() => t!.service.stats().streams === 0 && t!.renderer.live().sessions === 0, 'the idle stream to close');
    expect(t.renderer.live()).toEqual({ sessions: 0, processes: 0, sockets: 0 });
    const res = await h.call('POST', s.path, { key: u.key, body: { session_id: s.sessionId, script: { type: 'text', input: 'Hello there.' } } });
    expect(res.status).toBe(404);
  });

  it('leaves no stream, timer, renderer session, process or UDP socket behind after 100 streams opened and closed', async () => {
    t = suite.make({ MIMIC_STREAMS_PER_USER: '100', MIMIC_STREAMS_MAX: '100' });
    const { h } = t;
    const u = h.user();
    const udp = () => process.getActiveResourcesInfo().filter((r) => r === 'UDPWrap').length;
    // Two connected streams first, so the media path's resources are counted too.
    for (let i = 0; i < 2; i++) {
      const s = await connect(h, u.key, '/clips/streams', { presenter_id: PRESENTER, fluent: true });
      await s.peer.waitUntil(() => s.peer.frames > 0, 'frames');
      await h.call('DELETE', s.path, { key: u.key, body: { session_id: s.sessionId } });
      s.peer.close();
    }
    const baseline = udp();
    for (let round = 0; round < 10; round++) {
      const opened = await Promise.all(Array.from({ length: 10 }, () => open(u.key)));
      expect(t.service.stats().streams).toBe(10);
      expect(udp()).toBeGreaterThan(baseline);
      await Promise.all(opened.map((s) => h.call('DELETE', s.path, { key: u.key, body: { session_id: s.sessionId } }).then((r) => expect(r.status).toBe(200))));
    }
    expect(t.service.stats()).toEqual({ streams: 0, timers: 0, channels: 0, reserved: 0 });
    expect(t.renderer.live()).toEqual({ sessions: 0, processes: 0, sockets: 0 });
    expect(t.renderer.opened).toHaveLength(102);
    await new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const tick = () => (udp() <= baseline ? resolve() : Date.now() - started > 20_000 ? reject(new Error(`${udp() - baseline} UDP sockets left open`)) : setTimeout(tick, 100));
      tick();
    });
  });

  it('closes every stream when the module stops', async () => {
    t = suite.make();
    const u = t.h.user();
    await open(u.key);
    await open(u.key);
    await t.service.stop();
    expect(t.service.stats().streams).toBe(0);
    expect(t.renderer.live().sessions).toBe(0);
  });
});
