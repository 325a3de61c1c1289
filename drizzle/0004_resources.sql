CREATE TABLE `resources` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`user_id` text NOT NULL,
	`status` text NOT NULL,
	`request` text NOT NULL,
	`details` text NOT NULL,
	`result` text,
	`error` text,
	`webhook_url` text,
	`credits` integer NOT NULL,
	`progress_done` integer,
	`progress_total` integer,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`modified_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `resources_user_kind_created_idx` ON `resources` (`user_id`,`kind`,`created_at`,`id`);--> statement-breakpoint
-- Every animation moves over: its own fields into details/result, the webhook URL out of the
-- request into its column, one credit charged, finished when done or error.
INSERT INTO `resources` (`id`, `kind`, `user_id`, `status`, `request`, `details`, `result`, `error`, `webhook_url`, `credits`,
  `progress_done`, `progress_total`, `created_at`, `started_at`, `modified_at`, `finished_at`)
SELECT `id`, 'animation', `user_id`, `status`, `request`,
  json_object('driverResolved', `driver_resolved`, 'sourceKey', `source_key`),
  CASE WHEN `status` = 'done' THEN json_object('resultKey', `result_key`, 'resultExternalUrl', `result_external_url`, 'metadata', json(`metadata`), 'faceIds', json(`face_ids`)) END,
  `error`, NULLIF(json_extract(`request`, '$.webhook'), ''), 1,
  `progress_done`, `progress_total`, `created_at`, `started_at`, `modified_at`,
  CASE WHEN `status` IN ('done', 'error') THEN `modified_at` END
FROM `animations`;--> statement-breakpoint
DROP TABLE `animations`;