/**
 * Piecewise-affine image warping over a triangulation, on raw RGB (3 bytes per pixel)
 * buffers. Triangulation: Bowyer-Watson Delaunay, done once per render (a few hundred
 * points), so its O(n^2) cost does not matter.
 */

export interface RgbImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Delaunay triangulation of `pts` ([x0,y0,x1,y1,...]); returns vertex index triples. */
export function delaunay(pts: Float64Array): Uint32Array {
  const n = pts.length / 2;
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (let i = 0; i < n; i++) {
    minX = Math.min(minX, pts[2 * i]!); maxX = Math.max(maxX, pts[2 * i]!);
    minY = Math.min(minY, pts[2 * i + 1]!); maxY = Math.max(maxY, pts[2 * i + 1]!);
  }
  const d = Math.max(maxX - minX, maxY - minY) * 20 + 10;
  const cx = (minX + maxX) / 2, cy = (minY + maxY) / 2;
  const xs = [...Array.from({ length: n }, (_, i) => pts[2 * i]!), cx - d, cx, cx + d];
  const ys = [...Array.from({ length: n }, (_, i) => pts[2 * i + 1]!), cy - d, cy + d, cy - d];
  type Tri = { a: number; b: number; c: number; x: number; y: number; r2: number };
  const makeTri = (a: number, b: number, c: number): Tri => {
    const ax = xs[a]!, ay = ys[a]!, bx = xs[b]!, by = ys[b]!, qx = xs[c]!, qy = ys[c]!;
    const D = 2 * (ax * (by - qy) + bx * (qy - ay) + qx * (ay - by));
    const a2 = ax * ax + ay * ay, b2 = bx * bx + by * by, c2 = qx * qx + qy * qy;
    const x = (a2 * (by - qy) + b2 * (qy - ay) + c2 * (ay - by)) / D;
    const y = (a2 * (qx - bx) + b2 * (ax - qx) + c2 * (bx - ax)) / D;
    return { a, b, c, x, y, r2: (ax - x) ** 2 + (ay - y) ** 2 };
  };
  let tris: Tri[] = [makeTri(n, n + 1, n + 2)];
  for (let p = 0; p < n; p++) {
    const px = xs[p]!, py = ys[p]!;
    const bad: Tri[] = [];
    const keep: Tri[] = [];
    for (const t of tris) ((px - t.x) ** 2 + (py - t.y) ** 2 <= t.r2 * (1 + 1e-12) ? bad : keep).push(t);
    // The boundary of the cavity: edges of bad triangles not shared by two of them.
    const edges = new Map<string, [number, number]>();
    for (const t of bad) {
      for (const [u, v] of [[t.a, t.b], [t.b, t.c], [t.c, t.a]] as [number, number][]) {
        const key = u < v ? `${u},${v}` : `${v},${u}`;
        if (edges.has(key)) edges.delete(key);
        else edges.set(key, [u, v]);
      }
    }
    for (const [u, v] of edges.values()) keep.push(makeTri(u, v, p));
    tris = keep;
  }
  const out: number[] = [];
  for (const t of tris) if (t.a < n && t.b < n && t.c < n) out.push(t.a, t.b, t.c);
  return Uint32Array.from(out);
}

/**
 * Warps the triangles of `tris` that moved from `src` points to `dst` points, reading
 * `from` and writing `into` (which should already hold the unmoved picture). Pixels are
 * sampled bilinearly. Triangles whose three vertices did not move are skipped. `matte`, when
 * given, is a one-byte-per-pixel plane of the same size warped along (the person's alpha).
 */
export function warpTriangles(
  from: RgbImage, into: RgbImage, tris: Uint32Array, src: Float64Array, dst: Float64Array,
  matte?: { from: Uint8Array; into: Uint8Array },
): void {
  const { width: W, height: H } = into;
  const sd = from.data, od = into.data;
  const ms = matte?.from, mo = matte?.into;
  const sw = from.width, sh = from.height;
  const moved = (i: number) => Math.abs(src[2 * i]! - dst[2 * i]!) > 0.01 || Math.abs(src[2 * i + 1]! - dst[2 * i + 1]!) > 0.01;
  for (let t = 0; t < tris.length; t += 3) {
    const i0 = tris[t]!, i1 = tris[t + 1]!, i2 = tris[t + 2]!;
    if (!moved(i0) && !moved(i1) && !moved(i2)) continue;
    const x0 = dst[2 * i0]!, y0 = dst[2 * i0 + 1]!, x1 = dst[2 * i1]!, y1 = dst[2 * i1 + 1]!, x2 = dst[2 * i2]!, y2 = dst[2 * i2 + 1]!;
    const det = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
    if (Math.abs(det) < 1e-9) continue;
    const u0 = src[2 * i0]!, v0 = src[2 * i0 + 1]!, u1 = src[2 * i1]!, v1 = src[2 * i1 + 1]!, u2 = src[2 * i2]!, v2 = src[2 * i2 + 1]!;
    // Affine map dst -> src: s = A * (p - p0) + s0, with A = S * D^-1.
    const ia = (y2 - y0) / det, ib = -(x2 - x0) / det, ic = -(y1 - y0) / det, id = (x1 - x0) / det;
    const ax = (u1 - u0) * ia + (u2 - u0) * ic, bx = (u1 - u0) * ib + (u2 - u0) * id;
    const ay = (v1 - v0) * ia + (v2 - v0) * ic, by = (v1 - v0) * ib + (v2 - v0) * id;
    const yMin = Math.max(0, Math.ceil(Math.min(y0, y1, y2) - 0.5));
    const yMax = Math.min(H - 1, Math.floor(Math.max(y0, y1, y2) - 0.5));
    for (let y = yMin; y <= yMax; y++) {
      const yc = y + 0.5;
      let xl = Infinity, xr = -Infinity;
      // Intersections of the scanline with the three edges.
      for (let e = 0; e < 3; e++) {
        const ax0 = e === 0 ? x0 : e === 1 ? x1 : x2, ay0 = e === 0 ? y0 : e === 1 ? y1 : y2;
        const bx0 = e === 0 ? x1 : e === 1 ? x2 : x0, by0 = e === 0 ? y1 : e === 1 ? y2 : y0;
        if ((ay0 <= yc && by0 > yc) || (by0 <= yc && ay0 > yc)) {
          const x = ax0 + ((yc - ay0) * (bx0 - ax0)) / (by0 - ay0);
          if (x < xl) xl = x;
          if (x > xr) xr = x;
        }
      }
      if (xl > xr) continue;
      const xStart = Math.max(0, Math.ceil(xl - 0.5));
      const xEnd = Math.min(W - 1, Math.ceil(xr - 0.5) - 1);
      let o = (y * W + xStart) * 3;
      for (let x = xStart; x <= xEnd; x++, o += 3) {
        const dx = x + 0.5 - x0, dy = yc - y0;
        let sx = u0 + ax * dx + bx * dy - 0.5;
        let sy = v0 + ay * dx + by * dy - 0.5;
        if (sx < 0) sx = 0; else if (sx > sw - 1.001) sx = sw - 1.001;
        if (sy < 0) sy = 0; else if (sy > sh - 1.001) sy = sh - 1.001;
        const ix = sx | 0, iy = sy | 0;
        const fx = sx - ix, fy = sy - iy;
        const p = (iy * sw + ix) * 3, q = p + sw * 3;
        const w00 = (1 - fx) * (1 - fy), w10 = fx * (1 - fy), w01 = (1 - fx) * fy, w11 = fx * fy;
        od[o] = sd[p]! * w00 + sd[p + 3]! * w10 + sd[q]! * w01 + sd[q + 3]! * w11 + 0.5;
        od[o + 1] = sd[p + 1]! * w00 + sd[p + 4]! * w10 + sd[q + 1]! * w01 + sd[q + 4]! * w11 + 0.5;
        od[o + 2] = sd[p + 2]! * w00 + sd[p + 5]! * w10 + sd[q + 2]! * w01 + sd[q + 5]! * w11 + 0.5;
        if (mo) {
          const m = iy * sw + ix, n = m + sw;
          mo[o / 3] = ms![m]! * w00 + ms![m + 1]! * w10 + ms![n]! * w01 + ms![n + 1]! * w11 + 0.5;
        }
      }
    }
  }
}
