/**
 * The server side of one stream's WebRTC connection (werift): the offerer with one sendonly
 * video track (VP8 and/or H.264), one sendonly Opus track and an SCTP section, so the
 * browser can open its own data channel (the demo's `JanusDataChannel`). It never renders:
 * RTP packets come from a `StreamRenderer` through `sink`, events go out as text on every
 * open data channel. Remote candidates pass the ICE policy (src/streams/ice-policy.ts) before
 * werift sees them: refused ones are dropped and counted, never contacted.
 */
import { MediaStreamTrack, RTCPeerConnection, useH264, useOPUS, useVP8, type RTCDataChannel, type RTCRtpTransceiver } from 'werift';
import type { StreamMediaSink, VideoCodec } from '../compute/stream.ts';
import type { IceServer } from './settings.ts';
import type { IcePolicy } from './ice-policy.ts';

export type CompatibilityMode = 'on' | 'off' | 'auto';

export interface PeerOptions {
  iceServers: IceServer[];
  /** Only this local IPv4 address gathers candidates (tests: 127.0.0.1); absent: every interface. */
  iceAddress?: string;
  /** `on`: VP8 only; `off`: H.264 only; `auto`: both, the browser's answer decides. */
  compatibility: CompatibilityMode;
  /** The longest the offer waits for the server's own candidates. */
  gatherTimeoutMs: number;
  /** Which remote candidates may be contacted (MIMIC_ICE_ALLOW). */
  icePolicy: IcePolicy;
}

/** A candidate as the client posts it (`RTCIceCandidate.toJSON()`). */
export interface IceCandidate {
  candidate: string;
  sdpMid?: string | null;
  sdpMLineIndex?: number | null;
}

export interface StreamPeer {
  /** The offer with the server's candidates in it (gathered first, for at most gatherTimeoutMs). */
  offer(): Promise<string>;
  /** Applies the browser's answer; answers the video codec it chose. */
  answer(sdp: string): Promise<VideoCodec>;
  /** A trickled candidate of the browser (null: end of candidates). */
  addCandidate(candidate: IceCandidate | null): Promise<void>;
  /**
   * Resolves true once ICE and DTLS are up (media can flow), false if the connection fails or
   * closes first. Media written before then is dropped, so the renderer starts here: its first
   * keyframe must reach the browser, or the picture waits for the next one (2 s).
   */
  connected(): Promise<boolean>;
  /** Sends `text` on every open data channel. */
  send(text: string): void;
  /** Where the renderer's RTP packets go (dropped until the connection is up). */
  readonly sink: StreamMediaSink;
  /** The number of open data channels (introspection for tests). */
  readonly channels: number;
  /** Remote candidates the ICE policy refused on this connection. */
  readonly refusedCandidates: number;
  close(): Promise<void>;
}

export interface PeerEvents {
  /** A text message from the browser on any data channel. */
  message(text: string): void;
  /** The connection failed or was closed by the far side. */
  failed(): void;
  /**
   * Remote candidates were refused by the ICE policy: how many for each reason (their class,
   * never their address), once per answer or trickled candidate; `total` on this connection so far.
   */
  refused?(reasons: Record<string, number>, total: number): void;
}

const MAX_EARLY = 100;

function trySend(dc: RTCDataChannel, text: string): void {
  try {
    dc.send(text);
  } catch {
    // A channel closing under us: the others still get it.
  }
}

/** NTP time now (RFC 3550: seconds since 1900 in the high 32 bits, the fraction of a second in the low 32). */
export function ntpNow(ms = performance.timeOrigin + performance.now()): bigint {
  const since1900 = ms + 2_208_988_800_000;
  const seconds = Math.floor(since1900 / 1000);
  const fraction = Math.floor(((since1900 - seconds * 1000) / 1000) * 2 ** 32);
  return (BigInt(seconds) << 32n) | BigInt(fraction);
}

/**
 * werift 0.24's `ntpTime()` reads the decimal digits after the point as the NTP fraction
 * (12:00:00.5 becomes 12:00:00 plus 5/2^32), so its RTCP sender reports, which receivers map
 * RTP time to wall-clock time with (lip sync), are off by up to a second, differently for each
 * track and each report. Each packet's NTP time, which the sender reports are built from, is
 * set right after werift sets it.
 */
function fixSenderReports(sender: RTCRtpTransceiver['sender']): void {
  const s = sender as unknown as { sendRtp(rtp: unknown): Promise<void>; ntpTimestamp: bigint };
  const send = s.sendRtp.bind(sender);
  s.sendRtp = (rtp) => {
    const sent = send(rtp);
    s.ntpTimestamp = ntpNow();
    return sent;
  };
}

/**
 * The connection address of a candidate (`candidate:` optional), read as werift reads it
 * (`Candidate.fromSdp`: fields split on single spaces, the address fifth), or null when werift
 * could not parse it either.
 */
export function candidateAddress(text: string): string | null {
  const bits = (text.startsWith('candidate:') ? text.slice('candidate:'.length) : text).split(' ');
  return bits.length < 8 ? null : bits[4]!;
}

/**
 * `sdp` without the candidate lines `keep` refuses: it gets them all at once (`candidate:...`)
 * and answers one verdict each. Lines are split as werift splits them (on CRLF, or on LF when
 * the text has no CRLF), so every line werift could read as a candidate passes through `keep`.
 */
export function screenCandidates(sdp: string, keep: (candidates: string[]) => boolean[]): string {
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  const lines = sdp.split(eol);
  const isCandidate = (l: string) => l.startsWith('a=candidate:');
  const verdicts = keep(lines.filter(isCandidate).map((l) => l.slice('a='.length)));
  let i = 0;
  return lines.filter((l) => !isCandidate(l) || verdicts[i++] === true).join(eol);
}

const codecsFor = (mode: CompatibilityMode) =>
  mode === 'on' ? [useVP8()] : mode === 'off' ? [useH264()] : [useH264(), useVP8()];

export function createStreamPeer(opts: PeerOptions, events: PeerEvents): StreamPeer {
  let refused = 0;
  /**
   * True for each address mimic may contact, and for null (a candidate werift cannot parse: it
   * refuses it itself); refusals are counted by reason, one event for an answer's many.
   */
  const screen = (addresses: (string | null)[]): boolean[] => {
    const reasons: Record<string, number> = {};
    const verdicts = addresses.map((address) => {
      const reason = address === null ? null : opts.icePolicy.refusal(address);
      if (reason !== null) reasons[reason] = (reasons[reason] ?? 0) + 1;
      return reason === null;
    });
    const n = verdicts.filter((ok) => !ok).length;
    if (n > 0) {
      refused += n;
      events.refused?.(reasons, refused);
    }
    return verdicts;
  };
  const pc = new RTCPeerConnection({
    iceServers: opts.iceServers.map((s) => ({ urls: s.urls, ...(s.username !== undefined ? { username: s.username } : {}), ...(s.credential !== undefined ? { credential: s.credential } : {}) })),
    codecs: { video: codecsFor(opts.compatibility), audio: [useOPUS({ mimeType: 'audio/opus' })] },
    bundlePolicy: 'max-bundle',
    // Behind the screening of answer and trickle: no pair with a refused address is ever checked.
    // Peer-reflexive candidates are learnt from the peer's own authenticated checks: answering their source is ICE.
    iceFilterCandidatePair: (pair) => pair.remoteCandidate.type === 'prflx' || screen([pair.remoteCandidate.host])[0]!,
    iceUseIpv6: opts.iceAddress === undefined,
    ...(opts.iceAddress !== undefined ? { iceInterfaceAddresses: { udp4: opts.iceAddress }, iceAdditionalHostAddresses: [opts.iceAddress] } : {}),
  });
  const video = new MediaStreamTrack({ kind: 'video' });
  const audio = new MediaStreamTrack({ kind: 'audio' });
  const videoTx: RTCRtpTransceiver = pc.addTransceiver(video, { direction: 'sendonly' });
  const audioTx: RTCRtpTransceiver = pc.addTransceiver(audio, { direction: 'sendonly' });
  for (const tx of [videoTx, audioTx]) fixSenderReports(tx.sender);
  const channels = new Set<RTCDataChannel>();
  /** Events sent before the browser's own channel was open: it gets them when it opens (a script may be posted the moment the client's side opens). */
  const early: string[] = [];
  let closed = false;
  const clientChannels = (): RTCDataChannel[] => [...channels].filter((dc) => dc !== own && dc.readyState === 'open');

  const adopt = (dc: RTCDataChannel): void => {
    channels.add(dc);
    const flush = () => {
      for (const text of early.splice(0)) trySend(dc, text);
    };
    if (dc.readyState === 'open') flush();
    else dc.stateChanged.subscribe((state) => state === 'open' && flush());
    dc.onMessage.subscribe((data) => {
      if (typeof data === 'string') events.message(data);
      else events.message(Buffer.from(data).toString('utf8'));
    });
    dc.stateChanged.subscribe((state) => {
      if (state === 'closed') channels.delete(dc);
    });
  };
  // The server's own channel puts the m=application section in the offer; the browser's channel arrives here.
  const own: RTCDataChannel = pc.createDataChannel('mimic');
  channels.add(own);
  own.onMessage.subscribe((data) => events.message(typeof data === 'string' ? data : Buffer.from(data).toString('utf8')));
  // The association ends when the browser closes its connection: sooner than ICE notices (~30 s of silence).
  own.stateChanged.subscribe((state) => {
    if (state === 'closed' && !closed) events.failed();
  });
  pc.onDataChannel.subscribe(adopt);
  let settleUp: (up: boolean) => void = () => {};
  const up = new Promise<boolean>((resolve) => {
    settleUp = resolve;
  });
  pc.connectionStateChange.subscribe((state) => {
    if (state === 'connected') settleUp(true);
    if (state === 'failed' || state === 'closed') settleUp(false);
    if (!closed && (state === 'failed' || state === 'closed')) events.failed();
  });
  const write = (track: MediaStreamTrack, packet: Buffer): void => {
    if (closed || pc.connectionState !== 'connected') return;
    try {
      track.writeRtp(packet);
    } catch {
      // A malformed packet from the renderer is dropped: the stream goes on.
    }
  };

  return {
    async offer() {
      const offer = await pc.createOffer();
      await pc.setLocalDescription(offer);
      if (pc.iceGatheringState !== 'complete') {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, opts.gatherTimeoutMs);
          const sub = pc.iceGatheringStateChange.subscribe((s) => s === 'complete' && done());
          function done() {
            clearTimeout(timer);
            sub.unSubscribe();
            resolve();
          }
        });
      }
      const sdp = pc.localDescription!.sdp;
      // Sockets are bound to iceAddress alone: host candidates of other interfaces could never answer.
      if (opts.iceAddress === undefined) return sdp;
      return sdp.split('\r\n').filter((l) => !l.startsWith('a=candidate:') || !/ typ host/.test(l) || l.split(' ')[4] === opts.iceAddress).join('\r\n');
    },
    async answer(sdp) {
      // What is plainly not an answer is refused before it reaches the connection (which it would break).
      if (!/^v=0\r?\n/.test(sdp) || !/\r?\nm=video /.test(sdp) || !/\r?\na=fingerprint:/.test(sdp) || !/\r?\na=ice-ufrag:/.test(sdp)) {
        throw new Error('not an SDP answer with video, a DTLS fingerprint and ICE credentials');
      }
      // A malformed candidate line stays: werift refuses the whole answer over it.
      await pc.setRemoteDescription({ type: 'answer', sdp: screenCandidates(sdp, (candidates) => screen(candidates.map(candidateAddress))) });
      const mime = videoTx.sender.codec?.mimeType.toLowerCase();
      if (mime === 'video/vp8') return 'vp8';
      if (mime === 'video/h264') return 'h264';
      throw new Error(`the answer chose no video codec the server offered (${mime ?? 'none'})`);
    },
    async addCandidate(candidate) {
      if (candidate === null || candidate.candidate === '') return;
      const address = candidateAddress(candidate.candidate);
      if (address === null) throw new Error('not a candidate line');
      if (!screen([address])[0]) return;
      await pc.addIceCandidate({ candidate: candidate.candidate, sdpMid: candidate.sdpMid ?? undefined, sdpMLineIndex: candidate.sdpMLineIndex ?? undefined });
    },
    send(text) {
      const open = clientChannels();
      for (const dc of open) trySend(dc, text);
      if (open.length > 0) return;
      // No channel of the browser's yet: kept for it, and sent on the server's own (a client may listen with ondatachannel instead).
      if (early.length < MAX_EARLY) early.push(text);
      if (own.readyState === 'open') trySend(own, text);
    },
    connected: () => (pc.connectionState === 'connected' ? Promise.resolve(true) : up),
    sink: {
      video: (packet) => write(video, packet),
      audio: (packet) => write(audio, packet),
    },
    get channels() {
      return [...channels].filter((dc) => dc.readyState === 'open').length;
    },
    get refusedCandidates() {
      return refused;
    },
    async close() {
      if (closed) return;
      closed = true;
      settleUp(false);
      for (const dc of channels) {
        try {
          dc.close();
        } catch {
          /* already closing */
        }
      }
      channels.clear();
      video.stop();
      audio.stop();
      await pc.close();
    },
  };
}
