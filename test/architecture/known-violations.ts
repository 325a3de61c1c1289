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
    // the HTTP edge checks API keys and types the caller with users/ internals: the caller moves to the kernel (or users/contract.ts)
    'http/auth.ts -> users/api-keys.ts',
    'http/env.ts -> users/auth-user.ts',
    'http/sockets.ts -> users/api-keys.ts',
    'http/sockets.ts -> users/auth-user.ts',
    // services.ts builds the webhook dispatcher: webhooks should provide it as a service from its module
    'services.ts -> webhooks/index.ts',
  ],
  'capability-contract': [
    // streams charge credits and read voices through users' and voices' internals: wants their contract.ts
    'streams/credits.ts -> users/store.ts',
    // the stream create body is read from streams/schemas.ts: it belongs in streams/contract.ts
    'agents/streams.ts -> streams/schemas.ts',
    'clips/streams.ts -> streams/schemas.ts',
    'talks/streams.ts -> streams/schemas.ts',
    // the chat records model calls in audit's store directly: wants an audit service key in audit/contract.ts
    'agents/chat/model.ts -> audit/record.ts',
    'agents/chat/model.ts -> audit/store.ts',
    'agents/chat/service.ts -> audit/store.ts',
    // the chat resolves and scrubs credentials with secrets' internals: wants secrets/contract.ts
    'agents/chat/model.ts -> secrets/credential.ts',
    'agents/chat/model.ts -> secrets/deps.ts',
    'agents/chat/model.ts -> secrets/resolve.ts',
    'agents/chat/scrub.ts -> secrets/deps.ts',
    'agents/chat/scrub.ts -> secrets/resolve.ts',
    'agents/chat/service.ts -> secrets/deps.ts',
    // the chat calls tools and redacts with tools' internals: wants tools/contract.ts
    'agents/chat/model.ts -> tools/exec/request.ts',
    'agents/chat/scrub.ts -> tools/exec/redact.ts',
    // the caller (AuthUser, permissions, API keys) is read from users/ internals: wants users/contract.ts
    'agents/chat/routes.ts -> users/api-keys.ts',
    'agents/service.ts -> users/auth-user.ts',
    'agents/service.ts -> users/permissions.ts',
    // agents create talks through talks/create.ts: wants a talks service in talks/contract.ts
    'agents/service.ts -> talks/create.ts',
    // the caller (AuthUser, permissions) is read from users/ internals: wants users/contract.ts
    'animations/create.ts -> users/auth-user.ts',
    'animations/create.ts -> users/permissions.ts',
    // avatars use consents' video checks, access and languages directly: wants a consents service in consents/contract.ts
    'avatars/checks.ts -> consents/video.ts',
    'avatars/train.ts -> consents/video.ts',
    'avatars/voice.ts -> consents/languages/index.ts',
    // the caller (AuthUser) is read from users/ internals: wants users/contract.ts
    'avatars/create.ts -> users/auth-user.ts',
    // avatars register presenters through the catalogue module: wants its service key in presenters/contract.ts
    'avatars/train.ts -> presenters/catalogue.ts',
    // avatar training renders its talking preview with clips/preview.ts: the speaking engine moves to speaking/ (§2.1)
    'avatars/train.ts -> clips/preview.ts',
    // clips read the presenter catalogue and built-ins: wants the presenters service key in presenters/contract.ts
    'clips/create.ts -> presenters/built-in.ts',
    'clips/create.ts -> presenters/catalogue.ts',
    'clips/deps.ts -> presenters/catalogue.ts',
    'clips/preview.ts -> presenters/catalogue.ts',
    // the caller (AuthUser) is read from users/ internals: wants users/contract.ts
    'clips/create.ts -> users/auth-user.ts',
    // clips/streams.ts speaks into a stream through streams/interface.ts: wants streams/contract.ts
    'clips/streams.ts -> streams/interface.ts',
    // the caller (AuthUser) is read from users/ internals: wants users/contract.ts
    'consents/create.ts -> users/auth-user.ts',
    // secrets write audit records into audit's store directly: wants an audit service key in audit/contract.ts
    'secrets/oauth2-import.ts -> audit/record.ts',
    'secrets/oauth2-tokens.ts -> audit/record.ts',
    'secrets/oauth2-tokens.ts -> audit/store.ts',
    'secrets/service.ts -> audit/record.ts',
    'secrets/store.ts -> audit/store.ts',
    // the hub reads credits from users/store.ts and the caller from users/ internals: wants users/contract.ts
    'streams/hub.ts -> users/store.ts',
    'streams/interface.ts -> users/auth-user.ts',
    // the caller (AuthUser, permissions) is read from users/ internals: wants users/contract.ts
    'talks/create.ts -> users/auth-user.ts',
    'talks/create.ts -> users/permissions.ts',
    'talks/streams.ts -> users/permissions.ts',
    // talks pick voices from voices' internals: voice choice moves to speaking/ (§2.1)
    'talks/create.ts -> voices/catalogue.ts',
    'talks/create.ts -> voices/interface.ts',
    // tools write audit records into audit's store directly: wants an audit service key in audit/contract.ts
    'tools/call.ts -> audit/record.ts',
    'tools/call.ts -> audit/store.ts',
    'tools/service.ts -> audit/record.ts',
    'tools/store.ts -> audit/store.ts',
    // tool calls resolve credentials and oauth2 tokens with secrets' internals: wants secrets/contract.ts
    'tools/call.ts -> secrets/credential.ts',
    'tools/call.ts -> secrets/oauth2/index.ts',
    'tools/call.ts -> secrets/resolve.ts',
    'tools/exec/redact.ts -> secrets/credential.ts',
    'tools/exec/request.ts -> secrets/credential.ts',
    'tools/module.ts -> secrets/deps.ts',
    'tools/module.ts -> secrets/oauth2-tokens.ts',
    'tools/module.ts -> secrets/oauth2/index.ts',
    'tools/service.ts -> secrets/deps.ts',
    // external voice providers read credentials with secrets' internals: wants secrets/contract.ts
    'voices/cli.ts -> secrets/store.ts',
    'voices/external/credentials.ts -> secrets/credential.ts',
    'voices/external/credentials.ts -> secrets/deps.ts',
    'voices/external/credentials.ts -> secrets/resolve.ts',
    'voices/external/credentials.ts -> secrets/store.ts',
    'voices/external/http.ts -> secrets/credential.ts',
    // external voice providers write audit records into audit's store: wants an audit service key in audit/contract.ts
    'voices/external/http.ts -> audit/record.ts',
    'voices/external/http.ts -> audit/store.ts',
    // external voice providers send requests with tools' guarded request and redaction: it moves down to egress/ or the kit
    'voices/external/http.ts -> tools/exec/redact.ts',
    'voices/external/http.ts -> tools/exec/request.ts',
  ],
  kit: [
    // the resource store queues the final-state webhook through webhooks/outbox.ts in its own transaction
    'resources/store.ts -> webhooks/outbox.ts',
  ],
  kernel: [
    // the module contract is typed with the edge's Hono env and CLI command, the kit's Lifecycle and users' AuthUser
    'platform/module.ts -> cli/command.ts',
    'platform/module.ts -> http/env.ts',
    'platform/module.ts -> resources/lifecycle.ts',
    'platform/module.ts -> users/auth-user.ts',
    // ProvidedServices names what capabilities provide; typed service keys in their contract.ts replace it (§1.4)
    'platform/platform.ts -> users/accounts.ts',
    'platform/platform.ts -> users/auth-user.ts',
    'platform/platform.ts -> webhooks/secrets.ts',
  ],
  infrastructure: [
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
