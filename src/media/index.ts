export { keyProblem, isValidKey, isValidOwner, assertValidKey, parseStorageUrl, storageUrlOf, MAX_KEY_LENGTH } from './keys.ts';
export { createLocalMediaStore, contentTypeOfName, type LocalMediaStore, type MediaObject } from './store.ts';
export { signMediaUrl, verifyMediaSignature, encodeMediaPath, type SignMediaUrlInput, type MediaSignatureCheck } from './signing.ts';
export { createMediaAccess, type MediaAccess, type MediaAccessDeps } from './access.ts';
