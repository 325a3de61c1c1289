CREATE TABLE `audit_events` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`at` integer NOT NULL,
	`action` text NOT NULL,
	`outcome` text NOT NULL,
	`secret_id` text,
	`tool_id` text,
	`call_id` text,
	`detail` text DEFAULT '{}' NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `audit_events_user_idx` ON `audit_events` (`user_id`,`at`,`id`);--> statement-breakpoint
CREATE TABLE `secret_fields` (
	`secret_id` text NOT NULL,
	`field` text NOT NULL,
	`kek_id` text NOT NULL,
	`wrapped_key` text NOT NULL,
	`ciphertext` text NOT NULL,
	PRIMARY KEY(`secret_id`, `field`),
	FOREIGN KEY (`secret_id`) REFERENCES `secrets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`kek_id`) REFERENCES `vault_keys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `secret_fields_kek_idx` ON `secret_fields` (`kek_id`);--> statement-breakpoint
CREATE TABLE `secrets` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`provider` text NOT NULL,
	`type` text NOT NULL,
	`header_name` text,
	`token_url` text,
	`client_id` text,
	`expires_at` integer,
	`status` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`last_used_at` integer,
	`refreshed_at` integer,
	`lock_owner` text,
	`lock_until` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `secrets_user_idx` ON `secrets` (`user_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `tools` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`provider` text NOT NULL,
	`schema` text NOT NULL,
	`config` text NOT NULL,
	`secret_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`secret_id`) REFERENCES `secrets`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tools_user_idx` ON `tools` (`user_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `tools_secret_idx` ON `tools` (`secret_id`);--> statement-breakpoint
CREATE TABLE `vault_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`wrapped` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`demoted_at` integer
);
--> statement-breakpoint
CREATE TABLE `vault_meta` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
