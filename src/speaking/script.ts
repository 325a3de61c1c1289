/**
 * What the speaking engine reads of a request that speaks a script (a clip's, a talk's): the
 * request schemas of the capabilities validate it; these are the fields the engine relies on.
 */
export type SpeakingScript =
  | { type: 'text'; input: string; ssml?: boolean; provider?: { type: string; voice_id: string; voice_config?: { rate?: string }; language?: string } }
  | { type: 'audio'; audio_url: string };

/** `config.logo`: the default (true or absent), none (false), or an image at a pixel position. */
export type SpeakingLogo = boolean | { url: string; position: number[] };

export interface SpeakingRequest {
  script: SpeakingScript;
  config?: { logo?: SpeakingLogo; output_resolution?: number };
  background?: { color?: string | false; source_url?: string };
  result_url?: string;
}
