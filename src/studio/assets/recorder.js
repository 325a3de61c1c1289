// The camera and microphone in the browser: a live preview, a level meter (Web Audio's
// AnalyserNode), a countdown, and a take recorded with MediaRecorder (WebM where the browser
// writes it, else what it can: Safari writes MP4, which mimic takes too). No DOM of its own
// beyond the elements it is given. Failures are RecorderError with a message a person can act on.

/** The containers tried in order; the first the browser records wins. */
const TYPES = ['video/webm;codecs=vp8,opus', 'video/webm;codecs=vp9,opus', 'video/webm', 'video/mp4'];

export class RecorderError extends Error {
  constructor(reason, message) {
    super(message);
    this.reason = reason;
  }
}

/** What went wrong with getUserMedia, in words: refused, missing, in use, or not possible here. */
async function explain(err) {
  const name = err?.name ?? '';
  if (name === 'NotAllowedError' || name === 'SecurityError' || name === 'PermissionDeniedError') {
    return new RecorderError('denied', 'The camera and microphone were refused. Allow them for this site (the camera icon in the address bar, or your browser\'s site settings), then press "Turn on camera and microphone" again.');
  }
  if (name === 'NotFoundError' || name === 'OverconstrainedError' || name === 'DevicesNotFoundError') {
    const kinds = await navigator.mediaDevices.enumerateDevices().then((ds) => new Set(ds.map((d) => d.kind)), () => new Set());
    const missing = !kinds.has('videoinput') && !kinds.has('audioinput') ? 'No camera and no microphone were' : !kinds.has('videoinput') ? 'No camera was' : !kinds.has('audioinput') ? 'No microphone was' : 'No camera or microphone was';
    return new RecorderError('missing', `${missing} found. Connect one (or turn it on), then try again.`);
  }
  if (name === 'NotReadableError' || name === 'TrackStartError' || name === 'AbortError') {
    return new RecorderError('busy', 'The camera or microphone could not start: another app may be using it. Close that app, then try again.');
  }
  return new RecorderError('other', `The camera and microphone could not start (${name || 'unknown error'}).`);
}

/** Seconds as m:ss. */
export const clock = (s) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;

export class Recorder {
  /**
   * @param {{preview: HTMLVideoElement, onLevel?: (level: {value: number, db: number}) => void, onTrackEnded?: () => void}} opts
   */
  constructor({ preview, onLevel, onTrackEnded }) {
    this.preview = preview;
    this.onLevel = onLevel ?? (() => {});
    this.onTrackEnded = onTrackEnded ?? (() => {});
    this.stream = null;
    this.audio = null;
    this.recorder = null;
    this.peakDb = -Infinity;
  }

  /** Whether this browser can record here at all (a secure context with getUserMedia and MediaRecorder). */
  static check() {
    if (!window.isSecureContext || !navigator.mediaDevices?.getUserMedia) {
      return new RecorderError('insecure', 'This page cannot use a camera here: open the studio over https (or at localhost on this computer).');
    }
    if (typeof MediaRecorder === 'undefined') return new RecorderError('unsupported', 'This browser cannot record video. Use a recent Chrome, Edge, Firefox or Safari.');
    return null;
  }

  /** Asks for the camera and microphone and shows the preview; throws a RecorderError. */
  async open() {
    const unable = Recorder.check();
    if (unable) throw unable;
    if (this.stream) return;
    try {
      this.stream = await navigator.mediaDevices.getUserMedia({
        video: { facingMode: 'user', width: { ideal: 1280 }, height: { ideal: 720 } },
        audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true },
      });
    } catch (err) {
      throw await explain(err);
    }
    for (const track of this.stream.getTracks()) track.addEventListener('ended', () => this.onTrackEnded(track.kind));
    this.preview.srcObject = this.stream;
    this.preview.muted = true;
    await this.preview.play().catch(() => {});
    this.startMeter();
  }

  /** The level meter: the microphone's loudness (RMS, dBFS) about 20 times a second. */
  startMeter() {
    const Ctx = window.AudioContext ?? window.webkitAudioContext;
    if (!Ctx || !this.stream?.getAudioTracks().length) return;
    const ctx = new Ctx();
    const analyser = ctx.createAnalyser();
    analyser.fftSize = 2048;
    ctx.createMediaStreamSource(this.stream).connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    const timer = setInterval(() => {
      analyser.getFloatTimeDomainData(samples);
      let sum = 0;
      for (const v of samples) sum += v * v;
      const db = 20 * Math.log10(Math.sqrt(sum / samples.length) || 1e-8);
      if (this.recorder?.state === 'recording') this.peakDb = Math.max(this.peakDb, db);
      // -60 dBFS (a quiet room) to 0 dBFS on a 0-100 scale.
      this.onLevel({ value: Math.max(0, Math.min(100, ((db + 60) / 60) * 100)), db });
    }, 50);
    void ctx.resume();
    this.audio = { ctx, timer };
  }

  /** 3, 2, 1 (`onCount(n)` each second, `onCount(0)` at the start), then records until stop() or maxSeconds. */
  async record({ from = 3, maxSeconds = 120, onCount = () => {}, onTick = () => {} } = {}) {
    if (!this.stream) throw new RecorderError('closed', 'Turn on the camera first.');
    for (let n = from; n > 0; n--) {
      onCount(n);
      await new Promise((r) => setTimeout(r, 1000));
      if (!this.stream) throw new RecorderError('closed', 'The camera was turned off.');
    }
    onCount(0);
    const mimeType = TYPES.find((t) => MediaRecorder.isTypeSupported(t)) ?? '';
    const recorder = new MediaRecorder(this.stream, { ...(mimeType ? { mimeType } : {}), videoBitsPerSecond: 2_500_000, audioBitsPerSecond: 128_000 });
    const chunks = [];
    this.peakDb = -Infinity;
    this.stopped = new Promise((resolve, reject) => {
      recorder.addEventListener('dataavailable', (e) => e.data.size && chunks.push(e.data));
      recorder.addEventListener('stop', () => resolve(new Blob(chunks, { type: (recorder.mimeType || mimeType || 'video/webm').split(';')[0] })));
      recorder.addEventListener('error', (e) => reject(new RecorderError('other', `Recording failed: ${e.error?.message ?? 'unknown error'}`)));
    });
    recorder.start(1000);
    this.recorder = recorder;
    const started = performance.now();
    this.ticker = setInterval(() => {
      const s = (performance.now() - started) / 1000;
      onTick(s);
      if (s >= maxSeconds) this.stop();
    }, 250);
    return this.stopped;
  }

  /** Ends the take; record()'s promise answers its Blob. */
  stop() {
    clearInterval(this.ticker);
    if (this.recorder?.state === 'recording') this.recorder.stop();
  }

  /** Whether anything louder than a quiet room was heard while recording (dBFS peak above -50). */
  heardSound() {
    return this.peakDb > -50;
  }

  /** Camera and microphone off. */
  close() {
    this.stop();
    if (this.audio) {
      clearInterval(this.audio.timer);
      void this.audio.ctx.close();
      this.audio = null;
    }
    for (const t of this.stream?.getTracks() ?? []) t.stop();
    this.stream = null;
    this.preview.srcObject = null;
    this.onLevel({ value: 0, db: -Infinity });
  }
}
