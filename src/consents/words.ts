import type { SpeechRecogniser } from '../footage/recognition/interface.ts';
import { COMMON_NAMES } from '../footage/recognition/names.ts';
import { MATCH_LIMITS, matchConsent, type ConsentMatch } from '../footage/match.ts';
import type { ConsentLanguage } from './languages/types.ts';

export interface HeardWords {
  transcript: string;
  match: ConsentMatch;
  /** The grammar pass's hypothesis, when it ran (some name or passcode word was missed by the free transcription). */
  listened: string | null;
  /** Per name word / passcode word: heard by the free transcription or in its slot of the grammar pass. */
  nameWordsFound: boolean[];
  passcodeFound: boolean[];
  /** Words of the name and the passcode not heard. */
  misses: number;
}

/**
 * The words step's listening: a free transcription matched to the statement (similarity: was
 * the statement said?), then, when a word of the name or the passcode was missed and the
 * statement was otherwise said, a second listen for exactly those words (a grammar of the
 * statement whose name and passcode slots compete with the language's other passcode words
 * and common names). A word counts as heard when either pass heard it. docs/speech-checks.md
 * has the rates on correct and wrong readings.
 */
export async function listenToConsent(
  recogniser: SpeechRecogniser,
  wav: string,
  expected: { statement: string; name: string; passcode: readonly string[] },
  lang: ConsentLanguage,
  signal?: AbortSignal,
): Promise<HeardWords> {
  const { text: transcript } = await recogniser.transcribe(wav, signal);
  const match = matchConsent(transcript, { ...expected, language: lang.name });
  let nameWordsFound = match.nameWordsFound;
  let passcodeFound = match.passcodeFound;
  let listened: string | null = null;
  const missed = [...nameWordsFound, ...passcodeFound].some((f) => !f);
  if (missed && match.similarity >= MATCH_LIMITS.similarity && recogniser.listenFor) {
    const second = await recogniser.listenFor(wav, expected, { name: [...COMMON_NAMES, ...lang.words], passcode: lang.words }, signal);
    listened = second.text;
    nameWordsFound = nameWordsFound.map((f, i) => f || second.nameWordsFound[i] === true);
    passcodeFound = passcodeFound.map((f, i) => f || second.passcodeFound[i] === true);
  }
  const misses = nameWordsFound.filter((f) => !f).length + passcodeFound.filter((f) => !f).length;
  return { transcript, match, listened, nameWordsFound, passcodeFound, misses };
}
