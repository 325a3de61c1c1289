/** The parts of @echogarden/espeak-ng-emscripten (no types of its own) that mimic uses. */
declare module '@echogarden/espeak-ng-emscripten' {
  export interface EspeakEvent {
    type: 'sentence' | 'word' | 'phoneme' | 'end' | 'mark' | 'play' | 'msg_terminated' | 'list_terminated' | 'samplerate';
    /** 1-based character (code point) offset in the text. */
    text_position: number;
    word_length: number;
    /** Milliseconds from the start of the synthesis. */
    audio_position: number;
    /** IPA for phonemes, an ordinal for words and sentences. */
    id?: string | number;
  }
  export interface ESpeakNGWorker {
    list_voices(): { name: string; identifier: string; languages: { priority: number; name: string }[] }[];
    /** 0 when the voice was found; the previous voice stays otherwise. */
    set_voice(name: string): number;
    set_rate(wordsPerMinute: number): number;
    get_rate(): number;
    get_samplerate(): number;
    /** The callback gets each chunk of 16-bit PCM with its events; returning true stops the synthesis. */
    synthesize(text: string, callback: (pcm: Int16Array, events: EspeakEvent[]) => boolean): void;
  }
  export interface EspeakModule {
    eSpeakNGWorker: new () => ESpeakNGWorker;
  }
  const Module: () => Promise<EspeakModule>;
  export default Module;
}
