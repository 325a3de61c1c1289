CREATE TABLE `oauth_connections` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`state_hash` text NOT NULL,
	`status` text NOT NULL,
	`provider` text NOT NULL,
	`issuer` text,
	`metadata` text,
	`authorization_url` text NOT NULL,
	`token_url` text NOT NULL,
	`client_id` text NOT NULL,
	`scopes` text NOT NULL,
	`auth_method` text NOT NULL,
	`sealed` text NOT NULL,
	`target_secret_id` text,
	`result_secret_id` text,
	`error_code` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_connections_state_idx` ON `oauth_connections` (`state_hash`);--> statement-breakpoint
CREATE INDEX `oauth_connections_user_idx` ON `oauth_connections` (`user_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `secrets` ADD `client_auth_method` text;