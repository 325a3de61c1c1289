/**
 * Creating a stream answers without waiting for the renderer's preparation of the photo (face
 * search, rig, render process: seconds on a busy machine for a photo not seen before): the
 * client connects meanwhile, speech waits for the preparation, and a preparation that fails
 * after the create answered is a stream/error on the data channel, then the stream closes.
 */
import { describe, expect, it } from 'vitest';
import { RenderError } from '../../src/errors.ts';
import { PRESENTER, connect, streamSuite } from './helpers.ts';

const suite = streamSuite();

function gate() {
  let open!: () => void;
  let fail!: (e: Error) => void;
  const held = new Promise<void>((resolve, reject) => ((open = resolve), (fail = reject)));
  held.catch(() => undefined);
  return { held, open, fail };
}

describe('a stream whose photo is still being prepared', () => {
  it('answers the create and connects before the preparation ends; speech plays once it has', async () => {
    const { h, renderer, service } = suite.make();
    const u = h.user({ credits: 10 });
    const g = gate();
    renderer.holdOpens = g.held;
    const s = suite.keep(await connect(h, u.key, '/clips/streams', { presenter_id: PRESENTER, fluent: true }));
    // Created, answered and connected (the data channel is open) with the renderer still preparing.
    expect(renderer.opened).toHaveLength(0);
    expect(renderer.started).toHaveLength(0);
    const spoken = await h.call('POST', s.path, { key: u.key, body: { script: { type: 'text', input: 'Hello there.' }, session_id: s.sessionId } });
    expect(spoken.status).toBe(200);
    expect(renderer.speeches).toHaveLength(0);
    g.open();
    await s.peer.waitUntil(() => s.peer.messages.some((m) => m.startsWith('stream/done')), 'the script played after the preparation');
    expect(renderer.started).toHaveLength(1);
    expect(renderer.speeches.map((x) => x.videoId)).toContain(spoken.body.video_id);
    expect(service.stats().streams).toBe(1);
  });

  it('a preparation that fails after the create answered is stream/error on the data channel, then the stream closes', async () => {
    const { h, renderer, service } = suite.make();
    const u = h.user({ credits: 10 });
    const g = gate();
    renderer.holdOpens = g.held;
    const s = suite.keep(await connect(h, u.key, '/clips/streams', { presenter_id: PRESENTER, fluent: true }));
    g.fail(new RenderError('FaceError', 'No face was found on the picture'));
    await s.peer.waitUntil(() => service.stats().streams === 0, 'the stream closed');
    expect(s.peer.messages).toContainEqual(`stream/error:${JSON.stringify({ kind: 'InvalidFaceError', description: 'No face was found on the picture' })}`);
    expect(renderer.live()).toEqual({ sessions: 0, processes: 0, sockets: 0 });
  });

  it('a stream deleted while its photo is prepared leaves no render session behind', async () => {
    const { h, renderer, service } = suite.make();
    const u = h.user();
    const g = gate();
    renderer.holdOpens = g.held;
    const created = await h.call('POST', '/clips/streams', { key: u.key, body: { presenter_id: PRESENTER } });
    expect(created.status).toBe(201);
    expect((await h.call('DELETE', `/clips/streams/${created.body.id}`, { key: u.key, body: { session_id: created.body.session_id } })).status).toBe(200);
    delete renderer.holdOpens;
    g.open();
    expect(service.stats().streams).toBe(0);
    await waitFor(() => renderer.live().sessions === 0 && renderer.opened.length === 1);
  });
});

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 600 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  expect(check()).toBe(true);
}
