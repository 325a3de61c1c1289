#!/usr/bin/env node
// `mimic <command>`: the service's one entry (src/main.ts) in this very process, with tsx's
// loader registered here rather than through a wrapper process, so SIGTERM and SIGINT reach
// the process that serves and it shuts down gracefully (docs/operating.md).
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
