/**
 * A VP9 WebM with alpha, joined from two VP9 encodes of the same frames: the colour, and the
 * alpha plane as the luma of a video of its own. ffmpeg 4.1's libvpx wrapper can encode the
 * alpha itself, but passes none of the speed options to its alpha encoder (it runs at
 * cpu-used 0: about 15x slower than the colour at 8, and the clip fell below real time), so
 * the renderer encodes both at the same speed and this file joins them the way libvpx's own
 * muxing does: the video track gets `AlphaMode 1` and `MaxBlockAdditionID 1`, and each colour
 * frame becomes a BlockGroup whose BlockAdditional (BlockAddID 1) carries the alpha frame of
 * the same timestamp. Audio blocks are copied. Seek entries and cues are written afresh
 * (cues at each cluster that starts on a video keyframe).
 */
import { readFile, writeFile } from 'node:fs/promises';

const ID = {
  ebml: 0x1a45dfa3, segment: 0x18538067, seekHead: 0x114d9b74, seek: 0x4dbb, seekId: 0x53ab, seekPosition: 0x53ac,
  info: 0x1549a966, tracks: 0x1654ae6b, trackEntry: 0xae, trackNumber: 0xd7, codecId: 0x86, video: 0xe0,
  alphaMode: 0x53c0, maxBlockAdditionId: 0x55ee, tags: 0x1254c367, cues: 0x1c53bb6b, cuePoint: 0xbb, cueTime: 0xb3,
  cueTrackPositions: 0xb7, cueTrack: 0xf7, cueClusterPosition: 0xf1, cluster: 0x1f43b675, timestamp: 0xe7,
  simpleBlock: 0xa3, blockGroup: 0xa0, block: 0xa1, referenceBlock: 0xfb, blockAdditions: 0x75a1, blockMore: 0xa6,
  blockAddId: 0xee, blockAdditional: 0xa5,
} as const;

interface Element {
  id: number;
  /** The whole element (id, size and payload), as read. */
  raw: Buffer;
  payload: Buffer;
}

function vintLength(first: number, what: string): number {
  for (let n = 1; n <= 8; n++) if (first & (0x100 >> n)) return n;
  throw new Error(`webm: bad ${what}`);
}

/** The elements of `buf` from `start` to `end`, one level deep. Unknown sizes are refused: ffmpeg writes a seekable file. */
function children(buf: Buffer, start = 0, end = buf.length): Element[] {
  const out: Element[] = [];
  let p = start;
  while (p < end) {
    const idLen = vintLength(buf[p]!, 'element id');
    const id = buf.readUIntBE(p, idLen);
    const sizeLen = vintLength(buf[p + idLen]!, 'element size');
    let size = buf[p + idLen]! & (0xff >> sizeLen);
    for (let i = 1; i < sizeLen; i++) size = size * 256 + buf[p + idLen + i]!;
    if (size === 2 ** (7 * sizeLen) - 1) throw new Error('webm: an element of unknown size');
    const from = p + idLen + sizeLen;
    if (from + size > end) throw new Error('webm: an element runs past its parent');
    out.push({ id, raw: buf.subarray(p, from + size), payload: buf.subarray(from, from + size) });
    p = from + size;
  }
  return out;
}

const idBytes = (id: number): Buffer => {
  const len = id > 0xffffff ? 4 : id > 0xffff ? 3 : id > 0xff ? 2 : 1;
  const b = Buffer.alloc(len);
  b.writeUIntBE(id, 0, len);
  return b;
};

/** Sizes are written on 8 bytes: every element's size is known before its parent is. */
function element(id: number, ...parts: Buffer[]): Buffer {
  const payload = Buffer.concat(parts);
  const size = Buffer.alloc(8);
  size.writeUIntBE(payload.length, 2, 6);
  size[0] = 0x01;
  return Buffer.concat([idBytes(id), size, payload]);
}

/** An unsigned integer element, on `width` bytes (at least the bytes it needs; values up to 2^48). */
const uint = (id: number, value: number, width?: number): Buffer => {
  const needs = Math.max(1, Math.ceil(Math.log2(value + 1) / 8));
  const b = Buffer.alloc(Math.max(needs, width ?? 0));
  b.writeUIntBE(value, b.length - Math.min(needs, 6), Math.min(needs, 6));
  return element(id, b);
};

const sint = (id: number, value: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(value, 0);
  return element(id, b);
};

const find = (els: Element[], id: number) => els.find((e) => e.id === id);

/** A block's track, its timecode relative to the cluster, its flags and its frame. */
function parseBlock(payload: Buffer): { track: number; rel: number; flags: number; frame: Buffer } {
  const len = vintLength(payload[0]!, 'track number');
  let track = payload[0]! & (0xff >> len);
  for (let i = 1; i < len; i++) track = track * 256 + payload[i]!;
  return { track, rel: payload.readInt16BE(len), flags: payload[len + 2]!, frame: payload.subarray(len + 3) };
}

interface Parsed {
  header: Buffer;
  segment: Element[];
  videoTrack: number;
}

function parse(file: Buffer): Parsed {
  const top = children(file);
  const header = find(top, ID.ebml), segment = find(top, ID.segment);
  if (!header || !segment) throw new Error('webm: no EBML header or segment');
  const seg = children(segment.payload);
  const tracks = find(seg, ID.tracks);
  const video = tracks && children(tracks.payload).filter((t) => t.id === ID.trackEntry)
    .map((t) => children(t.payload))
    .find((t) => find(t, ID.codecId)?.payload.toString('latin1') === 'V_VP9');
  const number = video && find(video, ID.trackNumber);
  if (!number) throw new Error('webm: no VP9 track');
  return { header: header.raw, segment: seg, videoTrack: number.payload.readUIntBE(0, number.payload.length) };
}

/**
 * The video track's frames in order. They are paired with the colour's by position, not by
 * timestamp: the colour file's timestamps are shifted by its audio's codec delay.
 */
function framesOf(p: Parsed): Buffer[] {
  const frames: Buffer[] = [];
  for (const cluster of p.segment.filter((e) => e.id === ID.cluster)) {
    const els = children(cluster.payload);
    const base = find(els, ID.timestamp)!;
    for (const e of els) {
      const block = e.id === ID.simpleBlock ? e.payload : e.id === ID.blockGroup ? find(children(e.payload), ID.block)?.payload : undefined;
      if (!block) continue;
      const b = parseBlock(block);
      if (b.track === p.videoTrack) frames.push(b.frame);
    }
  }
  return frames;
}

/** The Tracks element with the video track marked as carrying alpha. */
function tracksWithAlpha(tracks: Element, videoTrack: number): Buffer {
  const entries = children(tracks.payload).map((t) => {
    if (t.id !== ID.trackEntry) return t.raw;
    const fields = children(t.payload);
    const number = find(fields, ID.trackNumber);
    if (!number || number.payload.readUIntBE(0, number.payload.length) !== videoTrack) return t.raw;
    const kept = fields.filter((f) => f.id !== ID.maxBlockAdditionId).map((f) =>
      f.id === ID.video ? element(ID.video, ...children(f.payload).filter((v) => v.id !== ID.alphaMode).map((v) => v.raw), uint(ID.alphaMode, 1)) : f.raw,
    );
    return element(ID.trackEntry, ...kept, uint(ID.maxBlockAdditionId, 1));
  });
  return element(ID.tracks, ...entries);
}

/** Joins `colourPath` (VP9 and any audio) and `alphaPath` (VP9 whose luma is the alpha) into `outPath`. */
export async function joinAlpha(colourPath: string, alphaPath: string, outPath: string): Promise<void> {
  const colour = parse(await readFile(colourPath));
  const alpha = framesOf(parse(await readFile(alphaPath)));
  const track = colour.videoTrack;

  const clusters: { ts: number; key: boolean; bytes: Buffer }[] = [];
  let previous: number | undefined;
  let n = 0;
  for (const cluster of colour.segment.filter((e) => e.id === ID.cluster)) {
    const els = children(cluster.payload);
    const base = find(els, ID.timestamp)!;
    const ts = base.payload.readUIntBE(0, base.payload.length);
    let startsOnKey: boolean | undefined;
    const blocks = els.filter((e) => e.id !== ID.timestamp).map((e) => {
      if (e.id !== ID.simpleBlock) return e.raw;
      const b = parseBlock(e.payload);
      if (b.track !== track) return e.raw;
      const at = ts + b.rel;
      const key = (b.flags & 0x80) !== 0;
      startsOnKey ??= key;
      const plain = Buffer.from(e.payload);
      // A Block's flags have no keyframe bit (or discardable): a keyframe is a block without a reference.
      plain[plain.length - b.frame.length - 1] = b.flags & ~0x81;
      const parts = [element(ID.block, plain)];
      if (!key && previous !== undefined) parts.push(sint(ID.referenceBlock, previous - at));
      const a = alpha[n++];
      if (a) parts.push(element(ID.blockAdditions, element(ID.blockMore, uint(ID.blockAddId, 1), element(ID.blockAdditional, a))));
      previous = at;
      return element(ID.blockGroup, ...parts);
    });
    clusters.push({ ts, key: startsOnKey ?? false, bytes: element(ID.cluster, uint(ID.timestamp, ts), ...blocks) });
  }

  if (n !== alpha.length) throw new Error(`webm: ${n} colour frames but ${alpha.length} alpha frames`);
  const info = find(colour.segment, ID.info)!.raw;
  const tracks = tracksWithAlpha(find(colour.segment, ID.tracks)!, track);
  const tags = find(colour.segment, ID.tags)?.raw ?? Buffer.alloc(0);
  // Positions are relative to the segment's payload; the seek head's size does not depend on them (8-byte positions).
  const seekEntry = (id: number, pos: number) => element(ID.seek, element(ID.seekId, idBytes(id)), uint(ID.seekPosition, pos, 8));
  const seekSize = element(ID.seekHead, seekEntry(ID.info, 0), seekEntry(ID.tracks, 0), seekEntry(ID.cues, 0)).length;
  let at = seekSize + info.length + tracks.length + tags.length;
  const cuePoints: Buffer[] = [];
  for (const c of clusters) {
    if (c.key) cuePoints.push(element(ID.cuePoint, uint(ID.cueTime, c.ts), element(ID.cueTrackPositions, uint(ID.cueTrack, track), uint(ID.cueClusterPosition, at))));
    at += c.bytes.length;
  }
  const seekHead = element(ID.seekHead, seekEntry(ID.info, seekSize), seekEntry(ID.tracks, seekSize + info.length), seekEntry(ID.cues, at));
  const segment = element(ID.segment, seekHead, info, tracks, tags, ...clusters.map((c) => c.bytes), element(ID.cues, ...cuePoints));
  await writeFile(outPath, Buffer.concat([colour.header, segment]));
}
