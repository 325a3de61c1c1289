import { ApiError } from '../errors.ts';
import { EMBEDDED_PROVIDERS, PROVIDER_TYPES, type Gender, type ProviderType, type Voice, type VoiceProvider } from './interface.ts';

/** What a script names: `script.provider` of the hosted service's create requests. */
export interface VoiceChoice {
  type: string;
  voiceId: string;
  /** `provider.language` when the client sent it, e.g. "English (United States)". */
  language?: string;
  /** The presenter's gender, the last hint for an external voice nobody here knows. */
  gender?: Gender;
}

/** Who will speak, and why when it is not who was asked. */
export interface ResolvedVoice {
  provider: VoiceProvider;
  voiceId: string;
  /** Set when the named provider is not configured here and an embedded voice stands in. */
  fallback?: { requested: { type: string; voiceId: string }; reason: string };
}

export type FallbackPolicy = 'local' | 'error';

/**
 * What is known of an external voice without asking its vendor: its locale from the id
 * (Microsoft's `en-US-JennyNeural`), and its gender from a short table of the best-known
 * voices of each vendor. Anything else falls back to the hints, then to English.
 */
const KNOWN_GENDERS: Record<string, Gender> = {
  // microsoft (the name part of the id)
  jenny: 'female', aria: 'female', sara: 'female', jane: 'female', nancy: 'female', michelle: 'female', emma: 'female', ava: 'female', sonia: 'female', libby: 'female', natasha: 'female', elvira: 'female', denise: 'female', katja: 'female', elsa: 'female', francisca: 'female', fenna: 'female',
  guy: 'male', davis: 'male', tony: 'male', jason: 'male', brian: 'male', andrew: 'male', christopher: 'male', eric: 'male', ryan: 'male', william: 'male', alvaro: 'male', henri: 'male', conrad: 'male', diego: 'male', antonio: 'male', maarten: 'male',
  // elevenlabs premade voices (by id)
  '21m00tcm4tlvdq8ikwam': 'female', exavitqu4vr4xnsdxmal: 'female', mf3mgyeycl7xyuyr0bfw: 'female', xb7hmqmqzpmnlmrkywrw: 'female',
  pninz6obpgdqgcfmajgb: 'male', errxyvxsl1ckq6snuxkc: 'male', vr6aewlbtndhtquvnn5f: 'male', tx3lp9mbicunt7bpoqdl: 'male',
  // openai
  alloy: 'female', coral: 'female', nova: 'female', shimmer: 'female', sage: 'female', ballad: 'male', ash: 'male', echo: 'male', fable: 'male', onyx: 'male', verse: 'male',
};

const LANGUAGE_NAMES: Record<string, string> = {
  english: 'en', dutch: 'nl', turkish: 'tr', swedish: 'sv', indonesian: 'id', filipino: 'fil', tagalog: 'fil', czech: 'cs', romanian: 'ro', danish: 'da', malay: 'ms',
  slovak: 'sk', croatian: 'hr', polish: 'pl', german: 'de', spanish: 'es', french: 'fr', italian: 'it', portuguese: 'pt', russian: 'ru', japanese: 'ja', chinese: 'zh',
};

/** The locale (or bare language) and gender an external voice most likely has. */
export function describeExternalVoice(choice: VoiceChoice): { locale: string; gender: Gender | undefined } {
  const fromId = /^([a-z]{2,3})-([A-Z]{2})\b/.exec(choice.voiceId);
  const named = /^([a-z]+)/i.exec(choice.language ?? '')?.[1]?.toLowerCase();
  const locale = fromId ? `${fromId[1]}-${fromId[2]}` : (named && LANGUAGE_NAMES[named]) || 'en';
  const base = choice.voiceId.replace(/^[a-z]{2,3}-[A-Z]{2}-/, '').replace(/(Multilingual)?Neural$/, '').toLowerCase();
  return { locale, gender: KNOWN_GENDERS[base] ?? choice.gender };
}

const languageOf = (locale: string) => locale.toLowerCase().split('-')[0]!;

/**
 * The embedded voice closest to `want`: the same locale, else the same language, else
 * English; of the same gender when there is one. Among equals the earlier voice wins (the
 * catalogue lists Flite, the more natural English engine, before eSpeak).
 */
export function closestVoice(voices: readonly Voice[], want: { locale: string; gender: Gender | undefined }): Voice | undefined {
  const score = (v: Voice): number => {
    const locales = v.languages.map((l) => l.locale.toLowerCase());
    const lang = languageOf(want.locale);
    const place = locales.includes(want.locale.toLowerCase()) ? 4 : locales.some((l) => languageOf(l) === lang) ? 3 : locales.some((l) => languageOf(l) === 'en') ? 1 : 0;
    return place * 2 + (want.gender && v.gender === want.gender ? 1 : 0);
  };
  let best: Voice | undefined;
  for (const v of voices) if (!best || score(v) > score(best)) best = v;
  return best;
}

/**
 * The voice that speaks a text nobody chose a voice for (a talk, a photo agent): the embedded
 * voice closest to American English (Flite's first, before eSpeak's), the one a clip's default
 * presenter speaks with. 503 when no embedded voice can speak here.
 */
export async function defaultVoice(catalogue: Pick<VoiceCatalogue, 'providers'> | undefined): Promise<{ type: string; voice_id: string }> {
  const embedded = (catalogue?.providers ?? []).filter((p) => (EMBEDDED_PROVIDERS as readonly string[]).includes(p.type));
  const voices = (await Promise.all(embedded.map((p) => p.voices()))).flat();
  const voice = closestVoice(voices, { locale: 'en-US', gender: undefined });
  if (!voice) throw new ApiError('ServiceUnavailableError', 'No voice can speak here: text scripts are not available on this server');
  return { type: voice.provider, voice_id: voice.id };
}

export interface VoiceCatalogue {
  /** Every voice that can speak here (`GET /tts/voices`), optionally of one provider or id. */
  list(filter?: { provider?: string; id?: string }): Promise<Voice[]>;
  /** The provider and voice that will speak a script's choice, applying the fallback policy. */
  resolve(choice: VoiceChoice): Promise<ResolvedVoice>;
  /**
   * The provider that makes new voices from a recording (`clone`): the first configured one
   * that can, or undefined when none can (embedded voices never do). Avatar training asks it
   * for a presenter's voice and falls back to the closest embedded voice without it.
   */
  cloner(): VoiceProvider | undefined;
  providers: readonly VoiceProvider[];
}

export interface CatalogueDeps {
  /** The embedded providers (always there) and the configured external ones. */
  providers: readonly VoiceProvider[];
  fallback: FallbackPolicy;
  /** Told when an external provider's voice list cannot be read (the others are still listed). */
  onListError?: (provider: ProviderType, err: unknown) => void;
}

const isProviderType = (t: string): t is ProviderType => (PROVIDER_TYPES as readonly string[]).includes(t);

/**
 * Providers a client of the hosted service may name that mimic has no client for: they are
 * treated as not configured (so the fallback policy applies), not as unknown.
 */
export const FOREIGN_PROVIDER_TYPES = ['amazon', 'google', 'azure-openai', 'afflorithmics', 'playHT'] as const;
const isForeign = (t: string) => (FOREIGN_PROVIDER_TYPES as readonly string[]).includes(t);

export function createVoiceCatalogue(deps: CatalogueDeps): VoiceCatalogue {
  const byType = new Map(deps.providers.map((p) => [p.type, p]));
  const isEmbedded = (p: VoiceProvider) => (EMBEDDED_PROVIDERS as readonly string[]).includes(p.type);
  const embedded = deps.providers.filter(isEmbedded);

  async function voicesOf(p: VoiceProvider): Promise<Voice[]> {
    try {
      return await p.voices();
    } catch (err) {
      deps.onListError?.(p.type, err);
      return [];
    }
  }

  const cloner = deps.providers.find((p) => !isEmbedded(p) && typeof p.clone === 'function');

  return {
    providers: deps.providers,
    cloner: () => cloner,

    async list(filter = {}) {
      if (filter.provider !== undefined && !isProviderType(filter.provider)) {
        throw new ApiError('ValidationError', `Unknown provider "${filter.provider}"`, [{ field: 'provider', message: `must be one of ${PROVIDER_TYPES.join(', ')}` }]);
      }
      const chosen = filter.provider ? deps.providers.filter((p) => p.type === filter.provider) : deps.providers;
      const lists = await Promise.all(chosen.map(voicesOf));
      const all = lists.flat();
      return filter.id === undefined ? all : all.filter((v) => v.id === filter.id);
    },

    async resolve(choice) {
      if (!isProviderType(choice.type) && !isForeign(choice.type)) {
        throw new ApiError('ValidationError', `Unknown voice provider "${choice.type}"`, [
          { field: 'script.provider.type', message: `must be one of ${[...PROVIDER_TYPES, ...FOREIGN_PROVIDER_TYPES].join(', ')}` },
        ]);
      }
      const provider = isProviderType(choice.type) ? byType.get(choice.type) : undefined;
      if (provider) {
        const voices = await voicesOf(provider);
        // An external vendor whose list cannot be read now may still know the voice: let it answer.
        if (voices.length > 0 && !voices.some((v) => v.id === choice.voiceId)) {
          throw new ApiError('ValidationError', `The ${choice.type} voice "${choice.voiceId}" does not exist here; GET /tts/voices?provider=${choice.type} lists them`, [
            { field: 'script.provider.voice_id', message: 'is not a voice of this provider' },
          ]);
        }
        return { provider, voiceId: choice.voiceId };
      }
      const reason = `the ${choice.type} voice provider is not configured on this server`;
      if (deps.fallback === 'error') {
        throw new ApiError('ValidationError', `Cannot speak with ${choice.type}: ${reason} (MIMIC_VOICE_PROVIDERS)`, [
          { field: 'script.provider.type', message: 'is not configured here' },
        ]);
      }
      const want = describeExternalVoice(choice);
      const candidates = (await Promise.all(embedded.map(voicesOf))).flat();
      const voice = closestVoice(candidates, want);
      const stand = voice && byType.get(voice.provider);
      if (!voice || !stand) throw new ApiError('ServiceUnavailableError', 'No embedded voice is available to speak');
      return { provider: stand, voiceId: voice.id, fallback: { requested: { type: choice.type, voiceId: choice.voiceId }, reason } };
    },
  };
}
