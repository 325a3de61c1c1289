/** The speech recognisers this machine has. */
import { accessSync, constants } from 'node:fs';
import type { SpeechRecogniser } from './interface.ts';
import { createPocketsphinx, modelFiles, POCKETSPHINX_BIN, POCKETSPHINX_MODEL_DIR } from './pocketsphinx.ts';

export type { SpeechRecogniser } from './interface.ts';

const usable = (file: string, mode: number): boolean => {
  try {
    accessSync(file, mode);
    return true;
  } catch {
    return false;
  }
};

/** The recognisers available on this machine (pocketsphinx when its binary and model are present; [] otherwise). */
export function availableRecognisers(opts: { pocketsphinxBin?: string; modelDir?: string } = {}): SpeechRecogniser[] {
  const bin = opts.pocketsphinxBin ?? POCKETSPHINX_BIN;
  const modelDir = opts.modelDir ?? POCKETSPHINX_MODEL_DIR;
  const files = modelFiles(modelDir);
  const present = usable(bin, constants.X_OK) && usable(files.hmm, constants.R_OK) && usable(files.lm, constants.R_OK) && usable(files.dict, constants.R_OK);
  return present ? [createPocketsphinx({ bin, modelDir })] : [];
}

/** The recogniser for a language (lower-case name), if any. */
export function recogniserFor(language: string, recognisers: readonly SpeechRecogniser[]): SpeechRecogniser | undefined {
  return recognisers.find((r) => r.languages.includes(language.toLowerCase()));
}
