/**
 * A real browser for stream tests: headless Chromium (Debian's `chromium`, driven by
 * playwright-core) answering mimic's offer as the demo client does, with its own
 * `JanusDataChannel`. It decodes H.264, which the libwebrtc build of @roamhq/wrtc cannot.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { BrowserPeer } from './browser-peer.ts';

export const CHROMIUM = process.env.MIMIC_CHROMIUM ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

export interface ChromiumPeer extends BrowserPeer {
  /** What the browser's decoder reports: the codec in use, frames decoded, audio packets received. */
  stats(): Promise<{ codec: string; framesDecoded: number; audioPackets: number }>;
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required'] });
}

export async function answerInChromium(browser: Browser, offerSdp: string): Promise<ChromiumPeer> {
  const page: Page = await browser.newPage();
  // Browser code as text: this project type-checks without the DOM library.
  const { sdp, candidates } = (await page.evaluate(`(async (offer) => {
    window.messages = [];
    window.dcOpen = false;
    const pc = new RTCPeerConnection({ iceServers: [] });
    window.pc = pc;
    const dc = pc.createDataChannel('JanusDataChannel');
    window.dc = dc;
    dc.onopen = () => (window.dcOpen = true);
    dc.onmessage = (e) => window.messages.push(String(e.data));
    const found = [];
    const gathered = new Promise((resolve) => {
      pc.onicecandidate = (e) => (e.candidate ? found.push(e.candidate.toJSON()) : resolve());
    });
    pc.ontrack = (e) => {
      const el = document.createElement(e.track.kind === 'video' ? 'video' : 'audio');
      el.autoplay = true;
      el.muted = true;
      el.srcObject = e.streams[0] ?? new MediaStream([e.track]);
      document.body.appendChild(el);
    };
    await pc.setRemoteDescription({ type: 'offer', sdp: offer });
    await pc.setLocalDescription(await pc.createAnswer());
    await Promise.race([gathered, new Promise((r) => setTimeout(r, 2000))]);
    return { sdp: pc.localDescription.sdp, candidates: found };
  })(${JSON.stringify(offerSdp)})`)) as { sdp: string; candidates: object[] };

  const messages: string[] = [];
  const refresh = async () => {
    const m = (await page.evaluate('window.messages')) as string[];
    messages.splice(0, messages.length, ...m);
  };
  const poll = async <T>(get: () => Promise<T | undefined>, what: string, timeoutMs: number): Promise<T> => {
    const started = Date.now();
    for (;;) {
      const v = await get();
      if (v !== undefined) return v;
      if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const peer: ChromiumPeer = {
    messages, frames: 0, sizes: new Set(), audioChunks: 0, answerSdp: sdp, candidates,
    opened: poll(async () => ((await page.evaluate('window.dcOpen')) ? true : undefined), 'the data channel', 30_000).then(() => undefined),
    send: (text) => void page.evaluate(`window.dc.send(${JSON.stringify(text)})`),
    async waitFor(prefix, { from = 0, timeoutMs = 30_000 } = {}) {
      return poll(async () => (await refresh(), messages.slice(from).find((m) => m.startsWith(prefix))), `"${prefix}"`, timeoutMs);
    },
    async waitUntil(check, what, timeoutMs = 30_000) {
      await poll(async () => {
        const s = await peer.stats();
        peer.frames = s.framesDecoded;
        peer.audioChunks = s.audioPackets;
        await refresh();
        return check() ? true : undefined;
      }, what, timeoutMs);
    },
    close: () => void page.close().catch(() => {}),
    async stats() {
      return (await page.evaluate(`(async () => {
        const report = await window.pc.getStats();
        let codec = '';
        let framesDecoded = 0;
        let audioPackets = 0;
        const codecs = new Map();
        report.forEach((s) => { if (s.type === 'codec') codecs.set(s.id, s.mimeType); });
        report.forEach((s) => {
          if (s.type !== 'inbound-rtp') return;
          if (s.kind === 'video') {
            framesDecoded = s.framesDecoded ?? 0;
            codec = codecs.get(s.codecId) ?? '';
          } else audioPackets = s.packetsReceived ?? 0;
        });
        return { codec, framesDecoded, audioPackets };
      })()`)) as { codec: string; framesDecoded: number; audioPackets: number };
    },
  };
  return peer;
}
