import type { SpeechRecogniser } from '../footage/recognition/interface.ts';
import { COMMON_NAMES } from '../footage/recognition/names.ts';
import { MATCH_LIMITS, matchConsent, type ConsentMatch } from './match.ts';
import type { ConsentLanguage } from './languages/types.ts';

export interface HeardWords {
  transcript: string;
  match: ConsentMatch;
  /** The grammar pass's hypothesis, when it ran (some name or passcode word was missed by the free transcription). */
  listened: string | null;
  /** Per name word: heard in its slot by the grammar pass when it ran (and found a path), else by the free transcription; per passcode word: heard by either. */
  nameWordsFound: boolean[];
  passcodeFound: boolean[];
  /** Words of the name and the passcode not heard. */
  misses: number;
}

/**
 * The words step's listening: a free transcription matched to the statement (similarity: was
 * the statement said?), then, when a word of the name or the passcode was missed and the
 * statement was otherwise said, a second listen for exactly those words (a grammar of the
 * statement whose name slots compete with common names and whose passcode slots compete
 * with the language's other passcode words), which then decides the name's words; a passcode
 * word counts as heard when either pass heard it. docs/speech-checks.md has the rates on
 * correct and wrong readings.
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
    const second = await recogniser.listenFor(wav, expected, { name: COMMON_NAMES, passcode: lang.words }, signal);
    listened = second.text;
    // The grammar pass decides the name's words: the transcript's tolerant match takes a wrong
    // name's word for the right one ("been" for "felix") in about 1 of 13 readings with another
    // name, the grammar, choosing among other names, far less often. A passcode word counts as
    // heard when either pass heard it (a wrong passcode never had two words found by the
    // transcript). No path through the grammar says nothing: the transcript's verdicts stand.
    if (second.text) nameWordsFound = second.nameWordsFound.map((f) => f === true);
    passcodeFound = passcodeFound.map((f, i) => f || second.passcodeFound[i] === true);
  }
  const misses = nameWordsFound.filter((f) => !f).length + passcodeFound.filter((f) => !f).length;
  return { transcript, match, listened, nameWordsFound, passcodeFound, misses };
}
