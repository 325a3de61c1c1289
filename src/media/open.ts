import { join } from 'node:path';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { createMediaAccess, type MediaAccess } from './access.ts';
import { createS3MediaStore } from './s3-store.ts';
import { createLocalMediaStore, type MediaStore } from './store.ts';

/** The media store the settings name: the bucket of MIMIC_S3_BUCKET, else the local folder. */
export function openMediaStore(config: Pick<Config, 'mediaDir' | 'dataDir' | 's3'>): MediaStore {
  return config.s3 ? createS3MediaStore(config.s3, { cacheDir: join(config.dataDir, 'cache', 'media') }) : createLocalMediaStore(config.mediaDir);
}

/** The domain's media operations on `store`, with URLs as the settings say. */
export function mediaAccessOf(config: Pick<Config, 'publicUrl' | 'signedUrlTtlSeconds' | 'storageScheme' | 'mediaUrls'>, store: MediaStore, urlKey: Buffer, clock: Clock): MediaAccess {
  return createMediaAccess({ store, publicUrl: config.publicUrl, urlKey, ttlSeconds: config.signedUrlTtlSeconds, scheme: config.storageScheme, clock, urls: config.mediaUrls });
}
