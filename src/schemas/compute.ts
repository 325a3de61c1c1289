import { Type, type Static } from '@sinclair/typebox';

/**
 * Bodies of the compute worker protocol (docs/compute-protocol.md). A worker is a separate,
 * less trusted process: what it sends goes onto animation records, so everything is bounded.
 */

/** Render error kinds a worker may name in `fail`: the inputs are at fault, not the worker. */
export const WORKER_FAIL_KINDS = [
  'FaceError',
  'SourceError',
  'DriverError',
  'LogoError',
  'OverlayError',
  'BackgroundError',
  'FootageError',
  'InvalidImageResolutionError',
  'InvalidFaceError',
  'ConfigError',
] as const;
export type WorkerFailKind = (typeof WORKER_FAIL_KINDS)[number];

const Lease = Type.String({ pattern: '^lse_[A-Za-z0-9_-]{22}$', description: 'the lease of the claim' });

export const ClaimBody = Type.Object(
  {
    worker: Type.Optional(
      Type.Object(
        {
          // null is taken as absent: clients often send their unset options as null.
          name: Type.Optional(Type.Union([Type.Null(), Type.String({ minLength: 1, maxLength: 64, pattern: '^[\\x21-\\x7e]+$', description: 'printable ASCII, no spaces' })])),
          version: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: 64 })])),
          backend: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: 64 })])),
        },
        { additionalProperties: false },
      ),
    ),
    wait_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 25_000, description: 'long poll, default 20000' })),
    kinds: Type.Optional(
      Type.Array(Type.String({ pattern: '^[a-z][a-z0-9_]*\\.[a-z][a-z0-9_]*$', maxLength: 64 }), {
        minItems: 1,
        maxItems: 8,
        uniqueItems: true,
        description: 'task kinds this worker can run; default ["animation.render"]',
      }),
    ),
  },
  { additionalProperties: false, $id: 'ComputeClaim' },
);

export const HeartbeatBody = Type.Object(
  {
    lease: Lease,
    progress: Type.Optional(
      Type.Object(
        { done: Type.Integer({ minimum: 0, maximum: 10_000_000 }), total: Type.Integer({ minimum: 1, maximum: 10_000_000 }) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, $id: 'ComputeHeartbeat' },
);

const Finite = (opts: object = {}) => Type.Number({ minimum: -1e9, maximum: 1e9, ...opts });

const Side = Type.String({ pattern: '^[1-9][0-9]{0,4}$', description: 'pixels, as a string' });
const Degrees = Type.Number({ minimum: -360, maximum: 360 });

const WorkerFace = Type.Object(
  {
    face_id: Type.Integer({ minimum: 0, maximum: 1000 }),
    detection: Type.Tuple([Finite(), Finite(), Finite(), Finite()], { description: '[left, top, right, bottom]' }),
    top_left: Type.Tuple([Finite(), Finite()]),
    size: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
    detect_confidence: Type.Number({ minimum: 0, maximum: 1 }),
    mask_confidence: Type.Number({ minimum: 0, maximum: 1 }),
    overlap: Type.Union([Type.Literal('no'), Type.Literal('partial'), Type.Literal('yes'), Type.Literal('unknown')]),
  },
  { additionalProperties: false },
);

/** RenderMetadata of src/compute/interface.ts, as a worker reports it. */
export const WorkerRenderMetadata = Type.Object(
  {
    num_frames: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
    processing_fps: Type.Number({ minimum: 0, maximum: 1e6 }),
    resolution: Type.Tuple([Side, Side], { description: '[width, height] as strings' }),
    size_kib: Type.Number({ minimum: 0, maximum: 1e9 }),
    source_pose: Type.Tuple([Degrees, Degrees, Degrees], { description: '[yaw, pitch, roll] in degrees' }),
    video_fps: Type.Integer({ minimum: 1, maximum: 240 }),
    faces: Type.Array(WorkerFace, { maxItems: 100 }),
  },
  { additionalProperties: false, $id: 'ComputeRenderMetadata' },
);

/** TrainResult of src/compute/interface.ts, as a worker reports it for an `avatar.train` task. */
export const TrainMetadata = Type.Object(
  {
    reference_sec: Type.Number({ minimum: 0, maximum: 86_400, description: 'seconds into the footage of the reference frame' }),
    loop_sec: Type.Number({ exclusiveMinimum: 0, maximum: 600, description: 'length of idle.mp4, seconds' }),
    size: Type.Integer({ minimum: 64, maximum: 4096, description: 'side of reference.png and idle.mp4, pixels' }),
    pitch_hz: Type.Union([Type.Null(), Type.Number({ minimum: 40, maximum: 1000 })], { description: 'median F0 of the voice, or null' }),
  },
  { additionalProperties: false, $id: 'ComputeTrainMetadata' },
);
export type TrainMetadata = Static<typeof TrainMetadata>;

/** Render kinds send `metadata` and `face_ids`; `avatar.train` sends `train` instead (checked against the task's kind). */
export const CompleteBody = Type.Object(
  {
    lease: Lease,
    metadata: Type.Optional(WorkerRenderMetadata),
    face_ids: Type.Optional(Type.Array(Type.Integer({ minimum: 0, maximum: 1000 }), { maxItems: 100, uniqueItems: true })),
    train: Type.Optional(TrainMetadata),
    render_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400_000, description: "the worker's own render time (for measurements)" })),
  },
  { additionalProperties: false, $id: 'ComputeComplete' },
);

export const FailBody = Type.Object(
  {
    lease: Lease,
    kind: Type.Optional(Type.Union(WORKER_FAIL_KINDS.map((k) => Type.Literal(k)))),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  },
  { additionalProperties: false, $id: 'ComputeFail' },
);

export type ClaimBody = Static<typeof ClaimBody>;
export type HeartbeatBody = Static<typeof HeartbeatBody>;
export type CompleteBody = Static<typeof CompleteBody>;
export type FailBody = Static<typeof FailBody>;

const FileUrl = Type.String({ minLength: 1, maxLength: 4000, description: 'a signed file URL of the task' });
const Kind = <K extends string>(kind: K) => Type.Literal(kind);

/** The 200 answer of a claim. Workers validate it; fields may be added in later minor versions. */
export const ClaimedTask = Type.Object(
  {
    task_id: Type.String({ pattern: '^ctk_[A-Za-z0-9]+$' }),
    lease: Lease,
    lease_ms: Type.Integer({ minimum: 1 }),
    lease_expires_at: Type.String(),
    attempt: Type.Integer({ minimum: 1 }),
    /** What to do (docs/compute-protocol.md); absent from servers before kinds, which meant animation.render. */
    kind: Type.Optional(Type.String()),
    /** The task's input files by name (signed GET URLs), as its kind lists them. */
    inputs: Type.Optional(Type.Record(Type.String(), FileUrl)),
    /** The task's output files by name: where and how to upload each. */
    outputs: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Object({ upload_url: FileUrl, method: Type.Literal('PUT'), content_type: Type.String(), max_bytes: Type.Integer({ minimum: 1 }) }),
      ),
    ),
    /** The render's parameters: every kind but avatar.train. */
    render: Type.Optional(Type.Object({
      result_format: Type.Union([Type.Literal('mp4'), Type.Literal('mov'), Type.Literal('webm')]),
      mute: Type.Boolean(),
      stitch: Type.Boolean(),
      max_animated_faces: Type.Integer({ minimum: 1, maximum: 5 }),
      face: Type.Union([Type.Null(), Type.Object({ size: Type.Number(), top_left: Type.Array(Type.Number(), { minItems: 2, maxItems: 2 }) })]),
      driver: Type.Union([
        Type.Object({ kind: Kind('bank'), category: Type.String(), name: Type.String() }),
        Type.Object({ kind: Kind('video'), url: FileUrl }),
        /** Speech: the face speaks the audio at `url`, its lips following `cues` (docs/compute-protocol.md). */
        Type.Object({
          kind: Kind('speech'),
          url: FileUrl,
          seed: Type.String({ maxLength: 200 }),
          cues: Type.Array(
            Type.Object({
              phoneme: Type.String({ maxLength: 16 }),
              alphabet: Type.Union([Type.Literal('ipa'), Type.Literal('arpabet')]),
              startMs: Type.Number({ minimum: 0 }),
              endMs: Type.Number({ minimum: 0 }),
            }),
            { maxItems: 200_000 },
          ),
        }),
        /** Live (`stream.render` tasks): speech arrives over `stream_url` while the stream runs; `seed` seeds idle motion. */
        Type.Object({ kind: Kind('live'), seed: Type.String({ maxLength: 200 }) }),
      ]),
      source_url: FileUrl,
      logo: Type.Union([
        /** The project's logo file, placed by the rule of docs/compute-protocol.md (bottom right, 22 % of the shorter side). */
        Type.Object({ kind: Kind('default'), url: FileUrl }),
        Type.Object({ kind: Kind('none') }),
        Type.Object({ kind: Kind('image'), url: FileUrl, position: Type.Array(Type.Integer(), { minItems: 2, maxItems: 2 }) }),
      ]),
      overlay_url: Type.Union([Type.Null(), FileUrl]),
      /** The larger side the finished video is scaled to, aspect kept (even sides), alpha kept; absent: the render's own size (docs/compute-protocol.md). */
      output_resolution: Type.Optional(Type.Integer({ minimum: 16, maximum: 4096 })),
      /** What the person is shown on (docs/compute-protocol.md); null or absent (servers before backgrounds): the source picture as it is. */
      background: Type.Optional(
        Type.Union([
          Type.Null(),
          Type.Object({ kind: Kind('color'), color: Type.String({ pattern: '^#[0-9a-fA-F]{6}$' }) }),
          Type.Object({ kind: Kind('transparent') }),
          Type.Object({ kind: Kind('image'), url: FileUrl }),
        ]),
      ),
    })),
    /** `avatar.train` tasks: the footage and its windows, seconds (docs/compute-protocol.md, "Avatar training"). */
    train: Type.Optional(
      Type.Object({
        footage_url: FileUrl,
        idle: Type.Object({ from_sec: Type.Number({ minimum: 0 }), to_sec: Type.Number({ minimum: 0 }) }),
        speech: Type.Object({ from_sec: Type.Number({ minimum: 0 }), to_sec: Type.Number({ minimum: 0 }) }),
      }),
    ),
    /** `stream.render` tasks: the signed WebSocket URL (ws: or wss:) the worker streams over (docs/compute-protocol.md, "Live streams"). */
    stream_url: Type.Optional(Type.String({ pattern: '^wss?://', maxLength: 4096 })),
    /** The render's one output (the same as `outputs.result`): every kind with a result. */
    result: Type.Optional(Type.Object({
      upload_url: FileUrl,
      method: Type.Literal('PUT'),
      content_type: Type.String(),
      max_bytes: Type.Integer({ minimum: 1 }),
    })),
  },
  { $id: 'ComputeClaimedTask' },
);
export type ClaimedTask = Static<typeof ClaimedTask>;
