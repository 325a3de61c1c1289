/**
 * A face rig: control points over the picture (face mesh, a ring around the head that moves
 * with it, a fixed outer ring, fixed picture border) and their Delaunay triangulation. Per
 * frame it deforms the mesh (blink, brows, smile, mouth), applies the head pose in 3D with
 * the mesh's depth, and returns where every control point goes.
 */
import {
  CHEEK_L, CHEEK_R, CHIN, EYE_L, EYE_R, FOREHEAD, LIPS_LOWER_INNER, LIPS_UPPER_INNER,
  LOWER_LIP_INNER_MID, MESH_POINTS, MOUTH_CORNER_INNER, SILHOUETTE, UPPER_LIP_INNER_MID,
  type EyeRig,
} from './landmarks.ts';
import type { MotionFrame } from './motion.ts';
import type { MouthGap } from './mouth.ts';
import { mouthLine } from './mouth-line.ts';
import { delaunay, type RgbImage } from './warp.ts';

export type Point3 = [number, number, number];

interface FaceRig {
  /** Offset of this face's points in the control-point arrays. */
  first: number;
  /** Neutral mesh (x, y, z) in canvas pixels. */
  mesh: Point3[];
  ringFirst: number;
  /** Where the picture's mouth is open, control points a pixel over its lower inner lip (one
   * per inner pair, from `teethFirst`): they move with the upper lip, so the teeth between the
   * lips stay whole while the lower lip drops away from them, instead of stretching. */
  teethFirst: number;
  teethLine: Point3[];
  ring: Point3[];
  pivot: Point3;
  /** Unit vectors of the face: up (chin to forehead) and right (image left to right). */
  up: [number, number];
  right: [number, number];
  width: number;
  height: number;
  /** How far each mesh point drops with the jaw, per unit of jaw drop (see `mouthWeights`). */
  jaw: Float64Array;
  /** The same for the head ring: the neck under the chin stretches with the jaw. */
  ringJaw: Float64Array;
  /** How far each mesh point moves in towards the mouth's middle as the lips round, per unit
   * of the corners' move (signed: +1 at the corner on the image's right). */
  pucker: Float64Array;
  /** How far each mesh point follows the mouth's corners out and up in a smile (signed like `pucker`). */
  grin: Float64Array;
  /** The picture's own mouth is open (its teeth, if any, show): no teeth are drawn in. */
  mouthOpen: boolean;
  /** Hair hides the lips (the mouth opens at its lower edge). */
  hairOverLips: boolean;
}

export interface Rig {
  /** Neutral positions of all control points, [x0, y0, x1, y1, ...]. */
  src: Float64Array;
  tris: Uint32Array;
  faces: FaceRig[];
}

export interface RigFrame {
  dst: Float64Array;
  /**
   * Open mouths: the gap between the lips (`mouth.ts` shades it), its outline as one polygon,
   * and the jaw's opening (0..1).
   */
  mouths: (MouthGap & { poly: number[]; depth: number; face: number })[];
}

/** Lips further apart than this (share of the face height) in the picture show its mouth open. */
const OPEN_IN_PICTURE = 0.012;

const smoothstep = (x: number): number => (x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x));
const dist = (a: Point3, b: Point3): number => Math.hypot(a[0] - b[0], a[1] - b[1]);

function ellipse(center: [number, number], up: [number, number], right: [number, number], rx: number, rTop: number, rBottom: number, count: number): [number, number][] {
  return Array.from({ length: count }, (_, i) => {
    const a = (2 * Math.PI * i) / count;
    const c = Math.cos(a), s = Math.sin(a);
    const ry = s > 0 ? rTop : rBottom;
    return [center[0] + right[0] * rx * c + up[0] * ry * s, center[1] + right[1] * rx * c + up[1] * ry * s];
  });
}

/**
 * Builds the rig of `meshes` (one 468+ point mesh per animated face) on a width x height
 * picture. With the `picture` itself, a closed mouth opens where the picture shows it
 * (`mouth-line.ts`: under a moustache, at the hair's lower edge), not where the mesh guessed.
 */
export function buildRig(meshes: Point3[][], width: number, height: number, picture?: RgbImage): Rig {
  const pts: number[] = [];
  const faces: FaceRig[] = [];
  const fixed: [number, number][] = [];
  const inside = (x: number, y: number, margin: number) => x >= -margin && y >= -margin && x <= width + margin && y <= height + margin;

  for (const full of meshes) {
    // Depth is flattened: the warp cannot show parts of the face that turn out of view, so a
    // full-depth rotation would fold the cheeks over the face outline.
    let meanZ = 0;
    for (let i = 0; i < MESH_POINTS; i++) meanZ += full[i]![2] / MESH_POINTS;
    const mesh = full.slice(0, MESH_POINTS).map((p) => [p[0], p[1], (p[2] - meanZ) * DEPTH_SCALE] as Point3);
    const top = mesh[FOREHEAD]!, chin = mesh[CHIN]!;
    const h = Math.max(1, dist(top, chin));
    const w = Math.max(1, dist(mesh[CHEEK_R]!, mesh[CHEEK_L]!));
    const up: [number, number] = [(top[0] - chin[0]) / h, (top[1] - chin[1]) / h];
    const right: [number, number] = [-up[1], up[0]];
    const mouthOpen = lipsApart(mesh, up) > OPEN_IN_PICTURE * h;
    const line = picture && !mouthOpen ? mouthLine(picture, mesh, up, h) : undefined;
    if (line) reseatMouth(mesh, line.offsets, up);
    let cx = 0, cy = 0;
    for (const i of SILHOUETTE) { cx += mesh[i]![0]; cy += mesh[i]![1]; }
    cx /= SILHOUETTE.length; cy /= SILHOUETTE.length;
    const face: FaceRig = {
      first: pts.length / 2, mesh, ringFirst: 0, ring: [], teethFirst: 0, teethLine: [], pivot: [cx, cy, 0],
      up, right, width: w, height: h, jaw: new Float64Array(0), ringJaw: new Float64Array(0), pucker: new Float64Array(0), grin: new Float64Array(0),
      mouthOpen, hairOverLips: line?.hidden ?? false,
    };
    for (const p of mesh) pts.push(p[0], p[1]);
    // The head ring (hair, ears, neck) moves with the head; the outer ring stays put.
    face.ringFirst = pts.length / 2;
    for (const [x, y] of ellipse([cx, cy], up, right, 0.72 * w, 0.95 * h, 0.62 * h, 20)) {
      if (!inside(x, y, 0.1 * w)) continue;
      face.ring.push([x, y, 0]);
      pts.push(x, y);
    }
    if (mouthOpen) {
      face.teethFirst = pts.length / 2;
      for (const li of LIPS_LOWER_INNER) {
        const l = mesh[li]!, p: Point3 = [l[0] + up[0], l[1] + up[1], l[2]];
        face.teethLine.push(p);
        pts.push(p[0], p[1]);
      }
    }
    fixed.push(...ellipse([cx, cy], up, right, 1.05 * w, 1.35 * h, 0.95 * h, 24));
    Object.assign(face, mouthWeights(mesh, face.ring, up, right, w, h));
    faces.push(face);
  }
  // Outer-ring points that fall on another animated head would pin it: leave them out.
  const onSomeHead = (x: number, y: number) => faces.some((f) => {
    const dx = x - f.pivot[0], dy = y - f.pivot[1];
    const a = (dx * f.right[0] + dy * f.right[1]) / (0.8 * f.width), b = (dx * f.up[0] + dy * f.up[1]) / (1.05 * f.height);
    return a * a + b * b < 1;
  });
  for (const [x, y] of fixed) if (inside(x, y, -2) && !onSomeHead(x, y)) pts.push(x, y);
  const steps = 6;
  for (let i = 0; i < steps; i++) {
    const fx = (width * i) / steps, fy = (height * i) / steps;
    pts.push(fx, 0, width - fx, height, 0, height - fy, width, fy);
  }
  const src = Float64Array.from(pts);
  return { src, tris: delaunay(src), faces };
}

/** How far apart the inner lips are in the picture, in pixels (the mean over the middle pairs). */
function lipsApart(mesh: Point3[], up: [number, number]): number {
  const middle = [2, 3, 4, 5, 6];
  return middle.reduce((s, k) => {
    const u = mesh[LIPS_UPPER_INNER[k]!]!, l = mesh[LIPS_LOWER_INNER[k]!]!;
    return s + Math.max(0, (u[0] - l[0]) * up[0] + (u[1] - l[1]) * up[1]);
  }, 0) / middle.length;
}

/** Mesh points keep this far (pixels) from a moved mouth line, so none lies on it. */
const LINE_CLEARANCE = 2;

/**
 * Moves the inner lips (and the inner corners) of the neutral mesh down by `offsets` (one per
 * inner pair, pixels along the face's down direction), onto the picture's mouth line. Control
 * points move in the picture and on the frame alike, so a still face is unchanged; what
 * changes is where it splits: mesh points between the old line and the new one now belong to
 * the upper face (the moustache that hides the upper lip). Points left within a couple of
 * pixels of the new line are moved off it, to the side they are on.
 */
function reseatMouth(mesh: Point3[], offsets: number[], up: [number, number]): void {
  const shift = (i: number, d: number) => { mesh[i]![0] -= up[0] * d; mesh[i]![1] -= up[1] * d; };
  // Each pair is set one over the other, a pixel apart, on the line: the tracker's pairs on a
  // hidden mouth lie side by side or crossed, and the lower one would drop through its
  // neighbours' triangles.
  LIPS_UPPER_INNER.forEach((ui, k) => {
    const u = mesh[ui]!, l = mesh[LIPS_LOWER_INNER[k]!]!;
    const mx = (u[0] + l[0]) / 2 - up[0] * offsets[k]!, my = (u[1] + l[1]) / 2 - up[1] * offsets[k]!;
    u[0] = mx + 0.5 * up[0]; u[1] = my + 0.5 * up[1];
    l[0] = mx - 0.5 * up[0]; l[1] = my - 0.5 * up[1];
  });
  shift(MOUTH_CORNER_INNER[0], offsets[0]!);
  shift(MOUTH_CORNER_INNER[1], offsets.at(-1)!);
  const right: [number, number] = [-up[1], up[0]];
  const across = (p: Point3) => p[0] * right[0] + p[1] * right[1];
  const down = (p: Point3) => -(p[0] * up[0] + p[1] * up[1]);
  const chain = [MOUTH_CORNER_INNER[0], ...LIPS_UPPER_INNER, MOUTH_CORNER_INNER[1]].map((i) => mesh[i]!)
    .map((p) => [across(p), down(p)] as [number, number]).sort((a, b) => a[0] - b[0]);
  const onChain = new Set<number>([...LIPS_UPPER_INNER, ...LIPS_LOWER_INNER, ...MOUTH_CORNER_INNER]);
  mesh.forEach((p, i) => {
    const x = across(p);
    if (onChain.has(i) || x < chain[0]![0] || x > chain.at(-1)![0]) return;
    const j = chain.findIndex((c) => c[0] >= x);
    const [x0, y0] = chain[Math.max(0, j - 1)]!, [x1, y1] = chain[j]!;
    const d = down(p) - (x1 > x0 ? y0 + ((y1 - y0) * (x - x0)) / (x1 - x0) : y1);
    if (Math.abs(d) < LINE_CLEARANCE) shift(i, (d < 0 ? -LINE_CLEARANCE : LINE_CLEARANCE) - d);
  });
}

const rad = Math.PI / 180;
const DEPTH_SCALE = 0.45;
/** The head turns about the neck, behind the face: the face shifts with yaw and pitch. */
const NECK_SHIFT = 0.3;
/** The head ring follows the face's shift this much. */
const RING_FOLLOW = 0.7;

/**
 * How far each point drops when the jaw opens, per unit of drop: what lies under the line
 * between the lips (through the inner corners and the middle of each inner lip pair) is lower
 * lip, chin and jaw; what lies over it is the upper lip, which lifts a little. The lower lip
 * opens as a lens (most in the middle, nothing at the corners), the chin under it drops whole,
 * and the drop fades out towards the cheeks. Also how far each point follows the corners when
 * the lips round or smile. Fixed by the neutral mesh, so computed once.
 */
function mouthWeights(mesh: Point3[], ring: Point3[], up: [number, number], right: [number, number], W: number, H: number): { jaw: Float64Array; ringJaw: Float64Array; pucker: Float64Array; grin: Float64Array } {
  const upperMid = mesh[UPPER_LIP_INNER_MID]!, lowerMid = mesh[LOWER_LIP_INNER_MID]!;
  const mx = (upperMid[0] + lowerMid[0]) / 2, my = (upperMid[1] + lowerMid[1]) / 2;
  const along = (p: Point3) => -((p[0] - mx) * up[0] + (p[1] - my) * up[1]);
  const across = (p: Point3) => (p[0] - mx) * right[0] + (p[1] - my) * right[1];
  const c0 = mesh[MOUTH_CORNER_INNER[0]]!, c1 = mesh[MOUTH_CORNER_INNER[1]]!;
  const line = [[across(c0), along(c0)], [across(c1), along(c1)], ...LIPS_UPPER_INNER.map((ui, k) => {
    const u = mesh[ui]!, l = mesh[LIPS_LOWER_INNER[k]!]!;
    return [(across(u) + across(l)) / 2, (along(u) + along(l)) / 2];
  })].sort((a, b) => a[0]! - b[0]!) as [number, number][];
  const lineAt = (x: number): number => {
    if (x <= line[0]![0]) return line[0]![1];
    for (let j = 1; j < line.length; j++) {
      const [x1, y1] = line[j]!, [x0, y0] = line[j - 1]!;
      if (x <= x1) return x1 > x0 ? y0 + ((y1 - y0) * (x - x0)) / (x1 - x0) : y1;
    }
    return line[line.length - 1]![1];
  };
  const mouthMid = (across(c0) + across(c1)) / 2, mouthHalf = Math.max(1, Math.abs(across(c1) - across(c0)) / 2);
  const upperAlong = along(upperMid) - lineAt(across(upperMid));
  // The inner lips are sorted by name, not by where they lie: under a moustache the tracker
  // may cross the two, and an upper lip that drops with the jaw folds the opening over.
  const lowerInner = new Set(LIPS_LOWER_INNER), upperInner = new Set([...LIPS_UPPER_INNER, ...MOUTH_CORNER_INNER]);
  const jaw = new Float64Array(mesh.length);
  mesh.forEach((p, i) => {
    const x = across(p), a = upperInner.has(i) ? Math.min(0, along(p) - lineAt(x)) : along(p) - lineAt(x);
    const wx = Math.max(0, 1 - (x / (0.5 * W)) ** 2);
    if (a > 0 || lowerInner.has(i)) {
      const lens = Math.sqrt(Math.max(0, 1 - ((x - mouthMid) / mouthHalf) ** 2));
      jaw[i] = wx * (lens + (1 - lens) * smoothstep(Math.max(0, a) / (0.06 * H)));
    } else if (a > upperAlong - 0.08 * H) jaw[i] = wx * -0.08 * Math.max(0, 1 - (upperAlong - a) / (0.08 * H));
  });
  const ringJaw = Float64Array.from(ring, (p) => (along(p) > 0 ? 0.6 * Math.max(0, 1 - (across(p) / (0.75 * W)) ** 2) : 0));
  // Rounding draws the whole mouth in towards its middle, each point by its distance from it
  // (the corners most), fading out past the corners and over and under the lips: the opening
  // narrows into an oval instead of ending square where only the corners moved.
  const pucker = Float64Array.from(mesh, (p) => {
    const u = (across(p) - mouthMid) / mouthHalf, a = along(p) - lineAt(across(p));
    const inX = Math.abs(u) <= 1 ? u : Math.sign(u) * Math.max(0, 1 - (Math.abs(u) - 1) / 0.6);
    return inX * Math.max(0, 1 - (a / (0.1 * H)) ** 2);
  });
  // A smile stretches the mouth: each point follows the corners by its distance from the
  // middle, and so do the cheeks beside them, less and less out to a mouth's width away.
  const grin = Float64Array.from(mesh, (p) => {
    const d = (across(p) - mouthMid) / mouthHalf, u = Math.abs(d), a = along(p) - lineAt(across(p));
    const inX = u <= 1.2 ? Math.min(1, u) : Math.max(0, 1 - (u - 1.2) / 0.8);
    return Math.sign(d) * inX * Math.max(0, 1 - (a / (0.12 * H)) ** 2);
  });
  return { jaw, ringJaw, pucker, grin };
}

/** Where every control point goes for one motion frame. */
export function rigFrame(rig: Rig, m: MotionFrame): RigFrame {
  const dst = Float64Array.from(rig.src);
  const mouths: RigFrame['mouths'] = [];
  for (const face of rig.faces) {
    const { mesh, up, right, width: W, height: H, pivot } = face;
    const down: [number, number] = [-up[0], -up[1]];
    const deformed: Point3[] = mesh.map((p) => [p[0], p[1], p[2]]);
    const move = (i: number, alongRight: number, alongUp: number) => {
      const p = deformed[i]!;
      p[0] += right[0] * alongRight + up[0] * alongUp;
      p[1] += right[1] * alongRight + up[1] * alongUp;
    };

    // Eyes: the upper lid slides onto the lower lid; the skin above follows part way.
    const eye = (rigEye: EyeRig, blink: number, brow: number) => {
      if (blink > 0.001) {
        rigEye.upper.forEach((ui, k) => {
          const u = mesh[ui]!, l = mesh[rigEye.lower[k]!]!;
          const dx = (l[0] - u[0]) * 0.92 * blink, dy = (l[1] - u[1]) * 0.92 * blink;
          deformed[ui]![0] += dx; deformed[ui]![1] += dy;
          const u1 = deformed[rigEye.upper1[k]!]!;
          u1[0] += dx * 0.45; u1[1] += dy * 0.45;
          const u2 = deformed[rigEye.upper2[k]!]!;
          u2[0] += dx * 0.12; u2[1] += dy * 0.12;
        });
      }
      if (brow > 0.001) {
        const lift = brow * 0.055 * H;
        for (const i of rigEye.brow) move(i, 0, lift);
        for (const i of rigEye.upper2) move(i, 0, lift * 0.5);
        for (const i of rigEye.upper1) move(i, 0, lift * 0.2);
      }
    };
    eye(EYE_R, m.blinkR, m.brow);
    eye(EYE_L, m.blinkL, m.brow);

    // Smile: the mouth stretches out and up at its corners (see `mouthWeights`).
    if (m.smile > 0.001) {
      const out = m.smile * 0.045 * W, lift = m.smile * 0.03 * H;
      face.grin.forEach((w, i) => w !== 0 && move(i, out * w, lift * w * w));
    }

    // Rounding: the mouth comes in towards its middle, the corners most.
    const round = m.round ?? 0;
    if (round > 0.001) {
      const inward = round * 0.06 * W;
      face.pucker.forEach((w, i) => w !== 0 && move(i, -w * inward, 0));
    }

    // Mouth: the lower lip and jaw drop (a beard with them); the upper lip and a moustache stay
    // with the upper face. The gap that opens between them is shaded afterwards.
    const open = m.mouth * 0.12 * H;
    if (open > 0.05) face.jaw.forEach((w, i) => w !== 0 && move(i, 0, -open * w));

    // Head pose: rotate about a pivot inside the head, then translate.
    const cy = Math.cos(m.yaw * rad), sy = Math.sin(m.yaw * rad);
    const cp = Math.cos(m.pitch * rad), sp = Math.sin(m.pitch * rad);
    const cr = Math.cos(m.roll * rad), sr = Math.sin(m.roll * rad);
    const tx = m.tx * H - sy * NECK_SHIFT * W, ty = m.ty * H + sp * NECK_SHIFT * H;
    const pose = (p: Point3, follow = 1): [number, number] => {
      let x = p[0] - pivot[0], y = p[1] - pivot[1], z = p[2] - pivot[2];
      // yaw about the vertical axis, pitch about the horizontal one, roll in the picture plane.
      const x1 = x * cy + z * sy; z = -x * sy + z * cy; x = x1;
      const y1 = y * cp - z * sp; y = y1;
      const x2 = x * cr - y * sr, y2 = x * sr + y * cr;
      return [x2 + pivot[0] + tx * follow, y2 + pivot[1] + ty * follow];
    };
    deformed.forEach((p, i) => {
      const [x, y] = pose(p);
      dst[2 * (face.first + i)] = x;
      dst[2 * (face.first + i) + 1] = y;
    });
    face.teethLine.forEach((p, k) => {
      const ui = LIPS_UPPER_INNER[k]!, moved = deformed[ui]!, rest = mesh[ui]!;
      const [x, y] = pose([p[0] + moved[0] - rest[0], p[1] + moved[1] - rest[1], p[2]]);
      dst[2 * (face.teethFirst + k)] = x;
      dst[2 * (face.teethFirst + k) + 1] = y;
    });
    face.ring.forEach((p, i) => {
      let q = p;
      const d = open > 0.05 ? open * face.ringJaw[i]! : 0;
      if (d > 0) q = [p[0] + down[0] * d, p[1] + down[1] * d, p[2]];
      const [x, y] = pose(q, RING_FOLLOW);
      dst[2 * (face.ringFirst + i)] = x;
      dst[2 * (face.ringFirst + i) + 1] = y;
    });

    if (open > 0.5) {
      // The gap spans from where the lower lip was (under the upper lip, so teeth the picture
      // shows stay visible) to where it is now.
      const top: number[] = [], bottom: number[] = [];
      LIPS_UPPER_INNER.forEach((ui, k) => {
        const li = LIPS_LOWER_INNER[k]!;
        const u = deformed[ui]!, l0 = mesh[li]!, u0 = mesh[ui]!;
        top.push(...pose([u[0] + l0[0] - u0[0], u[1] + l0[1] - u0[1], l0[2]]));
        bottom.push(...pose(deformed[li]!));
      });
      const c0 = pose(deformed[MOUTH_CORNER_INNER[0]]!), c1 = pose(deformed[MOUTH_CORNER_INNER[1]]!);
      const poly = [...c0, ...top, ...c1];
      for (let k = bottom.length - 2; k >= 0; k -= 2) poly.push(bottom[k]!, bottom[k + 1]!);
      mouths.push({
        poly, depth: open / (0.12 * H), face: rig.faces.indexOf(face),
        top: [...c0, ...top, ...c1], bottom: [...c0, ...bottom, ...c1], teeth: !face.mouthOpen, hair: face.hairOverLips, faceHeight: H,
      });
    }
  }
  return { dst, mouths };
}
