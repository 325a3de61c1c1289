CREATE TABLE `compute_tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`job_id` text NOT NULL,
	`status` text NOT NULL,
	`request` text NOT NULL,
	`output_path` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`max_attempts` integer NOT NULL,
	`lease` text,
	`lease_until` integer,
	`worker_id` text,
	`worker_name` text,
	`progress_done` integer,
	`progress_total` integer,
	`uploaded_lease` text,
	`result_bytes` integer,
	`metadata` text,
	`face_ids` text,
	`error_kind` text,
	`error` text,
	`render_ms` integer,
	`created_at` integer NOT NULL,
	`claimed_at` integer,
	`uploaded_at` integer,
	`finished_at` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `compute_tasks_due_idx` ON `compute_tasks` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `compute_tasks_job_idx` ON `compute_tasks` (`job_id`);--> statement-breakpoint
CREATE TABLE `compute_workers` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_seen_at` integer,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `compute_workers_token_idx` ON `compute_workers` (`token_hash`);