import { fileURLToPath } from 'node:url';

/**
 * The built-in presenters: pictures that may be redistributed, listed in docs/clips.md with
 * their sources and licences. Adding one is one entry here (its picture under assets/).
 * `voice` is the voice a script without `provider` speaks with (an embedded one, so it works
 * offline); `created_at` is the day the entry was added.
 */
export interface BuiltInPresenter {
  /** `<name>-<10 letters and digits>`, the hosted service's style. */
  id: string;
  name: string;
  gender: 'female' | 'male' | 'other';
  /** A square portrait (jpg or png), one face, facing the camera. */
  image: string;
  voice: { type: string; voice_id: string };
  createdAt: string;
}

const asset = (path: string): string => fileURLToPath(new URL(`../../assets/${path}`, import.meta.url));

export const BUILT_IN_PRESENTERS: readonly BuiltInPresenter[] = [
  // Sources, licences and how each picture is cut: docs/presenters.md.
  { id: 'eileen-Nc7kQ2rT5x', name: 'Eileen', gender: 'female', image: asset('presenters/eileen.jpg'), voice: { type: 'flite', voice_id: 'en-US-flite-slt' }, createdAt: '2026-11-23T00:00:00.000Z' },
  { id: 'grace-Hq4mW8zL2c', name: 'Grace', gender: 'female', image: asset('presenters/grace.jpg'), voice: { type: 'flite', voice_id: 'en-US-flite-slt' }, createdAt: '2026-11-23T00:00:00.000Z' },
  { id: 'ernst-Bv6tR3nK9p', name: 'Ernst', gender: 'male', image: asset('presenters/ernst.jpg'), voice: { type: 'flite', voice_id: 'en-GB-flite-awb' }, createdAt: '2026-11-23T00:00:00.000Z' },
  { id: 'aksel-Jd2xF7sY4g', name: 'Aksel', gender: 'male', image: asset('presenters/aksel.jpg'), voice: { type: 'flite', voice_id: 'en-US-flite-rms' }, createdAt: '2026-11-23T00:00:00.000Z' },
  { id: 'mehmet-Wk9cP5hT1e', name: 'Mehmet', gender: 'male', image: asset('presenters/mehmet.jpg'), voice: { type: 'flite', voice_id: 'en-US-flite-kal' }, createdAt: '2026-11-23T00:00:00.000Z' },
  { id: 'charlotte-Ys3gM6vQ8r', name: 'Charlotte', gender: 'female', image: asset('presenters/charlotte.jpg'), voice: { type: 'flite', voice_id: 'en-US-flite-slt' }, createdAt: '2026-11-23T00:00:00.000Z' },
];

/** The presenter a clip without `presenter_id` uses (the hosted service has a default too). */
export const DEFAULT_PRESENTER_ID = BUILT_IN_PRESENTERS[0]!.id;

/** The media namespace that holds the built-in presenters' pictures and talking previews. */
export const SYSTEM_OWNER = 'mimic';
