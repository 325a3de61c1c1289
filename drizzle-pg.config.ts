import { defineConfig } from 'drizzle-kit';

/** The PostgreSQL schema's migrations (src/db/schema-pg.ts mirrors src/db/schema.ts table for table). */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema-pg.ts',
  out: './drizzle-pg',
});
