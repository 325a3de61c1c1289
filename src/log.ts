import { pino, type DestinationStream } from 'pino';

/**
 * Structured logs: one JSON line per event, written by pino. Two layers keep credentials
 * out of them: pino's `redact` paths censor fields that hold one by name (an
 * `authorization` header, an `api_key`, a `token`...), and every finished line then passes
 * `redact` below, so an API key, a bearer token or a signed URL's signature never reaches a
 * log line even when a caller slips one into a free-text field such as an error message.
 *
 * Lines keep the shape they always had: `level` ("info" | "warn" | "error"), `time` (ISO
 * 8601), base fields, `msg`, then the fields.
 */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const SECRET_PATTERNS: [RegExp, string][] = [
  [/mimic_[A-Za-z0-9_-]{20,}/g, 'mimic_[redacted]'],
  [/whsec_[A-Za-z0-9+/=_-]{8,}/g, 'whsec_[redacted]'],
  [/mwk_[A-Za-z0-9_-]{20,}/g, 'mwk_[redacted]'],
  [/\b(Basic|Bearer)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]'],
  [/([?&](?:signature|sig|token|X-Amz-Signature|X-Amz-Credential|X-Goog-Signature|access_token|api_key|key)=)[^&\s"]*/gi, '$1[redacted]'],
];

/**
 * Any of the patterns, in one case-insensitive pass: it matches whenever one of them could
 * (a superset), so a line it does not match needs no replacing. Most lines (the request log)
 * take only this one scan.
 */
const ANY_SECRET = new RegExp(SECRET_PATTERNS.map(([re]) => `(?:${re.source})`).join('|'), 'i');

export function redact(text: string): string {
  if (!ANY_SECRET.test(text)) return text;
  let out = text;
  for (const [re, repl] of SECRET_PATTERNS) out = out.replace(re, repl);
  return out;
}

/**
 * Fields censored by name. Top-level names and `headers.*` only: a wildcard path (`*.token`)
 * makes pino walk every field of every line, a cost on each request log line.
 */
const REDACT_PATHS = [
  ...['authorization', 'cookie', 'api_key', 'apiKey', 'token', 'access_token', 'refresh_token', 'client_secret', 'password', 'secret', 'master_key'],
  ...['authorization', 'cookie', 'x-api-key', 'proxy-authorization'].map((h) => `headers["${h}"]`),
];

export type LogSink = (line: string) => void;

/** How long a line may wait in the asynchronous destination's buffer when traffic is low. */
const FLUSH_EVERY_MS = 100;
/** Lines are handed to the destination in batches of about this many characters. */
const BATCH_CHARS = 4096;

/**
 * stdout through pino's asynchronous destination (sonic-boom), fed in batches of about 4 KiB:
 * sonic-boom measures the byte length of the string it is appending to on every write (up to
 * 16 KiB, copied flat each time while a write is in flight), which cost about 2 µs per request
 * line; once per batch it is a few bytes per line. The batch is handed over when it is full,
 * when the destination is flushed (our timer, pino's flush at `beforeExit`) and before
 * pino's synchronous flush when the process exits, so no line is held back.
 */
function batchedStdout(): DestinationStream & { flush(): void } {
  const stdout = pino.destination({ dest: 1, sync: false });
  let batch: string[] = [];
  let size = 0;
  const handOver = () => {
    if (size === 0) return;
    const text = batch.length === 1 ? batch[0]! : batch.join('');
    batch = [];
    size = 0;
    stdout.write(text);
  };
  const { flush, flushSync } = stdout;
  stdout.flush = (cb?: (err?: Error) => void) => {
    handOver();
    flush.call(stdout, cb);
  };
  stdout.flushSync = () => {
    // At exit no asynchronous write can finish: the batch joins sonic-boom's queue without
    // starting one (its minLength out of reach for the moment), and its synchronous flush
    // writes the queue out.
    // (`minLength` is the option of that name, kept on the instance; not in its types.)
    const queue = stdout as unknown as { minLength: number };
    const { minLength } = queue;
    queue.minLength = Number.POSITIVE_INFINITY;
    handOver();
    queue.minLength = minLength;
    flushSync.call(stdout);
  };
  return {
    write(line: string) {
      batch.push(line);
      size += line.length;
      if (size >= BATCH_CHARS) handOver();
    },
    flush: () => stdout.flush(),
  };
}

/** pino's `time` field (ISO 8601), formatted once per millisecond rather than once per line. */
let timeMs = -1;
let timeField = '';
function isoTimeField(): string {
  const now = Date.now();
  if (now !== timeMs) {
    timeMs = now;
    timeField = `,"time":"${new Date(now).toISOString()}"`;
  }
  return timeField;
}

/**
 * Without a sink, lines go to stdout through pino's asynchronous destination: they are
 * batched (about 4 KiB) and written off the request path, flushed at least every 100 ms so
 * that a quiet service's lines do not wait for the batch to fill, and flushed synchronously
 * when the process exits. A sink (tests, the CLI's stderr) receives each line
 * synchronously, without its newline.
 */
export function createLogger(sink?: LogSink, base: Record<string, unknown> = {}): Logger {
  let destination: DestinationStream;
  if (sink) {
    destination = { write: (line: string) => sink(line.endsWith('\n') ? line.slice(0, -1) : line) };
  } else {
    const stdout = batchedStdout();
    destination = stdout;
    // Hands a batch that did not fill to sonic-boom, which writes it at once or right after
    // the write in flight. An idle service has no batch: nothing is written.
    setInterval(() => stdout.flush(), FLUSH_EVERY_MS).unref();
  }
  const logger = pino(
    {
      base,
      messageKey: 'msg',
      timestamp: isoTimeField,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      hooks: {
        streamWrite: redact,
      },
    },
    destination,
  );
  // `msg` leads the fields, as it always did (pino would put a message argument last).
  return {
    info: (msg, fields) => logger.info({ msg, ...fields }),
    warn: (msg, fields) => logger.warn({ msg, ...fields }),
    error: (msg, fields) => logger.error({ msg, ...fields }),
  };
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
