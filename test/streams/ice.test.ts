/** ICE servers (MIMIC_ICE_SERVERS): validated at start, handed to the clients, credentials never logged; a peer that goes away closes its stream. */
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/config.ts';
import { parseIceServers, streamSettings } from '../../src/streams/settings.ts';
import { PRESENTER, connect, streamSuite } from './helpers.ts';

const suite = streamSuite();
const TURN_SECRET = 'turn-credential-8d1f4c2e';

describe('MIMIC_ICE_SERVERS', () => {
  it('reads a list of STUN and TURN servers', () => {
    expect(parseIceServers(undefined)).toEqual([]);
    expect(parseIceServers(JSON.stringify([{ urls: 'stun:stun.example.org:3478' }, { urls: ['turn:turn.example.org:3478?transport=udp', 'turns:turn.example.org:5349'], username: 'u', credential: 'p' }]))).toEqual([
      { urls: 'stun:stun.example.org:3478' },
      { urls: ['turn:turn.example.org:3478?transport=udp', 'turns:turn.example.org:5349'], username: 'u', credential: 'p' },
    ]);
  });

  it.each([
    ['not JSON', `{"urls": "turn:x", "credential": "${TURN_SECRET}"`],
    ['not a list', JSON.stringify({ urls: 'stun:x' })],
    ['an http URL', JSON.stringify([{ urls: 'https://turn.example.org' }])],
    ['a TURN server without its credential', JSON.stringify([{ urls: 'turn:turn.example.org', username: 'u' }])],
    ['an unknown field', JSON.stringify([{ urls: 'stun:x', password: TURN_SECRET }])],
    ['a credential that is not a string', JSON.stringify([{ urls: 'turn:x', username: 'u', credential: 42 }])],
  ])('refuses %s at start, without repeating any value', (_, raw) => {
    let error: unknown;
    try {
      parseIceServers(raw);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(String(error)).not.toContain(TURN_SECRET);
  });

  it('refuses a MIMIC_STREAM_ICE_ADDRESS that is not an IPv4 address', () => {
    expect(() => streamSettings.load({ MIMIC_STREAM_ICE_ADDRESS: 'localhost' })).toThrow(ConfigurationError);
    expect(streamSettings.load({})).toMatchObject({ iceServers: [], perUser: 3 });
  });

  it('answers the configured ICE servers to the client as ice_servers, and never logs the credential', async () => {
    const servers = [{ urls: ['turn:127.0.0.1:3478'], username: 'mimic', credential: TURN_SECRET }];
    const { h } = suite.make({ MIMIC_ICE_SERVERS: JSON.stringify(servers) });
    const u = h.user();
    const res = await h.call('POST', '/clips/streams', { key: u.key, body: { presenter_id: PRESENTER } });
    expect(res.status).toBe(201);
    expect(res.body.ice_servers).toEqual(servers);
    expect(h.logs.join('\n')).not.toContain(TURN_SECRET);
  });
});

describe('a peer that goes away', () => {
  it('closes its stream and frees its renderer session', async () => {
    const t = suite.make();
    const { h } = t;
    const u = h.user();
    const s = await connect(h, u.key, '/clips/streams', { presenter_id: PRESENTER, fluent: true });
    await s.peer.waitUntil(() => s.peer.frames > 0, 'frames');
    s.peer.close();
    await s.peer.waitUntil(() => t.service.stats().streams === 0 && t.renderer.live().sessions === 0, 'the stream to close', 60_000);
    expect(h.logs.some((l) => l.includes('peer connection failed'))).toBe(true);
  });
});
