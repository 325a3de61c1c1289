CREATE TABLE `client_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`hash` text NOT NULL,
	`prefix` text NOT NULL,
	`name` text,
	`allowed_origins` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `client_keys_hash_idx` ON `client_keys` (`hash`);--> statement-breakpoint
CREATE INDEX `client_keys_agent_idx` ON `client_keys` (`agent_id`,`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `audit_events` ADD `external_id` text;--> statement-breakpoint
ALTER TABLE `agent_chats` ADD `client` text;