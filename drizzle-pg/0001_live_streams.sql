CREATE TABLE "live_streams" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"kind" text NOT NULL,
	"agent_id" text,
	"session_hash" text NOT NULL,
	"holder" text NOT NULL,
	"client_key_id" text,
	"owner_process_id" text NOT NULL,
	"owner_url" text NOT NULL,
	"heartbeat_at" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"ended_at" bigint,
	"end_reason" text
);
--> statement-breakpoint
ALTER TABLE "live_streams" ADD CONSTRAINT "live_streams_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "live_streams_open_idx" ON "live_streams" USING btree ("ended_at","owner_process_id");--> statement-breakpoint
CREATE INDEX "live_streams_user_idx" ON "live_streams" USING btree ("user_id");