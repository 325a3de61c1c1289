/**
 * Speech recognition behind one interface: a recogniser turns a 16 kHz mono WAV file
 * (src/footage/audio.ts) into words. The consent check matches those words against the
 * statement (src/consents/match.ts); languages without a recogniser here get the weaker
 * length check and an operator's review.
 */
import type { ExpectedSpeech } from './grammar.ts';

export interface SpeechRecogniser {
  readonly name: string;
  /** lower-case language names it recognises, e.g. ['english'] */
  readonly languages: readonly string[];
  transcribe(wavPath: string, signal?: AbortSignal): Promise<{ text: string }>;
  /**
   * Listens for the expected name and passcode words only (src/footage/recognition/grammar.ts):
   * each slot is the expected word or one of `others`; says which slots held the expected word.
   */
  listenFor?(
    wavPath: string,
    expected: ExpectedSpeech,
    others: { name: readonly string[]; passcode: readonly string[] },
    signal?: AbortSignal,
  ): Promise<{ text: string; nameWordsFound: boolean[]; passcodeFound: boolean[] }>;
}
