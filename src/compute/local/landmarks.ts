/** Indices into the 468-point face mesh (MediaPipe topology, as @vladmandic/human returns it). */

export const MESH_POINTS = 468;
export const FOREHEAD = 10;
export const CHIN = 152;
export const CHEEK_R = 234;
export const CHEEK_L = 454;
export const UPPER_LIP_INNER_MID = 13;
export const LOWER_LIP_INNER_MID = 14;

export const SILHOUETTE = [10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377, 152, 148, 176, 149, 150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109];

/** Inner lips between the corners (78 right, 308 left), paired upper[i] <-> lower[i]. */
export const LIPS_UPPER_INNER = [191, 80, 81, 82, 13, 312, 311, 310, 415];
export const LIPS_LOWER_INNER = [95, 88, 178, 87, 14, 317, 402, 318, 324];
export const MOUTH_CORNER_INNER = [78, 308] as const;
export const MOUTH_CORNER_OUTER = [61, 291] as const;
export const LIPS_NEAR_CORNERS = [[185, 146, 76, 77, 62, 183, 184, 96, 191, 95], [409, 375, 306, 307, 292, 407, 408, 325, 415, 324]] as const;

export interface EyeRig {
  /** Upper lid, paired with `lower` point by point. */
  upper: number[];
  lower: number[];
  upper1: number[];
  upper2: number[];
  brow: number[];
}

/** The person's right eye (on the image's left). */
export const EYE_R: EyeRig = {
  upper: [246, 161, 160, 159, 158, 157, 173],
  lower: [7, 163, 144, 145, 153, 154, 155],
  upper1: [247, 30, 29, 27, 28, 56, 190],
  upper2: [113, 225, 224, 223, 222, 221, 189],
  brow: [156, 70, 63, 105, 66, 107, 55, 193, 35, 124, 46, 53, 52, 65],
};

/** The person's left eye (on the image's right). */
export const EYE_L: EyeRig = {
  upper: [466, 388, 387, 386, 385, 384, 398],
  lower: [249, 390, 373, 374, 380, 381, 382],
  upper1: [467, 260, 259, 257, 258, 286, 414],
  upper2: [342, 445, 444, 443, 442, 441, 413],
  brow: [383, 300, 293, 334, 296, 336, 285, 417, 265, 353, 276, 283, 282, 295],
};

/** Eye corners, for the eye-aspect ratio of a tracked face. */
export const EYE_R_CORNERS = [33, 133] as const;
export const EYE_L_CORNERS = [263, 362] as const;
