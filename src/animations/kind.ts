import type { CreateAnimationBody } from '../schemas/animations.ts';
import type { RenderMetadata } from '../compute/interface.ts';
import type { MediaAccess } from '../media/index.ts';
import type { Clock } from '../clock.ts';
import type { ResourceRow, ResourceStore } from '../resources/store.ts';
import { resourceLifecycle, type Lifecycle, type ResourceKind } from '../resources/lifecycle.ts';
import type { ImageSize } from '../media/checks.ts';
import { presentAnimation, type AnimationView } from './present.ts';
import { ANIMATION_COST, RENDER_JOB } from './deps.ts';


/** An animation's own working fields (the `details` JSON of its resource row). */
export interface AnimationDetails {
  /** Resolved driver, e.g. bank://nostalgia/driver-03, or the driver URL. */
  driverResolved: string;
  /** Media-store key (in the owner's namespace) of the stored copy of the source image. */
  sourceKey: string | null;
  /** The source picture's size once known: with stitch it sets the result frame (and where the default logo lands). */
  sourceSize?: ImageSize;
}

/** What a finished animation produced (the `result` JSON). */
export interface AnimationResult {
  /** Media-store key of the result, when it was written to the media store. */
  resultKey: string | null;
  /** The result URL handed out when the result went to an external https destination. */
  resultExternalUrl: string | null;
  metadata: RenderMetadata;
  faceIds: number[];
}

/** A resource row read as an animation. */
export interface Animation {
  row: ResourceRow;
  id: string;
  userId: string;
  req: CreateAnimationBody;
  details: AnimationDetails;
  result: AnimationResult | null;
}

export function readAnimation(row: ResourceRow): Animation {
  return {
    row,
    id: row.id,
    userId: row.userId,
    req: JSON.parse(row.request) as CreateAnimationBody,
    details: JSON.parse(row.details) as AnimationDetails,
    result: row.result ? (JSON.parse(row.result) as AnimationResult) : null,
  };
}

/** Animations as a resource kind: the lifecycle (charge, states, refund, webhook, pages) is src/resources/. */
export function animationKind(media: Pick<MediaAccess, 'signedUrl'>): ResourceKind<AnimationView> {
  return {
    name: 'animation',
    idPrefix: 'anm',
    cost: ANIMATION_COST,
    jobKind: RENDER_JOB,
    // The webhook body is exactly the GET record.
    present: (row) => presentAnimation(readAnimation(row), media),
  };
}

export type AnimationLifecycle = Lifecycle<AnimationView>;

export const animationLifecycle = (resources: ResourceStore, clock: Clock, media: Pick<MediaAccess, 'signedUrl'>): AnimationLifecycle =>
  resourceLifecycle(animationKind(media), { resources, clock });
