import { defineModule } from '../platform/module.ts';
import { provide } from '../platform/service-key.ts';
import { AUDIT } from './contract.ts';
import { auditRoutes } from './routes.ts';
import { auditStoreOn } from './store-pg.ts';

/** The caller's audit trail of secrets and tools (GET /audit), and its store for the capabilities that write rows (`AUDIT`). */
export const auditModule = defineModule({
  name: 'audit',
  provides: [AUDIT],
  create(p) {
    const audit = auditStoreOn(p.store);
    return { provides: [provide(AUDIT, audit)], routes: auditRoutes(audit) };
  },
});
