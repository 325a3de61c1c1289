/**
 * What the streams capability offers the others: its hub (`STREAMS`), with which talks, clips
 * and agents add their stream routes and agent chat speaks on a stream. Other capabilities
 * import this file only, never the streams folder's other files.
 */
import { defineServiceKey } from '../platform/service-key.ts';
import type { StreamHub } from './interface.ts';

export type { StreamHub, StreamVariant, StreamSource, StreamVoice, StreamSpeaker } from './interface.ts';

// The body a stream create route accepts, for the capabilities that add stream routes.
export { streamCreateBody } from './schemas.ts';

export const STREAMS = defineServiceKey<StreamHub>('streams');
