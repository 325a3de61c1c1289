import type { Clock } from '../../clock.ts';
import type { Logger } from '../../log.ts';
import { SpeechError, type Voice } from '../interface.ts';
import type { ExternalProviderType } from '../settings.ts';
import { callVendor, jsonOf, MAX_LIST_BYTES, type ExternalDeps } from './http.ts';

/** A vendor's voice list is kept this long after a successful call (vendors add voices rarely). */
export const VOICE_LIST_TTL_MS = 60 * 60 * 1000;
/** After a failed call, the vendor is not asked again for this long (GET /tts/voices stays fast while it is down). */
export const VOICE_LIST_RETRY_MS = 60 * 1000;

/** A cached voice list: call it for the voices; `invalidate()` makes the next call ask the vendor. */
export interface CachedVoiceList {
  (): Promise<Voice[]>;
  /**
   * Forgets that the list is fresh (a voice was added at the vendor): the next call asks the
   * vendor again, and a call already under way is not reused. The last good list still
   * stands in if that refresh fails.
   */
  invalidate(): void;
}

/**
 * A provider's voice list, cached: one call at a time (concurrent askers share it), kept for
 * VOICE_LIST_TTL_MS. When a refresh fails, the last good list is served (and the failure
 * logged); with none, the failure is thrown, and repeated for VOICE_LIST_RETRY_MS without
 * calling the vendor again.
 */
export function cachedVoiceList(provider: string, load: () => Promise<Voice[]>, clock: Clock, log: Logger): CachedVoiceList {
  let good: { voices: Voice[]; at: number } | undefined;
  let failed: { error: unknown; at: number } | undefined;
  let inFlight: Promise<Voice[]> | undefined;
  /** Bumped by invalidate(): a call begun before it may not make its (older) list fresh. */
  let generation = 0;

  const refresh = async (): Promise<Voice[]> => {
    const mine = generation;
    try {
      const voices = await load();
      if (mine === generation) {
        good = { voices, at: clock.now() };
        failed = undefined;
      } else {
        // An answer begun before an invalidate() may lack the new voice: at most a stand-in, never over a newer list.
        good ??= { voices, at: -Infinity };
      }
      return voices;
    } catch (error) {
      if (mine === generation) failed = { error, at: clock.now() };
      log.warn('voices: an external provider could not list its voices', { provider, error: error instanceof Error ? error.message : String(error), stale_list: good !== undefined });
      if (good) return good.voices;
      throw error;
    } finally {
      if (mine === generation) inFlight = undefined;
    }
  };

  const list = () => {
    const now = clock.now();
    if (good && now - good.at < VOICE_LIST_TTL_MS) return Promise.resolve(good.voices);
    if (failed && now - failed.at < VOICE_LIST_RETRY_MS) return good ? Promise.resolve(good.voices) : Promise.reject(failed.error);
    inFlight ??= refresh();
    return inFlight;
  };
  return Object.assign(list, {
    invalidate() {
      generation++;
      if (good) good = { voices: good.voices, at: -Infinity };
      failed = undefined;
      inFlight = undefined;
    },
  });
}

export interface VoiceListSource<E> {
  provider: ExternalProviderType;
  secretId: string;
  url: string;
  /** The entries of the parsed body, or undefined when the body is not the documented shape (named in `shape`). */
  entries: (body: unknown) => unknown[] | undefined;
  shape: string;
  /** One entry as a voice, or null for one mimic cannot offer. */
  toVoice: (entry: E) => Voice | null;
}

/** A vendor's voice list endpoint (GET, JSON), cached as above. */
export function vendorVoiceList<E extends object>(deps: ExternalDeps, source: VoiceListSource<E>): CachedVoiceList {
  const load = async () => {
    const res = await callVendor(deps, {
      provider: source.provider, secretId: source.secretId, what: 'voice list', method: 'GET', url: source.url,
      headers: { accept: 'application/json' }, timeoutMs: deps.listTimeoutMs, maxBytes: MAX_LIST_BYTES, text: true,
    });
    const entries = source.entries(jsonOf(res, source.provider, 'voice list'));
    if (!entries) throw new SpeechError('vendor', `${source.provider} sent a voice list that is not ${source.shape}`);
    return entries.flatMap((e) => (typeof e === 'object' && e !== null ? (source.toVoice(e as E) ?? []) : []));
  };
  return cachedVoiceList(source.provider, load, deps.clock, deps.log);
}
