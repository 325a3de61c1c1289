/**
 * The outside probe of issue 17: a client whose answer and trickled candidates name addresses
 * mimic must never contact (metadata, private ranges, a loopback address the policy does not
 * allow, mDNS and DNS names). Real UDP listeners sit on two of them (127.0.0.2 and 127.0.0.3,
 * refused by MIMIC_ICE_ALLOW=127.0.0.1/32) and count the STUN binding requests that arrive;
 * every datagram the process sends is recorded too, so a packet towards an address that has
 * no listener (169.254.169.254, an mDNS query) counts as well.
 */
import dgram from 'node:dgram';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RTCPeerConnection } from 'werift';
import { answerWithWerift } from '../helpers/browser-peer.ts';
import { PRESENTER, connect, streamSuite } from './helpers.ts';

const suite = streamSuite();
const PROBE = ['169.254.169.254', '10.0.0.1', '192.168.1.1', '172.16.0.1', '100.64.0.1'];
const ALLOWED = '127.0.0.1';

interface Listener {
  port: number;
  /** STUN binding requests received. */
  bindings: number;
  close(): Promise<void>;
}

async function listen(address: string): Promise<Listener> {
  const socket = dgram.createSocket('udp4');
  const l: Listener = { port: 0, bindings: 0, close: () => new Promise((r) => socket.close(() => r())) };
  socket.on('message', (msg) => {
    // RFC 5389: type 0x0001 (binding request), magic cookie 0x2112A442 at offset 4.
    if (msg.length >= 20 && msg.readUInt16BE(0) === 0x0001 && msg.readUInt32BE(4) === 0x2112a442) l.bindings++;
  });
  await new Promise<void>((r) => socket.bind(0, address, () => r()));
  l.port = socket.address().port;
  return l;
}

const line = (host: string, port: number, type = 'host', i = 0) =>
  `candidate:${900 + i} 1 udp ${2122260223 - i} ${host} ${port} typ ${type}${type === 'host' ? '' : ' raddr 0.0.0.0 rport 0'} generation 0`;

/**
 * A valid answer to `offer` from a peer that is gone by the time mimic checks candidates: no
 * check of the client's reaches mimic (no peer-reflexive candidate), so mimic works through
 * every candidate it was given, as it does for a probe that never runs ICE.
 */
async function probeAnswer(offer: string): Promise<string> {
  const pc = new RTCPeerConnection({ iceServers: [], iceUseIpv6: false, iceInterfaceAddresses: { udp4: ALLOWED }, iceAdditionalHostAddresses: [ALLOWED] });
  pc.createDataChannel('JanusDataChannel');
  await pc.setRemoteDescription({ type: 'offer', sdp: offer });
  await pc.setLocalDescription(await pc.createAnswer());
  const sdp = pc.localDescription!.sdp;
  await pc.close();
  return sdp;
}

/** The answer with its own candidates replaced by `candidates` (in its first media section, where werift reads them). */
function withCandidates(sdp: string, candidates: string[]): string {
  const lines = sdp.split('\r\n').filter((l) => !l.startsWith('a=candidate:') && l !== 'a=end-of-candidates');
  const first = lines.findIndex((l) => l.startsWith('m='));
  lines.splice(first + 1, 0, ...candidates.map((c) => `a=${c}`));
  return lines.join('\r\n');
}

interface Refusal {
  stream_id: string;
  reasons: Record<string, number>;
  refused_stream: number;
  refused_total: number;
}
const refusals = (logs: string[]): Refusal[] => logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'ice candidates refused');

let sent: string[] = [];
let listeners: Listener[] = [];
beforeEach(() => {
  sent = [];
  const send = dgram.Socket.prototype.send;
  vi.spyOn(dgram.Socket.prototype, 'send').mockImplementation(function (this: dgram.Socket, ...args: unknown[]) {
    // send(msg, [offset, length,] port, address, cb): the address is the first string argument after the message.
    const address = args.slice(1).find((a) => typeof a === 'string');
    if (address !== undefined) sent.push(address as string);
    return (send as (...a: unknown[]) => void).apply(this, args);
  } as typeof dgram.Socket.prototype.send);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(listeners.splice(0).map((l) => l.close()));
});

describe('ICE policy against the outside probe', () => {
  it('sends no STUN request to a refused candidate, inline in the answer or trickled', async () => {
    const inline = await listen('127.0.0.2');
    const trickled = await listen('127.0.0.3');
    listeners.push(inline, trickled);
    const { h } = suite.make({ MIMIC_ICE_ALLOW: `${ALLOWED}/32` });
    const u = h.user();
    const created = await h.call('POST', '/clips/streams', { key: u.key, body: { presenter_id: PRESENTER } });
    expect(created.status).toBe(201);
    const path = `/clips/streams/${created.body.id}`;
    const session_id = created.body.session_id;
    const probe = [
      ...PROBE.map((a, i) => line(a, 3478 + i, 'host', i)),
      line('127.0.0.2', inline.port, 'host', 5),
      line('127.0.0.2', inline.port, 'relay', 6),
      line('5f0d2a1c-3b4e-4c6d-8e9f-0a1b2c3d4e5f.local', inline.port, 'host', 7),
      line('localhost', inline.port, 'host', 8),
    ];
    const answer = withCandidates(await probeAnswer(created.body.offer.sdp), probe);
    const sdp = await h.call('POST', `${path}/sdp`, { key: u.key, body: { answer: { type: 'answer', sdp: answer }, session_id } });
    expect(sdp.status).toBe(200);
    const trickle = [
      ...PROBE.map((a, i) => line(a, 5349 + i, 'srflx', 10 + i)),
      line('127.0.0.3', trickled.port, 'host', 15),
      line('::ffff:127.0.0.3', trickled.port, 'host', 16),
      line('ab12cd34-0000-4000-8000-000000000000.local', trickled.port, 'host', 17),
    ];
    for (const candidate of trickle) {
      const r = await h.call('POST', `${path}/ice`, { key: u.key, body: { candidate, sdpMid: '0', sdpMLineIndex: 0, session_id } });
      expect(r.status).toBe(200);
    }
    await h.call('POST', `${path}/ice`, { key: u.key, body: { session_id } });
    // werift paces its checks 20 ms apart and retransmits for seconds: 3 s covers every pair many times over.
    await new Promise((r) => setTimeout(r, 3000));
    const contacted = [...new Set(sent.filter((a) => a !== ALLOWED))].sort();
    const perAddress = contacted.map((a) => `${a} x${sent.filter((s) => s === a).length}`);
    console.log(`ICE probe: binding requests at 127.0.0.2 (inline) ${inline.bindings}, at 127.0.0.3 (trickled) ${trickled.bindings}; datagrams sent to refused addresses: ${perAddress.join(', ') || 'none'}`);
    expect({ inline: inline.bindings, trickled: trickled.bindings, contacted }).toEqual({ inline: 0, trickled: 0, contacted: [] });
    // One line for the answer, one per trickled candidate: counts by reason, never an address.
    const refused = refusals(h.logs);
    expect(refused).toHaveLength(1 + trickle.length);
    expect(refused[0]!.reasons).toEqual({ 'link-local': 1, private: 3, 'shared (CGNAT)': 1, loopback: 2, 'mDNS name': 1, 'host name': 1 });
    expect(refused.at(-1)).toMatchObject({ refused_stream: probe.length + trickle.length, refused_total: probe.length + trickle.length });
    for (const a of [...PROBE, '127.0.0.2', '127.0.0.3', '.local']) expect(h.logs.filter((l) => l.includes('refused')).join('\n')).not.toContain(a);
  }, 30_000);

  it('still connects a client whose refused candidates come with an allowed one, and logs counts without addresses', async () => {
    const { h } = suite.make();
    const u = h.user();
    // libwebrtc offers every interface of the machine (here also ::1 and the LAN's addresses); only 127.0.0.1 is allowed.
    const s = suite.keep(await connect(h, u.key, '/clips/streams', { presenter_id: PRESENTER, fluent: true }));
    await s.peer.waitUntil(() => s.peer.frames > 0, 'frames');
    const offered = (s.peer.candidates as { candidate: string }[]).map((c) => c.candidate.split(' ')[4]!);
    const refused = refusals(h.logs);
    expect(refused.at(-1)?.refused_stream ?? 0).toBeGreaterThanOrEqual(offered.filter((a) => a !== ALLOWED).length);
    for (const r of refused) {
      expect(r).toMatchObject({ stream_id: s.id, reasons: expect.any(Object), refused_stream: expect.any(Number), refused_total: expect.any(Number) });
      for (const a of offered) expect(JSON.stringify(r)).not.toContain(a);
    }
    // No datagram assertion here: libwebrtc checks from its other sockets too, and mimic answers those sources (peer-reflexive: the peer itself).
  }, 60_000);

  it('connects a client that offers only an mDNS name, through the peer-reflexive candidate its own checks reveal', async () => {
    const { h } = suite.make();
    const u = h.user();
    const s = suite.keep(
      await connect(h, u.key, '/clips/streams', { presenter_id: PRESENTER, fluent: true }, {
        answer: async (offer) => {
          const peer = await answerWithWerift(offer);
          peer.answerSdp = withCandidates(peer.answerSdp, [line('0d6c1a8e-4b1f-4e0a-9c55-7f3e2d1b0a99.local', 9, 'host')]);
          return peer;
        },
      }),
    );
    await s.peer.waitUntil(() => s.peer.frames > 0, 'frames');
    expect(refusals(h.logs).map((r) => r.reasons)).toEqual([{ 'mDNS name': 1 }]);
    expect(sent).not.toContain('224.0.0.251');
  }, 60_000);
});
