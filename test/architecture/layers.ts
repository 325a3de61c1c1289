/**
 * The layers of src/ (issue 19 §1, docs/architecture.md). Capabilities are not listed here:
 * they are the folders whose module src/modules.ts lists, minus the folders declared below as
 * infrastructure (none today: the HTTP and CLI halves of compute, media and the vault are the
 * capabilities workers/, downloads/ and vault-admin/).
 */
import { resolve } from 'node:path';
import { moduleFolders, resourceKindStrings, type LayerSpec, type SourceFile } from './imports.ts';

/** src/ of this checkout. */
export const SRC = resolve(import.meta.dirname, '../../src');

export const MODULE_LIST = 'modules.ts';
export const EDGE_FILES = ['main.ts', 'server.ts', 'app.ts', 'services.ts', MODULE_LIST];
export const EDGE_FOLDERS = ['http', 'cli'];
export const KERNEL = ['platform'];
export const KIT = ['resources', 'speaking'];
/** The face and speech analysers are footage/. */
export const INFRASTRUCTURE = ['media', 'compute', 'db', 'jobs', 'egress', 'vault', 'llm', 'footage'];
export const ROOT_UTILITIES = [
  'config.ts',
  'clock.ts',
  'log.ts',
  'errors.ts',
  'keys.ts',
  'pagination.ts',
  'url-signature.ts',
  'schemas/common.ts',
  'schemas/ajv.ts',
];

/** The layers of the src/ that `files` were read from: its modules.ts says which folders are capabilities. */
export function layerSpec(files: readonly SourceFile[]): LayerSpec {
  const modules = files.find((f) => f.path === MODULE_LIST);
  if (!modules) throw new Error(`no src/${MODULE_LIST}`);
  const infrastructure = new Set(INFRASTRUCTURE);
  const capabilities = new Set(moduleFolders(modules).map((m) => m.folder).filter((f) => !infrastructure.has(f)));
  return {
    capabilities,
    kindStrings: new Set(resourceKindStrings(files, capabilities)),
    infrastructure,
    kit: new Set(KIT),
    kernel: new Set(KERNEL),
    edgeFolders: new Set(EDGE_FOLDERS),
    edgeFiles: new Set(EDGE_FILES),
    rootUtilities: new Set(ROOT_UTILITIES),
    moduleList: MODULE_LIST,
  };
}
