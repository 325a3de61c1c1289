CREATE TABLE `data_migrations` (
	`name` text PRIMARY KEY NOT NULL,
	`report` text NOT NULL,
	`applied_at` integer NOT NULL
);
