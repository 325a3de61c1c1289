ALTER TABLE `jobs` ADD `waiting_on` text;--> statement-breakpoint
ALTER TABLE `webhook_messages` ADD `lease_owner` text;--> statement-breakpoint
ALTER TABLE `compute_tasks` ADD `kind` text DEFAULT 'animation.render' NOT NULL;--> statement-breakpoint
ALTER TABLE `compute_tasks` ADD `reported_at` integer;