/**
 * The ratchet of the layer test: every violation of the layer rules that src/ still has,
 * one line per file pair ('from -> to', paths under src/). It only shrinks: the test fails on a
 * violation not listed here and on a listed one that no longer occurs, and prints the lines to
 * add or delete. A move of issue 19 §2 that lands deletes its lines; a new line needs a reason.
 */
import type { RuleId } from './imports.ts';

export const KNOWN_VIOLATIONS: Record<RuleId, readonly string[]> = {
  placement: [],
  edge: [
    // services.ts builds the webhook dispatcher: webhooks should provide it as a service from its module
    'services.ts -> webhooks/index.ts',
  ],
  'capability-contract': [
    // the stream speech queue and credits still use clips' speech, voice and credit rule: they move to the speaking kit (§2.1)
    'streams/credits.ts -> clips/deps.ts',
    'streams/speech-queue.ts -> clips/create.ts',
    'streams/speech-queue.ts -> clips/deps.ts',
    'streams/speech-queue.ts -> clips/kind.ts',
    'streams/speech-queue.ts -> clips/speech.ts',
    // streams charge credits and read voices through users' and voices' internals: wants their contract.ts
    'streams/credits.ts -> users/store.ts',
    'streams/speech-queue.ts -> voices/catalogue.ts',
    // the stream create body is read from streams/schemas.ts: it belongs in streams/contract.ts
    'agents/streams.ts -> streams/schemas.ts',
    'clips/streams.ts -> streams/schemas.ts',
    'talks/streams.ts -> streams/schemas.ts',
    // streams/interface.ts is streams' contract under another name (and its schemas sit in schemas/streams.ts)
    // agents check media inputs with animations/checks.ts: the media checks move to media/ (§2.1)
    'agents/service.ts -> animations/checks.ts',
    // agents create clips through clips' verb and kind (and reuse its schemas): wants a clips service in clips/contract.ts
    'agents/service.ts -> clips/create.ts',
    'agents/service.ts -> clips/kind.ts',
    'agents/streams.ts -> clips/kind.ts',
    // agents create talks through talks/create.ts: wants a talks service in talks/contract.ts
    'agents/service.ts -> talks/create.ts',
    // the caller (AuthUser, permissions) is read from users/ internals: it moved to platform/caller.ts (users/ re-exports it until these point there)
    'animations/create.ts -> users/auth-user.ts',
    'animations/create.ts -> users/permissions.ts',
    // avatar training renders its talking preview with clips/preview.ts: the speaking engine moves to speaking/ (§2.1)
    'avatars/train.ts -> clips/preview.ts',
    // clips check media inputs with animations/checks.ts: the media checks move to media/ (§2.1)
    'clips/create.ts -> animations/checks.ts',
    'clips/render.ts -> animations/checks.ts',
    // stored audio inputs come from audios/upload.ts: stored inputs move to speaking/ (§2.1)
    'clips/create.ts -> audios/upload.ts',
    'clips/speech.ts -> audios/upload.ts',
    // clips read the presenter catalogue and built-ins: wants the presenters service key in presenters/contract.ts
    'clips/create.ts -> presenters/built-in.ts',
    'clips/create.ts -> presenters/catalogue.ts',
    'clips/deps.ts -> presenters/catalogue.ts',
    'clips/preview.ts -> presenters/catalogue.ts',
    // the caller (AuthUser) is read from users/ internals: it moved to platform/caller.ts (users/ re-exports it until these point there)
    'clips/create.ts -> users/auth-user.ts',
    // speech preparation and voice choice in clips read voices' internals: they move to speaking/ (§2.1)
    'clips/create.ts -> voices/catalogue.ts',
    'clips/create.ts -> voices/interface.ts',
    'clips/deps.ts -> voices/catalogue.ts',
    'clips/speech.ts -> voices/catalogue.ts',
    'clips/speech.ts -> voices/interface.ts',
    // clips/streams.ts speaks into a stream through streams/interface.ts: wants streams/contract.ts
    'clips/streams.ts -> streams/interface.ts',
    // presenters' schemas are written in schemas/clips.ts: each capability's schemas move into its folder (§2.2)
    // talks check media inputs with animations/checks.ts and reuse animation schemas: media checks move to media/, schemas to the kit (§2.1, §2.2)
    'talks/create.ts -> animations/checks.ts',
    'talks/present.ts -> animations/checks.ts',
    'talks/render.ts -> animations/checks.ts',
    // talks are built on clips' speaking engine, pending videos, routes and schemas: they move to speaking/ and defineResource (§2.1, §2.2)
    'talks/create.ts -> clips/create.ts',
    'talks/create.ts -> clips/deps.ts',
    'talks/create.ts -> clips/kind.ts',
    'talks/kind.ts -> clips/kind.ts',
    'talks/kind.ts -> clips/pending.ts',
    'talks/module.ts -> clips/pending.ts',
    'talks/present.ts -> clips/pending.ts',
    'talks/present.ts -> clips/present.ts',
    'talks/render.ts -> clips/render.ts',
    'talks/routes.ts -> clips/routes.ts',
    'talks/streams.ts -> clips/create.ts',
    // the stream hub speaks with clips' speaking engine: it moves to speaking/ (§2.1)
    'streams/speech.ts -> clips/kind.ts',
    'streams/speech.ts -> clips/speech.ts',
    // the hub reads credits from users/store.ts and the caller from users/ internals: wants users/contract.ts
    'streams/hub.ts -> users/store.ts',
    'streams/interface.ts -> users/auth-user.ts',
    // stream speech reads voices' internals: speech preparation moves to speaking/ (§2.1)
    'streams/hub.ts -> voices/catalogue.ts',
    'streams/speech.ts -> voices/catalogue.ts',
    'streams/speech.ts -> voices/interface.ts',
    // stored audio inputs come from audios/upload.ts: stored inputs move to speaking/ (§2.1)
    'streams/speech.ts -> audios/upload.ts',
    // the caller (AuthUser, permissions) is read from users/ internals: it moved to platform/caller.ts (users/ re-exports it until these point there)
    'talks/create.ts -> users/auth-user.ts',
    'talks/create.ts -> users/permissions.ts',
    'talks/streams.ts -> users/permissions.ts',
    // talks pick voices from voices' internals: voice choice moves to speaking/ (§2.1)
    'talks/create.ts -> voices/catalogue.ts',
    'talks/create.ts -> voices/interface.ts',
    'talks/kind.ts -> voices/catalogue.ts',
    // talks/streams.ts uses streams/interface.ts and its schemas: wants streams/contract.ts
  ],
  kit: [
    // the resource store queues the final-state webhook through webhooks/outbox.ts in its own transaction
    'resources/store.ts -> webhooks/outbox.ts',
  ],
  kernel: [
    // the module contract is typed with the edge's Hono env and CLI command and the kit's Lifecycle
    'platform/module.ts -> cli/command.ts',
    'platform/module.ts -> http/env.ts',
    'platform/module.ts -> resources/lifecycle.ts',
  ],
  infrastructure: [
    // compute's HTTP half (worker routes, CLI, stream socket) is a module: it becomes the workers capability (§2.3)
    'compute/module.ts -> platform/module.ts',
    'compute/remote/cli.ts -> cli/command.ts',
    'compute/remote/cli.ts -> cli/values.ts',
    'compute/remote/stream.ts -> platform/module.ts',
    'compute/routes.ts -> http/body.ts',
    'compute/routes.ts -> http/env.ts',
    'compute/routes.ts -> platform/module.ts',
    // db/stores.ts builds every store, the kit's and the capabilities': each should build its own from the handle
    'db/stores.ts -> agents/chat/store.ts',
    'db/stores.ts -> agents/store.ts',
    'db/stores.ts -> audit/store.ts',
    'db/stores.ts -> resources/store.ts',
    'db/stores.ts -> secrets/store.ts',
    'db/stores.ts -> tools/store.ts',
    'db/stores.ts -> users/store.ts',
    'db/stores.ts -> webhooks/outbox-store.ts',
    'db/stores.ts -> webhooks/secrets-store.ts',
    // media's routes and module description serve /media: they move up into a capability
    'media/module.ts -> platform/module.ts',
    'media/routes.ts -> http/env.ts',
    'media/routes.ts -> platform/module.ts',
    // the vault's module description and CLI are a module: they move up into a capability
    'vault/cli.ts -> cli/command.ts',
    'vault/module.ts -> platform/module.ts',
  ],
  'root-utility': [],
  'names-no-capability': [
    // db/stores.ts builds the oauth2 refresh lock on the secrets table: secrets should build it
    'db/stores.ts -> "secrets"',
  ],
  'http-edge': [],
  'store-drizzle': [],
  'store-handle': [],
  llm: [],
};
