/**
 * A browser for stream tests: libwebrtc (@roamhq/wrtc) answering mimic's offer the way the
 * hosted service's demo client does: it opens its own `JanusDataChannel` before answering,
 * trickles its candidates with `session_id`, ends them with `{session_id}`, and records the
 * events, decoded video frames and audio it receives.
 */
import wrtc from '@roamhq/wrtc';

export interface BrowserPeer {
  /** Every text message received on the JanusDataChannel, in order. */
  messages: string[];
  frames: number;
  /** Frame sizes seen. */
  sizes: Set<string>;
  audioChunks: number;
  /** The video codec the answer chose (read from the answer's SDP). */
  answerSdp: string;
  candidates: object[];
  /** Resolves when the JanusDataChannel is open (the server can send on it from then on). */
  opened: Promise<void>;
  send(text: string): void;
  /** Resolves when a message starting with `prefix` arrives (after `from` messages already seen). */
  waitFor(prefix: string, opts?: { from?: number; timeoutMs?: number }): Promise<string>;
  waitUntil(check: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** The peer connection's ICE state (libwebrtc): 'disconnected', 'failed' or 'closed' once the server's side is gone. */
  iceState?(): string;
  close(): void;
}

/** Answers `offerSdp`; `preferCodec` removes the other video codec from the answer's choice. */
export async function answerOffer(offerSdp: string, opts: { preferCodec?: 'VP8' | 'H264' } = {}): Promise<BrowserPeer> {
  const pc = new wrtc.RTCPeerConnection({ iceServers: [] });
  const messages: string[] = [];
  const waiters: (() => void)[] = [];
  const notify = () => waiters.splice(0).forEach((w) => w());
  const sinks: { stop(): void }[] = [];
  const peer: BrowserPeer = {
    messages, frames: 0, sizes: new Set(), audioChunks: 0, answerSdp: '', candidates: [], opened: Promise.resolve(),
    send: (text) => dc.send(text),
    iceState: () => String(pc.iceConnectionState),
    waitFor(prefix, { from = 0, timeoutMs = 30_000 } = {}) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "${prefix}" message within ${timeoutMs} ms; got ${JSON.stringify(messages)}`)), timeoutMs);
        const look = () => {
          const hit = messages.slice(from).find((m) => m.startsWith(prefix));
          if (hit !== undefined) {
            clearTimeout(timer);
            resolve(hit);
          } else waiters.push(look);
        };
        look();
      });
    },
    waitUntil(check, what, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const started = Date.now();
        const tick = () => {
          if (check()) return resolve();
          if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${what}`));
          setTimeout(tick, 50);
        };
        tick();
      });
    },
    close() {
      for (const s of sinks) s.stop();
      try {
        dc.close();
      } catch {
        /* closed */
      }
      pc.close();
    },
  };
  const dc = pc.createDataChannel('JanusDataChannel');
  peer.opened = new Promise<void>((resolve) => {
    dc.onopen = () => resolve();
  });
  dc.onmessage = (e: { data: unknown }) => {
    messages.push(String(e.data));
    notify();
  };
  pc.onicecandidate = (e: { candidate: { toJSON(): object } | null }) => {
    if (e.candidate) peer.candidates.push(e.candidate.toJSON());
  };
  pc.ontrack = (e: { track: { kind: string } }) => {
    if (e.track.kind === 'video') {
      const sink = new wrtc.nonstandard.RTCVideoSink(e.track);
      sink.onframe = ({ frame }: { frame: { width: number; height: number } }) => {
        peer.frames++;
        peer.sizes.add(`${frame.width}x${frame.height}`);
        notify();
      };
      sinks.push(sink);
    } else {
      const sink = new wrtc.nonstandard.RTCAudioSink(e.track);
      sink.ondata = () => {
        peer.audioChunks++;
      };
      sinks.push(sink);
    }
  };
  await pc.setRemoteDescription({ type: 'offer', sdp: offerSdp });
  const answer = await pc.createAnswer();
  let sdp: string = answer.sdp;
  if (opts.preferCodec) sdp = onlyCodec(sdp, opts.preferCodec);
  await pc.setLocalDescription({ type: 'answer', sdp });
  peer.answerSdp = pc.localDescription.sdp;
  // Candidates gathered by now are trickled by the caller; libwebrtc on loopback has them at once.
  await new Promise((r) => setTimeout(r, 200));
  return peer;
}

/** The answer's video section keeps only `codec`'s payload types (what a browser limited to one codec answers). */
function onlyCodec(sdp: string, codec: 'VP8' | 'H264'): string {
  const lines = sdp.split('\r\n');
  const keep = new Set<string>();
  for (const l of lines) {
    const m = /^a=rtpmap:(\d+) ([\w-]+)\//.exec(l);
    if (m && m[2]!.toUpperCase() === codec) keep.add(m[1]!);
  }
  for (const l of lines) {
    const m = /^a=fmtp:(\d+) apt=(\d+)/.exec(l);
    if (m && keep.has(m[2]!)) keep.add(m[1]!);
  }
  let inVideo = false;
  return lines
    .map((l) => {
      if (l.startsWith('m=')) inVideo = l.startsWith('m=video');
      if (inVideo && l.startsWith('m=video')) {
        const parts = l.split(' ');
        return [...parts.slice(0, 3), ...parts.slice(3).filter((pt) => keep.has(pt))].join(' ');
      }
      const pt = /^a=(?:rtpmap|fmtp|rtcp-fb):(\d+)/.exec(l)?.[1];
      if (inVideo && pt && !keep.has(pt)) return null;
      return l;
    })
    .filter((l): l is string => l !== null)
    .join('\r\n');
}

/**
 * A second kind of client for H.264, which the libwebrtc build of @roamhq/wrtc cannot decode:
 * a werift answerer that counts complete video frames (RTP marker bits) of the negotiated
 * codec and Opus packets, and opens its own `JanusDataChannel` like the demo client.
 */
export async function answerWithWerift(offerSdp: string): Promise<BrowserPeer & { codec: string; idrSeen: boolean }> {
  const { RTCPeerConnection, useH264, useVP8, useOPUS } = await import('werift');
  const pc = new RTCPeerConnection({ codecs: { video: [useH264(), useVP8()], audio: [useOPUS()] }, iceUseIpv6: false, iceAdditionalHostAddresses: ['127.0.0.1'], iceInterfaceAddresses: { udp4: '127.0.0.1' } });
  const messages: string[] = [];
  const dc = pc.createDataChannel('JanusDataChannel');
  let openResolve!: () => void;
  const opened = new Promise<void>((r) => (openResolve = r));
  dc.stateChanged.subscribe((s) => s === 'open' && openResolve());
  dc.onMessage.subscribe((m) => messages.push(String(m)));
  const peer = {
    messages, frames: 0, sizes: new Set<string>(), audioChunks: 0, answerSdp: '', candidates: [] as object[], opened, codec: '', idrSeen: false,
    send: (text: string) => dc.send(text),
    waitFor: (prefix: string, { from = 0, timeoutMs = 30_000 } = {}) => poll(() => messages.slice(from).find((m) => m.startsWith(prefix)), `"${prefix}"`, timeoutMs),
    waitUntil: async (check: () => boolean, what: string, timeoutMs = 30_000) => void (await poll(() => (check() ? true : undefined), what, timeoutMs)),
    close: () => void pc.close(),
  };
  pc.onTrack.subscribe((track) => {
    track.onReceiveRtp.subscribe((rtp) => {
      if (track.kind === 'audio') return void peer.audioChunks++;
      peer.codec = track.codec?.mimeType ?? '';
      const nal = rtp.payload[0]! & 0x1f;
      // An IDR slice alone (5), or first in a STAP-A (24) or FU-A (28) packet.
      if (nal === 5 || (nal === 24 && (rtp.payload[3]! & 0x1f) === 5) || (nal === 28 && (rtp.payload[1]! & 0x1f) === 5)) peer.idrSeen = true;
      if (rtp.header.marker) peer.frames++;
    });
  });
  await pc.setRemoteDescription({ type: 'offer', sdp: offerSdp });
  await pc.setLocalDescription(await pc.createAnswer());
  await new Promise<void>((r) => (pc.iceGatheringState === 'complete' ? r() : pc.iceGatheringStateChange.subscribe((s) => s === 'complete' && r())));
  peer.answerSdp = pc.localDescription!.sdp;
  return peer;
}

function poll<T>(get: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = () => {
      const v = get();
      if (v !== undefined) return resolve(v);
      if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 50);
    };
    tick();
  });
}
