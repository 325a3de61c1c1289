import { Animation as AnimationRecord, AnimationList, type CreateAnimationBody } from './schemas.ts';
import type { RenderMetadata } from '../compute/interface.ts';
import type { MediaAccess } from '../media/index.ts';
import type { Clock } from '../clock.ts';
import type { ResourceStore } from '../resources/store.ts';
import { defineResource, type Resource, type ResourceRecord } from '../resources/define.ts';
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

export type AnimationTypes = { request: CreateAnimationBody; details: AnimationDetails; result: AnimationResult; view: AnimationView };

/** A resource row read as an animation. */
export type Animation = ResourceRecord<AnimationTypes>;

/** Animations as a resource kind: the lifecycle (charge, states, refund, webhook, pages, routes, job) is src/resources/. */
export const animations = defineResource<AnimationTypes>({
  name: 'animation',
  idPrefix: 'anm',
  cost: ANIMATION_COST,
  // A local render of the longest driver takes minutes; a remote one parks and waits outside this limit.
  job: { kind: RENDER_JOB, timeLimitMs: 2 * 60 * 60 * 1000, gaveUp: 'The animation could not be rendered after several attempts' },
  http: { record: AnimationRecord, list: AnimationList },
});

export const readAnimation = animations.read;

export type AnimationLifecycle = Resource<AnimationTypes>;

/** The lifecycle alone (a test's second process); the webhook body is exactly the GET record. */
export const animationLifecycle = (resources: ResourceStore, clock: Clock, media: Pick<MediaAccess, 'signedUrl'>) =>
  animations.lifecycle(resources, clock, (a) => presentAnimation(a, media));
