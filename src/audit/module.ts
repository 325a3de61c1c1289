import { defineModule } from '../platform/module.ts';
import { auditRoutes } from './routes.ts';

/** The caller's audit trail of secrets and tools (GET /audit). */
export const auditModule = defineModule({
  name: 'audit',
  create: (p) => ({ routes: auditRoutes(p.stores.audit) }),
});
