export { keyProblem, isValidKey, isValidOwner, assertValidKey, parseStorageUrl, storageUrlOf, MAX_KEY_LENGTH } from './keys.ts';
export { createLocalMediaStore, contentTypeOfName, type LocalMediaStore, type MediaStore, type MediaObject, type LocalMediaObject, type ListedObject } from './store.ts';
export { createS3MediaStore, type S3MediaStore } from './s3-store.ts';
export { openMediaStore, mediaAccessOf } from './open.ts';
export { copyAll } from './copy.ts';
export { signMediaUrl, verifyMediaSignature, encodeMediaPath, type SignMediaUrlInput, type MediaSignatureCheck } from './signing.ts';
export { createMediaAccess, type MediaAccess, type MediaAccessDeps } from './access.ts';
