/** The speech recognisers this machine has. */
import { accessSync, constants } from 'node:fs';
import type { SpeechRecogniser } from './interface.ts';
import { createPocketsphinx, modelFiles, POCKETSPHINX_BATCH_BIN, POCKETSPHINX_BIN, POCKETSPHINX_MODEL_DIR } from './pocketsphinx.ts';

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
export function availableRecognisers(opts: { pocketsphinxBin?: string; batchBin?: string; modelDir?: string } = {}): SpeechRecogniser[] {
  const bin = opts.pocketsphinxBin ?? POCKETSPHINX_BIN;
  // The grammar pass (listenFor) needs pocketsphinx_batch; without it the transcript alone decides.
  const batch = opts.batchBin ?? POCKETSPHINX_BATCH_BIN;
  const batchBin = usable(batch, constants.X_OK) ? batch : null;
  const modelDir = opts.modelDir ?? POCKETSPHINX_MODEL_DIR;
  const files = modelFiles(modelDir);
  const present = usable(bin, constants.X_OK) && usable(files.hmm, constants.R_OK) && usable(files.lm, constants.R_OK) && usable(files.dict, constants.R_OK);
  return present ? [createPocketsphinx({ bin, batchBin, modelDir })] : [];
}

/** The recogniser for a language (lower-case name), if any. */
export function recogniserFor(language: string, recognisers: readonly SpeechRecogniser[]): SpeechRecogniser | undefined {
  return recognisers.find((r) => r.languages.includes(language.toLowerCase()));
}
