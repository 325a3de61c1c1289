/**
 * Checks of RTP packets as a WebRTC receiver sees them: the header fields, and the video
 * payload put back together (VP8 into an IVF file, H.264 into an Annex B stream) and decoded
 * by ffmpeg, so a test can look at the picture.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runFfmpeg } from '../../../../src/media/ffmpeg.ts';
import type { RgbImage } from '../../../../src/compute/local/warp.ts';

export interface Rtp {
  payloadType: number;
  marker: boolean;
  seq: number;
  timestamp: number;
  ssrc: number;
  payload: Buffer;
}

export function parseRtp(p: Buffer): Rtp {
  if (p.length < 12 || p[0]! >> 6 !== 2) throw new Error('not an RTP packet');
  const cc = p[0]! & 0x0f;
  let off = 12 + 4 * cc;
  if (p[0]! & 0x10) off += 4 + 4 * p.readUInt16BE(off + 2);
  let end = p.length;
  if (p[0]! & 0x20) end -= p[p.length - 1]!;
  return {
    payloadType: p[1]! & 0x7f, marker: (p[1]! & 0x80) !== 0, seq: p.readUInt16BE(2), timestamp: p.readUInt32BE(4), ssrc: p.readUInt32BE(8),
    payload: p.subarray(off, end),
  };
}

/** Whole frames (by marker bit) of VP8 payloads, the payload descriptor removed; `key` from the VP8 header. */
export function vp8Frames(packets: Rtp[]): { key: boolean; data: Buffer; timestamp: number }[] {
  const frames: { key: boolean; data: Buffer; timestamp: number }[] = [];
  let parts: Buffer[] = [];
  for (const r of packets) {
    const d = r.payload;
    let i = 1;
    if (d[0]! & 0x80) {
      const x = d[1]!;
      i = 2;
      if (x & 0x80) i += d[i]! & 0x80 ? 2 : 1;
      if (x & 0x40) i += 1;
      if (x & 0x30) i += 1;
    }
    const start = (d[0]! & 0x10) !== 0;
    if (start) parts = [];
    parts.push(d.subarray(i));
    if (r.marker) {
      const data = Buffer.concat(parts);
      frames.push({ key: (data[0]! & 1) === 0, data, timestamp: r.timestamp });
      parts = [];
    }
  }
  return frames;
}

/** An IVF file of VP8 frames. */
export function ivf(frames: Buffer[], width: number, height: number): Buffer {
  const head = Buffer.alloc(32);
  head.write('DKIF', 0, 'latin1');
  head.writeUInt16LE(0, 4);
  head.writeUInt16LE(32, 6);
  head.write('VP80', 8, 'latin1');
  head.writeUInt16LE(width, 12);
  head.writeUInt16LE(height, 14);
  head.writeUInt32LE(25, 16);
  head.writeUInt32LE(1, 20);
  head.writeUInt32LE(frames.length, 24);
  const body = frames.flatMap((f, n) => {
    const h = Buffer.alloc(12);
    h.writeUInt32LE(f.length, 0);
    h.writeBigUInt64LE(BigInt(n), 4);
    return [h, f];
  });
  return Buffer.concat([head, ...body]);
}

/** NAL units of H.264 payloads (packetization mode 1: single NAL, STAP-A, FU-A) as an Annex B stream. */
export function h264AnnexB(packets: Rtp[]): { stream: Buffer; nalTypes: number[] } {
  const start = Buffer.from([0, 0, 0, 1]);
  const out: Buffer[] = [];
  const nalTypes: number[] = [];
  let fu: Buffer[] | undefined;
  for (const r of packets) {
    const d = r.payload;
    const type = d[0]! & 0x1f;
    if (type >= 1 && type <= 23) { out.push(start, d); nalTypes.push(type); }
    else if (type === 24) {
      for (let i = 1; i + 2 <= d.length;) {
        const n = d.readUInt16BE(i);
        const nal = d.subarray(i + 2, i + 2 + n);
        out.push(start, nal);
        nalTypes.push(nal[0]! & 0x1f);
        i += 2 + n;
      }
    } else if (type === 28) {
      const fuHeader = d[1]!;
      if (fuHeader & 0x80) fu = [Buffer.from([(d[0]! & 0xe0) | (fuHeader & 0x1f)])];
      fu?.push(d.subarray(2));
      if (fuHeader & 0x40 && fu) {
        out.push(start, Buffer.concat(fu));
        nalTypes.push(fuHeader & 0x1f);
        fu = undefined;
      }
    } else throw new Error(`unexpected H.264 NAL type ${type} in RTP`);
  }
  return { stream: Buffer.concat(out), nalTypes };
}

/** Every picture ffmpeg decodes from `data` (a file of `format`), rgb24, in order. */
export async function pictures(dir: string, name: string, data: Buffer, format: 'ivf' | 'h264', width: number, height: number): Promise<{ frames: Buffer[]; errors: string }> {
  const path = join(dir, `${name}.${format}`);
  await writeFile(path, data);
  const r = await runFfmpeg(['-v', 'error', '-f', format, '-i', path, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-']);
  const size = width * height * 3;
  const frames = Array.from({ length: Math.floor(r.stdout.length / size) }, (_, i) => r.stdout.subarray(i * size, (i + 1) * size));
  return { frames, errors: r.stderr };
}

/** The last picture ffmpeg decodes from `data` (a file of `format`), as rgb24. */
export async function lastPicture(dir: string, name: string, data: Buffer, format: 'ivf' | 'h264', width: number, height: number): Promise<{ image: RgbImage; frames: number; errors: string }> {
  const { frames, errors } = await pictures(dir, name, data, format, width, height);
  if (frames.length === 0) throw new Error(`nothing decoded: ${errors}`);
  return { image: { width, height, data: new Uint8Array(frames.at(-1)!) }, frames: frames.length, errors };
}

const OGG_CRC = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let k = 0; k < 8; k++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    t[i] = r >>> 0;
  }
  return t;
})();

function oggPage(data: Buffer, granule: bigint, seq: number, flags: number): Buffer {
  const lacing: number[] = [];
  let n = data.length;
  while (n >= 255) { lacing.push(255); n -= 255; }
  lacing.push(n);
  const head = Buffer.alloc(27 + lacing.length);
  head.write('OggS', 0, 'latin1');
  head[5] = flags;
  head.writeBigInt64LE(granule, 6);
  head.writeUInt32LE(1, 14);
  head.writeUInt32LE(seq, 18);
  head[26] = lacing.length;
  lacing.forEach((l, i) => (head[27 + i] = l));
  const page = Buffer.concat([head, data]);
  let crc = 0;
  for (const b of page) crc = ((crc << 8) ^ OGG_CRC[((crc >>> 24) ^ b) & 0xff]!) >>> 0;
  page.writeUInt32LE(crc, 22);
  return page;
}

/** An Ogg Opus file of mono 20 ms Opus packets (RTP payloads), one packet a page, for ffmpeg to decode. */
export function oggOpus(packets: Buffer[]): Buffer {
  const head = Buffer.alloc(19);
  head.write('OpusHead', 0, 'latin1');
  head[8] = 1;
  head[9] = 1;
  head.writeUInt16LE(312, 10);
  head.writeUInt32LE(48_000, 12);
  const vendor = 'mimic-test';
  const tags = Buffer.alloc(8 + 4 + vendor.length + 4);
  tags.write('OpusTags', 0, 'latin1');
  tags.writeUInt32LE(vendor.length, 8);
  tags.write(vendor, 12, 'latin1');
  const pages = [oggPage(head, 0n, 0, 2), oggPage(tags, 0n, 1, 0)];
  packets.forEach((p, i) => pages.push(oggPage(p, BigInt((i + 1) * 960), i + 2, i === packets.length - 1 ? 4 : 0)));
  return Buffer.concat(pages);
}

/** Opus RTP payloads decoded by ffmpeg: mono 16 kHz samples in -1..1. */
export async function decodeOpus(dir: string, name: string, packets: Buffer[]): Promise<{ samples: Float32Array; errors: string }> {
  const path = join(dir, `${name}.ogg`);
  await writeFile(path, oggOpus(packets));
  const r = await runFfmpeg(['-v', 'error', '-i', path, '-ac', '1', '-ar', '16000', '-f', 'f32le', '-']);
  return { samples: new Float32Array(r.stdout.buffer.slice(r.stdout.byteOffset, r.stdout.byteOffset + r.stdout.length - (r.stdout.length % 4))), errors: r.stderr };
}
