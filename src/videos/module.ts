import { join } from 'node:path';
import { defineModule } from '../platform/module.ts';
import { int, MiB } from '../config.ts';
import { videoRoutes } from './routes.ts';
import { VIDEO_ERRORS } from './errors.ts';
import { createResumableUploads } from './resumable/uploads.ts';
import { uploadSweeper } from './resumable/sweep.ts';

/**
 * Video uploads into the caller's media store, for a consent's video and an avatar's footage:
 * in one request (POST /videos), or resumable over several (POST /videos/uploads, tus 1.0.0).
 */
export const videosModule = defineModule({
  name: 'videos',
  errors: VIDEO_ERRORS,
  config: {
    variables: [
      { name: 'MIMIC_VIDEO_UPLOAD_MAX_BYTES', default: String(2048 * MiB), description: 'largest video POST /videos stores, and largest Upload-Length of a resumable upload' },
      { name: 'MIMIC_VIDEO_UPLOADS_PER_USER', default: '4', description: 'unfinished resumable video uploads one user may have at once' },
      { name: 'MIMIC_VIDEO_UPLOAD_EXPIRY_HOURS', default: '24', description: 'hours after its creation a resumable video upload is removed, finished or not' },
    ],
    load: (env) => ({
      maxBytes: int(env, 'MIMIC_VIDEO_UPLOAD_MAX_BYTES', 2048 * MiB, MiB, 64 * 1024 * MiB),
      perUser: int(env, 'MIMIC_VIDEO_UPLOADS_PER_USER', 4, 1, 1000),
      expiryHours: int(env, 'MIMIC_VIDEO_UPLOAD_EXPIRY_HOURS', 24, 1, 24 * 30),
    }),
  },
  create: ({ config, media, newId, clock, log }, settings) => {
    const video = { media, newId, storageScheme: config.storageScheme, maxBytes: settings.maxBytes };
    const uploads = createResumableUploads({
      root: join(config.dataDir, 'uploads'), clock, newId, video,
      maxBytes: settings.maxBytes, perUser: settings.perUser, ttlMs: settings.expiryHours * 3600_000,
    });
    const sweeper = uploadSweeper(uploads, log);
    return {
      /** The resumable uploads' verbs (tests sweep with them). */
      uploads,
      routes: videoRoutes({ ...video, uploads, publicUrl: config.publicUrl }),
      start: () => sweeper.start(),
      stop: () => sweeper.stop(),
    };
  },
});
