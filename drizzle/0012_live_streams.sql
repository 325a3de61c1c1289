CREATE TABLE `live_streams` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`agent_id` text,
	`session_hash` text NOT NULL,
	`holder` text NOT NULL,
	`client_key_id` text,
	`owner_process_id` text NOT NULL,
	`owner_url` text NOT NULL,
	`heartbeat_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`ended_at` integer,
	`end_reason` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `live_streams_open_idx` ON `live_streams` (`ended_at`,`owner_process_id`);--> statement-breakpoint
CREATE INDEX `live_streams_user_idx` ON `live_streams` (`user_id`);