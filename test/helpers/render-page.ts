/**
 * What a browser test reads of a studio render page (/studio/clips/<id>, /studio/talks/<id>):
 * the record's status and its live (pending HLS) video, and any video element's playback.
 */
import type { Page } from 'playwright-core';

export interface LiveVideo {
  /** The record's status the page shows (`#render[data-status]`). */
  status: string;
  src: string;
  time: number;
  frames: number;
  progress: string;
  error: string | null;
  ready: number;
  paused: boolean;
  /** Which player plays the pending video (`hls.js` or the browser's own). */
  player: string;
}

/** The render page's status and its live video. */
export const liveVideo = (page: Page) =>
  page.evaluate(`(() => {
    const v = document.querySelector('#render-live');
    return { status: document.querySelector('#render').dataset.status, src: v.currentSrc, time: v.currentTime, frames: v.getVideoPlaybackQuality().totalVideoFrames, progress: document.querySelector('#render-status').textContent, error: v.error?.message ?? null, ready: v.readyState, paused: v.paused, player: v.dataset.player };
  })()`) as Promise<LiveVideo>;

/** The live video has advanced while the record renders, or the record is over (the caller asserts which). */
export const advancedOrOver = (s: LiveVideo) => s.status === 'done' || s.status === 'error' || (s.status === 'started' && s.time > 0);

/** A video element's playback: where it is, whether it plays, and frames decoded. */
export const playback = (page: Page, selector: string) =>
  page.evaluate(`(() => {
    const v = document.querySelector(${JSON.stringify(selector)});
    return v ? { src: v.currentSrc, time: v.currentTime, paused: v.paused, frames: v.getVideoPlaybackQuality().totalVideoFrames, error: v.error?.message ?? null } : null;
  })()`) as Promise<{ src: string; time: number; paused: boolean; frames: number; error: string | null } | null>;
