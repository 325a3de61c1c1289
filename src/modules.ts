/**
 * The capabilities of the service: the one shared place where a capability is added
 * (docs/architecture.md, "How to add a capability"). The list's order is not a dependency
 * order: modules are created providers first, from the service keys each declares it
 * `needs`, `uses` and `provides` (src/platform/order.ts), and routes are mounted by path
 * shape (src/http/route-order.ts). The order only sets the order of commands in `--help`
 * and of routes in the OpenAPI document.
 */
import { animationsModule } from './animations/module.ts';
import { imagesModule } from './images/module.ts';
import { audiosModule } from './audios/module.ts';
import { voicesModule } from './voices/module.ts';
import { presentersModule } from './presenters/module.ts';
import { clipsModule } from './clips/module.ts';
import { talksModule } from './talks/module.ts';
import { mediaModule } from './downloads/module.ts';
import { webhooksModule } from './webhooks/module.ts';
import { secretsModule } from './secrets/module.ts';
import { toolsModule } from './tools/module.ts';
import { auditModule } from './audit/module.ts';
import { workersModule } from './workers/module.ts';
import { usersModule } from './users/module.ts';
import { vaultModule } from './vault-admin/module.ts';
import { agentsModule } from './agents/module.ts';
import { examplesModule } from './examples/module.ts';
import { streamsModule } from './streams/module.ts';
import { videosModule } from './videos/module.ts';
import { consentsModule } from './consents/module.ts';
import { avatarsModule } from './avatars/module.ts';
import { accountsModule } from './accounts/module.ts';
import { studioModule } from './studio/module.ts';

export const MODULES = [usersModule, accountsModule, vaultModule, animationsModule, imagesModule, audiosModule, videosModule, voicesModule, consentsModule, avatarsModule, presentersModule, streamsModule, clipsModule, talksModule, mediaModule, webhooksModule, secretsModule, toolsModule, agentsModule, auditModule, workersModule, examplesModule, studioModule] as const;
