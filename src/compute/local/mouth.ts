/**
 * The inside of an opening mouth, drawn over the warped frame. The warp has already moved the
 * upper lip (and a moustache over it) with the upper face and the lower lip (and a beard under
 * it) with the jaw; what lies between the two inner lip contours is the gap. Only that gap is
 * shaded, column by column: the warped pixels there are darkened (multiplied, never replaced),
 * so the picture's own colour cast stays (sepia stays sepia) and hair that hangs over the
 * opening keeps its strands. Where the gap is under a pixel and a half tall nothing is drawn,
 * so a closed mouth leaves no line. Upper teeth are drawn under the upper lip where the gap is
 * tall enough, when the picture shows none of its own; as the mouth opens wider, the tongue
 * rises from behind the lower lip, and the lower teeth show in front of it.
 */
import type { RgbImage } from './warp.ts';

export interface MouthGap {
  /** The upper and lower boundary of the gap, corner to corner, [x0, y0, x1, y1, ...]. */
  top: number[];
  bottom: number[];
  /** Draw upper teeth (the picture's mouth is closed, so it shows none of its own). */
  teeth: boolean;
  /** Hair hides the lips: its ends hang over the opening (and a beard's rise into it), unevenly, whatever their shade. */
  hair?: boolean;
  /** The face's height in pixels (teeth are sized by it). */
  faceHeight: number;
}

/** Gaps shorter than this (pixels) draw nothing; the shade reaches full strength GAP_FULL further. */
const GAP_MIN = 1.5;
const GAP_FULL = 4;
/** What the gap keeps of the picture's light: in its depth, and at its lips. */
const DEPTH_LIGHT = 0.2;
const EDGE_LIGHT = 0.55;
/** Teeth: from a gap this tall (share of the face height), at most this tall. */
const TEETH_FROM = 0.03;
const TEETH_MAX = 0.03;
/** Teeth let this much of the picture through (hair over them keeps its strands). */
const TEETH_COVER = 0.8;
/** The tongue: from a gap this tall (share of the face height), its top at most this high over
 * the lower lip (share of the face height, and of the gap), what it lets through of the shade. */
const TONGUE_FROM = 0.04;
const TONGUE_MAX = 0.035;
const TONGUE_SHARE = 0.38;
const TONGUE_COVER = 0.75;
/** Lower teeth: from a gap this tall, at most this tall (shares of the face height, and of the gap). */
const LOWER_TEETH_FROM = 0.06;
const LOWER_TEETH_MAX = 0.012;
const LOWER_TEETH_SHARE = 0.15;
/** Hair over the upper lip hangs this far over the opening at most (pixels, share of the gap). */
const FRINGE_MAX = 6;
const FRINGE_SHARE = 0.4;
/** What stays of the bars a picture's own open mouth makes when stretched over the gap. */
const STREAK_KEEP = 0.3;
/** Hair that hides the upper lip hangs this far at most (share of the face height, and of the gap). */
const HAIR_MAX = 0.035;
const HAIR_SHARE = 0.45;

/** Smooth noise along x (0..1), one knot every 2 pixels: strands of uneven length. */
function strandLength(x: number): number {
  const k = Math.floor(x / 2), f = x / 2 - k;
  const at = (i: number) => { const v = Math.sin(i * 12.9898 + 4.1) * 43758.5453; return v - Math.floor(v); };
  return at(k) + (at(k + 1) - at(k)) * f;
}

const smoothstep = (x: number): number => (x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x));

/** y of the polyline `line` (sorted by x) at `x`, clamped at its ends. */
function yAt(line: [number, number][], x: number): number {
  if (x <= line[0]![0]) return line[0]![1];
  for (let j = 1; j < line.length; j++) {
    const [x1, y1] = line[j]!, [x0, y0] = line[j - 1]!;
    if (x <= x1) return x1 > x0 ? y0 + ((y1 - y0) * (x - x0)) / (x1 - x0) : y1;
  }
  return line[line.length - 1]![1];
}

const pairs = (flat: number[]): [number, number][] =>
  Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i]!, flat[2 * i + 1]!] as [number, number]).sort((a, b) => a[0] - b[0]);

/** The colours the mouth is drawn with, taken from the picture around it. */
export interface MouthTones {
  tooth: [number, number, number];
  /** The tongue in the shade of the mouth: the teeth's tone, darker, and tinted twice as much. */
  tongue: [number, number, number];
  /** Per channel, the picture's tint around the mouth (mean colour over its mean grey): the
   * shadow in the mouth takes it more strongly (warm in a colour photo, none in a grey one). */
  tint: [number, number, number];
}

/**
 * The mouth's colours for `img` around (cx, cy): teeth from its light tones, half greyed, so
 * teeth in a sepia or black-and-white picture take its tint and a colour photo gets off-white
 * teeth; the tint from its mean colour.
 */
export function mouthTones(img: RgbImage, cx: number, cy: number, radius: number): MouthTones {
  const lums: [number, number, number, number][] = [];
  const x0 = Math.max(0, Math.round(cx - radius)), x1 = Math.min(img.width - 1, Math.round(cx + radius));
  const y0 = Math.max(0, Math.round(cy - radius)), y1 = Math.min(img.height - 1, Math.round(cy + radius));
  for (let y = y0; y <= y1; y += 2) {
    for (let x = x0; x <= x1; x += 2) {
      const o = (y * img.width + x) * 3;
      const r = img.data[o]!, g = img.data[o + 1]!, b = img.data[o + 2]!;
      lums.push([0.299 * r + 0.587 * g + 0.114 * b, r, g, b]);
    }
  }
  if (lums.length === 0) return { tooth: [225, 220, 210], tongue: [150, 75, 70], tint: [1, 1, 1] };
  const mean = [1, 2, 3].map((c) => lums.reduce((s, p) => s + p[c]!, 0) / lums.length);
  const grey = Math.max(1, (mean[0]! + mean[1]! + mean[2]!) / 3);
  const tint = mean.map((c) => Math.min(1.6, Math.max(0.5, c / grey))) as [number, number, number];
  lums.sort((a, b) => a[0] - b[0]);
  // The 90th percentile: light skin or hair, not a specular glint.
  const [l, r, g, b] = lums[Math.floor(0.9 * (lums.length - 1))]!;
  const greyed = (c: number) => 0.5 * c + 0.5 * l;
  const tooth = [greyed(r), greyed(g), greyed(b)].map((c) => Math.min(255, c * 0.92)) as [number, number, number];
  // A colour photo's warm tint makes the tongue red; a grey picture's tongue is a darker grey.
  const tongue = tooth.map((c, i) => Math.min(255, 0.42 * c * tint[i]! ** 1.5)) as [number, number, number];
  return { tooth, tongue, tint };
}

/** Shades the gap of an opening mouth in `img` (see the file's comment). */
export function shadeMouth(img: RgbImage, gap: MouthGap, tones: MouthTones): void {
  const { tooth, tongue, tint } = tones;
  const { width: W, height: H, data } = img;
  if (gap.top.length < 4 || gap.bottom.length < 4) return;
  const top = pairs(gap.top), bottom = pairs(gap.bottom);
  const xMin = Math.min(top[0]![0], bottom[0]![0]), xMax = Math.max(top.at(-1)![0], bottom.at(-1)![0]);
  const span = Math.max(1, xMax - xMin);
  const teethFrom = TEETH_FROM * gap.faceHeight, teethMax = TEETH_MAX * gap.faceHeight;
  const tongueFrom = TONGUE_FROM * gap.faceHeight, tongueMax = TONGUE_MAX * gap.faceHeight;
  const lowerFrom = LOWER_TEETH_FROM * gap.faceHeight, lowerMax = LOWER_TEETH_MAX * gap.faceHeight;
  // The luminance under the gap before it is shaded (the strands of hair over it are read here).
  const bx0 = Math.max(0, Math.floor(xMin) - 4), bx1 = Math.min(W - 1, Math.ceil(xMax) + 4);
  let yTop = Infinity, yBottom = -Infinity;
  for (const [, y] of [...top, ...bottom]) { yTop = Math.min(yTop, y); yBottom = Math.max(yBottom, y); }
  const by0 = Math.max(0, Math.floor(yTop) - FRINGE_MAX - 2), by1 = Math.min(H - 1, Math.ceil(yBottom));
  const bw = bx1 - bx0 + 1;
  const under = new Float32Array(bw * Math.max(0, by1 - by0 + 1));
  for (let y = by0; y <= by1; y++) {
    for (let x = bx0; x <= bx1; x++) {
      const o = (y * W + x) * 3;
      under[(y - by0) * bw + x - bx0] = 0.299 * data[o]! + 0.587 * data[o + 1]! + 0.114 * data[o + 2]!;
    }
  }
  /** How much the pixel stands out as a light strand from its row's neighbourhood (0..1). */
  const strand = (x: number, y: number): number => {
    const row = (y - by0) * bw;
    let m = 0, n = 0;
    for (let k = Math.max(bx0, x - 3); k <= Math.min(bx1, x + 3); k++) { m += under[row + k - bx0]!; n++; }
    m /= n;
    return Math.max(0, Math.min(1, (3 * (under[row + x - bx0]! - m)) / (m + 16)));
  };
  /** The factor that brings the pixel's luminance most of the way to its row's mean nearby. */
  const flatten = (x: number, y: number): number => {
    const row = (y - by0) * bw;
    let m = 0, n = 0;
    for (let k = Math.max(bx0, x - 4); k <= Math.min(bx1, x + 4); k++) { m += under[row + k - bx0]!; n++; }
    m /= n;
    const l = under[row + x - bx0]!;
    return (m + STREAK_KEEP * (l - m)) / Math.max(1, l);
  };
  const xMid = (xMin + xMax) / 2;

  for (let x = Math.max(0, Math.floor(xMin)); x <= Math.min(W - 1, Math.ceil(xMax)); x++) {
    const xc = x + 0.5;
    const yt = yAt(top, xc), yb = yAt(bottom, xc);
    const g = yb - yt;
    // A gap too thin to see draws nothing; its ends fade in over three pixels.
    const strength = smoothstep((g - GAP_MIN) / GAP_FULL) * smoothstep(Math.min(xc - xMin, xMax - xc) / 3);
    if (strength <= 0) continue;
    // Towards the corners the mouth goes deeper into shade.
    const u = (xc - xMin) / span;
    const corner = smoothstep(Math.min(u, 1 - u) / 0.2);
    const teethH = gap.teeth ? Math.min(teethMax, 0.35 * g) * smoothstep((g - teethFrom) / teethFrom) : 0;
    // Between two teeth: a soft darker line; the teeth stand on an arch, so they narrow
    // towards the corners (equal steps of the angle around it, about five a side).
    const d = (Math.asin(Math.max(-1, Math.min(1, (2 * (xc - xMid)) / span))) / (Math.PI / 2)) * 5;
    const between = smoothstep(1 - Math.abs(d - Math.round(d)) / 0.12);
    // Each tooth's edge is rounded: full length in its middle, shorter where it meets the next.
    const toothEdge = 0.78 + 0.22 * Math.sin(Math.PI * Math.abs(d - Math.round(d)));
    const fringeH = Math.min(FRINGE_MAX, FRINGE_SHARE * g);
    // Hair over the lip hangs over the opening in its own colour, read just above it.
    const hairH = gap.hair ? Math.min(HAIR_MAX * gap.faceHeight, HAIR_SHARE * g) * (0.35 + 0.65 * strandLength(x)) * corner : 0;
    const hairAt = Math.max(0, Math.floor(yt) - 2);
    const hr = data[(hairAt * W + x) * 3]!, hg = data[(hairAt * W + x) * 3 + 1]!, hb = data[(hairAt * W + x) * 3 + 2]!;
    // The beard over the lower lip rises into it a little, the same way.
    const beardH = gap.hair ? 0.5 * Math.min(HAIR_MAX * gap.faceHeight, HAIR_SHARE * g) * (0.35 + 0.65 * strandLength(x + 7.3)) * corner : 0;
    const beardAt = Math.min(H - 1, Math.ceil(yb) + 2);
    const er = data[(beardAt * W + x) * 3]!, eg = data[(beardAt * W + x) * 3 + 1]!, eb = data[(beardAt * W + x) * 3 + 2]!;
    // The tongue and the lower teeth lie on arches narrower than the mouth (nothing at its corners).
    const arch = Math.sqrt(Math.max(0, 1 - ((u - 0.5) / 0.42) ** 2));
    const lowerH = gap.teeth ? Math.min(lowerMax, LOWER_TEETH_SHARE * g) * smoothstep((g - lowerFrom) / lowerFrom) * Math.sqrt(arch) : 0;
    const tongueH = Math.min(tongueMax, TONGUE_SHARE * g) * smoothstep((g - tongueFrom) / tongueFrom) * arch + lowerH;
    for (let y = Math.max(by0, Math.floor(yt)); y <= Math.min(by1, Math.ceil(yb)); y++) {
      const yc = y + 0.5;
      // Coverage with a one-pixel soft border.
      const cover = Math.max(0, Math.min(1, yc - yt + 0.5, yb - yc + 0.5));
      if (cover <= 0) continue;
      const v = (yc - yt) / g;
      // Light falls off into the mouth: brightest at the lips, darkest just above the middle.
      const depth = Math.min(1, Math.abs(v - 0.42) / 0.58);
      const light = (DEPTH_LIGHT + (EDGE_LIGHT - DEPTH_LIGHT) * depth * depth) * (0.7 + 0.3 * corner);
      const t = yc - yt;
      // Light strands of the hair just over the opening (a moustache) hang on down over it,
      // fading; on a bare lip nothing stands out, so nothing hangs.
      const hang = t < fringeH ? (1 - t / fringeH) * strand(x, Math.max(by0, Math.floor(yt) - 1 - Math.floor(t / 2))) : 0;
      const tb = teethH > 0.5 ? Math.max(0, Math.min(1, teethH * toothEdge + 0.5 - t)) * (0.3 + 0.7 * corner) : 0;
      // In front, the teeth take most of the shade away.
      const a = cover * strength * (1 - 0.8 * tb) * (1 - 0.85 * hang);
      const o = (y * W + x) * 3;
      let r0 = data[o]!, g0 = data[o + 1]!, b0 = data[o + 2]!;
      if (!gap.teeth) {
        // The picture's own open mouth (its teeth) is stretched over the gap into bars: they
        // are flattened towards their row's mean, under the shade.
        const f = 1 + a * (flatten(x, y) - 1);
        r0 *= f; g0 *= f; b0 *= f;
      }
      const keep = 1 - a * (1 - light);
      const deep = 1.5 * a * (1 - light);
      let r = r0 * keep * (1 + (tint[0] - 1) * deep);
      let gg = g0 * keep * (1 + (tint[1] - 1) * deep);
      let b = b0 * keep * (1 + (tint[2] - 1) * deep);
      const s = yb - yc;
      if (tongueH > 0.5 && s < tongueH + 0.5) {
        // The tongue, behind the lower teeth: lit on its back, in shade at its top edge where it
        // curves away and towards the corners.
        const ts = Math.max(0, s) / tongueH;
        const ta = TONGUE_COVER * cover * strength * Math.max(0, Math.min(1, tongueH + 0.5 - s));
        const shade = (0.55 + 0.3 * Math.sin(Math.PI * Math.min(1, 0.15 + 0.75 * ts)) - 0.35 * ts * ts) * (0.7 + 0.3 * corner);
        r = r * (1 - ta) + tongue[0] * shade * ta;
        gg = gg * (1 - ta) + tongue[1] * shade * ta;
        b = b * (1 - ta) + tongue[2] * shade * ta;
      }
      if (lowerH > 0.5 && s < lowerH + 0.5) {
        // Lower teeth, in the shade of the upper lip (which takes the mouth's tint), their tops lit.
        const la = TEETH_COVER * cover * strength * Math.max(0, Math.min(1, lowerH * toothEdge + 0.5 - s));
        const shade = (0.68 + 0.18 * (s / lowerH)) * (1 - 0.18 * between) * (0.6 + 0.4 * corner);
        r = r * (1 - la) + tooth[0] * Math.sqrt(tint[0]) * shade * la;
        gg = gg * (1 - la) + tooth[1] * Math.sqrt(tint[1]) * shade * la;
        b = b * (1 - la) + tooth[2] * Math.sqrt(tint[2]) * shade * la;
      }
      if (tb > 0) {
        // Upper teeth: lit at the top, shaded at their edge, between them and towards the
        // corners; the picture's texture (hair over them) shows through.
        const ta = TEETH_COVER * cover * strength * tb * (1 - hang);
        const shade = (0.9 - 0.3 * (t / Math.max(1, teethH)) ** 2) * (1 - 0.18 * between);
        r = r * (1 - ta) + tooth[0] * shade * ta;
        gg = gg * (1 - ta) + tooth[1] * shade * ta;
        b = b * (1 - ta) + tooth[2] * shade * ta;
      }
      if (hairH > 0.5 && t < hairH) {
        const ha = cover * strength * 0.92 * (1 - t / hairH) ** 0.7;
        r = r * (1 - ha) + hr * ha; gg = gg * (1 - ha) + hg * ha; b = b * (1 - ha) + hb * ha;
      }
      if (beardH > 0.5 && s < beardH) {
        const ea = cover * strength * 0.85 * (1 - Math.max(0, s) / beardH) ** 0.7;
        r = r * (1 - ea) + er * ea; gg = gg * (1 - ea) + eg * ea; b = b * (1 - ea) + eb * ea;
      }
      data[o] = Math.min(255, r + 0.5); data[o + 1] = Math.min(255, gg + 0.5); data[o + 2] = Math.min(255, b + 0.5);
    }
  }
}
