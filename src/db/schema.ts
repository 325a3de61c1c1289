export * from './schema/core.ts';
