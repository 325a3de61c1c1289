/** What the stream tests share: the real app with the stream renderer's test double, the tone voice, loopback ICE (allowed by MIMIC_ICE_ALLOW), and a libwebrtc browser. */
import { afterEach } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { toneCatalogue, type ToneVoice } from '../helpers/tone-voice.ts';
import { createFakeStreamRenderer, type FakeStreamRenderer } from '../helpers/stream-renderer.ts';
import { answerOffer, answerWithWerift, type BrowserPeer } from '../helpers/browser-peer.ts';
import type { StreamService } from '../../src/streams/hub.ts';
import type { VoiceCatalogue } from '../../src/voices/catalogue.ts';
import type { ServiceOptions } from '../../src/services.ts';
import { sqliteOf } from '../helpers/stores.ts';

export const PRESENTER = 'eileen-Nc7kQ2rT5x';
export const SESSION_ERROR = { kind: 'SessionError', description: 'missing or invalid session_id' };

export interface StreamHarness {
  h: Harness;
  renderer: FakeStreamRenderer;
  voice: ToneVoice;
  service: StreamService;
}

/** `opts`: more service options (a loopback server's CA, say). */
export function streamHarness(env: Record<string, string> = {}, voices?: VoiceCatalogue, opts: ServiceOptions = {}): StreamHarness {
  const renderer = createFakeStreamRenderer();
  const tone = toneCatalogue();
  // Everything runs on loopback: the test allows exactly the peers' address (the default ICE policy refuses loopback).
  const h = harness({ MIMIC_STREAM_ICE_ADDRESS: '127.0.0.1', MIMIC_ICE_ALLOW: '127.0.0.1/32', ...env }, { voices: voices ?? tone.catalogue, streamRenderer: renderer, ...opts });
  const service = (h.services.modules as unknown as { streams: { service: StreamService } }).streams.service;
  return { h, renderer, voice: tone.voice, service };
}

export interface Connected {
  id: string;
  sessionId: string;
  create: any;
  peer: BrowserPeer;
  path: string;
}

/** The demo client's sequence: create, answer with its own JanusDataChannel, each candidate, then `{session_id}` alone. */
export async function connect(h: Harness, key: string, prefix: string, body: Record<string, unknown>, opts: { preferCodec?: 'VP8' | 'H264'; client?: 'libwebrtc' | 'werift'; answer?: (offerSdp: string) => Promise<BrowserPeer> } = {}): Promise<Connected> {
  const created = await h.call('POST', prefix, { key, body });
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
  const { id, session_id: sessionId } = created.body;
  const path = `${prefix}/${id}`;
  const offer = created.body.offer.sdp as string;
  const peer = opts.answer ? await opts.answer(offer) : opts.client === 'werift' ? await answerWithWerift(offer) : await answerOffer(offer, opts);
  const sdp = await h.call('POST', `${path}/sdp`, { key, body: { answer: { type: 'answer', sdp: peer.answerSdp }, session_id: sessionId } });
  if (sdp.status !== 200) throw new Error(`sdp answered ${sdp.status}: ${JSON.stringify(sdp.body)}`);
  for (const c of peer.candidates) {
    const r = await h.call('POST', `${path}/ice`, { key, body: { ...c, session_id: sessionId } });
    if (r.status !== 200) throw new Error(`ice answered ${r.status}: ${JSON.stringify(r.body)}`);
  }
  const end = await h.call('POST', `${path}/ice`, { key, body: { session_id: sessionId } });
  if (end.status !== 200) throw new Error(`end of candidates answered ${end.status}`);
  await withTimeout(peer.opened, 30_000, 'the data channel to open');
  return { id, sessionId, create: created.body, peer, path };
}

export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms))]);
}

export const credits = (h: Harness, id: string): number => (sqliteOf(h.services.store).sqlite.prepare('SELECT credits FROM users WHERE id = ?').get(id) as { credits: number }).credits;

/** One harness per test, closed after it with every browser the test opened. */
export function streamSuite() {
  const state: { t?: StreamHarness; peers: BrowserPeer[] } = { peers: [] };
  afterEach(async () => {
    for (const p of state.peers.splice(0)) p.close();
    await state.t?.h.close();
    delete state.t;
  });
  return {
    make(env: Record<string, string> = {}, voices?: VoiceCatalogue): StreamHarness {
      state.t = streamHarness(env, voices);
      return state.t;
    },
    keep<T extends { peer: BrowserPeer }>(c: T): T {
      state.peers.push(c.peer);
      return c;
    },
  };
}
