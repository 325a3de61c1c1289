import type { ServerResponse } from 'node:http';
import { harness, type Harness } from '../../helpers/harness.ts';
import { startTlsServer, type TestServer } from '../../helpers/tls.ts';
import { leakedIn } from '../../helpers/canaries.ts';
import { makeSecret } from '../../helpers/tools.ts';
import type { Clock } from '../../../src/clock.ts';
import { externalDeps, type ExternalDeps } from '../../../src/voices/external/index.ts';
import { SpeechError, type Speech } from '../../../src/voices/interface.ts';
import { SECRET_STORE } from '../../../src/secrets/contract.ts';
import { AUDIT } from '../../../src/audit/contract.ts';

/**
 * What the external voice tests share: a loopback HTTPS "vendor", the real service over a
 * real SQLite file (vault, secrets, the guarded client that trusts the vendor's certificate
 * and may reach localhost because MIMIC_EGRESS_ALLOW says so), and audio fixtures.
 */

/** A 440 Hz sine, `ms` long: real audio a fixture vendor answers with. */
export function sine(ms: number, sampleRate = 24_000): Int16Array {
  const out = new Int16Array(Math.round((ms / 1000) * sampleRate));
  for (let i = 0; i < out.length; i++) out[i] = Math.round(12_000 * Math.sin((2 * Math.PI * 440 * i) / sampleRate));
  return out;
}

export function pcmBytes(samples: Int16Array): Buffer {
  const buf = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => buf.writeInt16LE(s, i * 2));
  return buf;
}

/** A canonical 16-bit PCM WAV file; `streamed` writes 0xFFFFFFFF sizes, as streaming encoders do. */
export function wavOf(samples: Int16Array, sampleRate = 24_000, opts: { channels?: number; streamed?: boolean; extraChunk?: boolean } = {}): Buffer {
  const channels = opts.channels ?? 1;
  const interleaved = new Int16Array(samples.length * channels);
  samples.forEach((s, i) => interleaved.fill(s, i * channels, (i + 1) * channels));
  const data = pcmBytes(interleaved);
  const fmt = Buffer.alloc(24);
  fmt.write('fmt ', 0, 'latin1');
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(1, 8);
  fmt.writeUInt16LE(channels, 10);
  fmt.writeUInt32LE(sampleRate, 12);
  fmt.writeUInt32LE(sampleRate * channels * 2, 16);
  fmt.writeUInt16LE(channels * 2, 20);
  fmt.writeUInt16LE(16, 22);
  // An odd-sized LIST chunk before the data, padded, as some encoders write.
  const list = opts.extraChunk ? Buffer.concat([Buffer.from('LIST', 'latin1'), Buffer.from([3, 0, 0, 0]), Buffer.from('abc\0', 'latin1')]) : Buffer.alloc(0);
  const dataHeader = Buffer.alloc(8);
  dataHeader.write('data', 0, 'latin1');
  dataHeader.writeUInt32LE(opts.streamed ? 0xffffffff : data.length, 4);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(opts.streamed ? 0xffffffff : 4 + fmt.length + list.length + 8 + data.length, 4);
  riff.write('WAVE', 8, 'latin1');
  return Buffer.concat([riff, fmt, list, dataHeader, data]);
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** A clock the test moves (voice list caching). */
export function manualClock(start = 1_700_000_000_000): Clock & { advance(ms: number): void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

export interface VendorWorld {
  h: Harness;
  vendor: TestServer;
  key: string;
  clock: ReturnType<typeof manualClock>;
  deps: ExternalDeps;
  secret(body: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function vendorWorld(): Promise<VendorWorld> {
  const vendor = await startTlsServer();
  const h = harness({ MIMIC_EGRESS_ALLOW: 'localhost' }, { ca: [vendor.ca] });
  const { key } = h.user();
  const clock = manualClock();
  // The platform's parts, as the voices module wires them; only the clock is the test's.
  const deps: ExternalDeps = { ...externalDeps(h.services, { listTimeoutMs: 2000 }, { secrets: h.services.find(SECRET_STORE)!, audit: h.services.find(AUDIT)! }), clock };
  return {
    h, vendor, key, clock, deps,
    secret: (body) => makeSecret(h, key, body),
    async close() {
      await h.close(); // fails on a canary in any response, log line or audit row
      await vendor.close();
    },
  };
}

/** The error a promise rejects with (fails when it resolves). */
export async function failure(p: Promise<unknown>): Promise<SpeechError> {
  const err = await p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );
  if (!(err instanceof SpeechError)) throw err;
  return err;
}

/** Every planted credential form found in what a caller sees of a result or an error. */
export function leaksOf(...seen: unknown[]): string[] {
  return seen.flatMap((s) => leakedIn(s instanceof Error ? `${s.name} ${s.message} ${s.stack ?? ''} ${JSON.stringify(s)}` : JSON.stringify(s, (_k, v) => (v instanceof Int16Array ? `[${v.length} samples]` : v))));
}

export const speechSummary = (s: Speech) => ({ samples: s.pcm.length, sampleRate: s.sampleRate, durationMs: s.durationMs, voice: s.voice });
