CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"hash" text NOT NULL,
	"prefix" text NOT NULL,
	"created_at" bigint NOT NULL,
	"revoked_at" bigint
);
--> statement-breakpoint
CREATE TABLE "data_migrations" (
	"name" text PRIMARY KEY NOT NULL,
	"report" text NOT NULL,
	"applied_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"resource_id" text NOT NULL,
	"user_id" text NOT NULL,
	"status" text NOT NULL,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"max_attempts" bigint NOT NULL,
	"run_at" bigint NOT NULL,
	"lease_owner" text,
	"lease_until" bigint,
	"last_error" text,
	"waiting_on" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "resources" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"user_id" text NOT NULL,
	"status" text NOT NULL,
	"request" text NOT NULL,
	"details" text NOT NULL,
	"result" text,
	"error" text,
	"webhook_url" text,
	"credits" bigint NOT NULL,
	"progress_done" bigint,
	"progress_total" bigint,
	"created_at" bigint NOT NULL,
	"started_at" bigint,
	"modified_at" bigint NOT NULL,
	"finished_at" bigint,
	"claimed_by" text
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text,
	"credits" bigint DEFAULT 0 NOT NULL,
	"permissions" text DEFAULT '[]' NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"message_id" text NOT NULL,
	"attempt" bigint NOT NULL,
	"started_at" bigint NOT NULL,
	"duration_ms" bigint NOT NULL,
	"status_code" bigint,
	"error" text,
	"outcome" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"event" text NOT NULL,
	"resource_id" text NOT NULL,
	"url" text NOT NULL,
	"status" text NOT NULL,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"next_attempt_at" bigint NOT NULL,
	"lease_owner" text,
	"lease_until" bigint,
	"last_status" bigint,
	"last_error" text,
	"created_at" bigint NOT NULL,
	"delivered_at" bigint
);
--> statement-breakpoint
CREATE TABLE "webhook_secrets" (
	"user_id" text PRIMARY KEY NOT NULL,
	"current" text NOT NULL,
	"previous" text,
	"previous_expires_at" bigint,
	"created_at" bigint NOT NULL,
	"rotated_at" bigint
);
--> statement-breakpoint
CREATE TABLE "audit_events" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"at" bigint NOT NULL,
	"action" text NOT NULL,
	"outcome" text NOT NULL,
	"secret_id" text,
	"tool_id" text,
	"call_id" text,
	"external_id" text,
	"detail" text DEFAULT '{}' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "secret_fields" (
	"secret_id" text NOT NULL,
	"field" text NOT NULL,
	"kek_id" text NOT NULL,
	"wrapped_key" text NOT NULL,
	"ciphertext" text NOT NULL,
	CONSTRAINT "secret_fields_secret_id_field_pk" PRIMARY KEY("secret_id","field")
);
--> statement-breakpoint
CREATE TABLE "secrets" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"provider" text NOT NULL,
	"type" text NOT NULL,
	"header_name" text,
	"token_url" text,
	"client_id" text,
	"client_auth_method" text,
	"expires_at" bigint,
	"status" text NOT NULL,
	"version" bigint DEFAULT 1 NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"last_used_at" bigint,
	"refreshed_at" bigint,
	"lock_owner" text,
	"lock_until" bigint
);
--> statement-breakpoint
CREATE TABLE "tools" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"provider" text NOT NULL,
	"schema" text NOT NULL,
	"config" text NOT NULL,
	"secret_id" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "vault_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"wrapped" text NOT NULL,
	"status" text NOT NULL,
	"created_at" bigint NOT NULL,
	"demoted_at" bigint
);
--> statement-breakpoint
CREATE TABLE "vault_meta" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "compute_tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"job_id" text NOT NULL,
	"kind" text DEFAULT 'animation.render' NOT NULL,
	"status" text NOT NULL,
	"request" text NOT NULL,
	"output_path" text NOT NULL,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"max_attempts" bigint NOT NULL,
	"lease" text,
	"lease_until" bigint,
	"worker_id" text,
	"worker_name" text,
	"progress_done" bigint,
	"progress_total" bigint,
	"uploaded_lease" text,
	"result_bytes" bigint,
	"metadata" text,
	"face_ids" text,
	"error_kind" text,
	"error" text,
	"render_ms" bigint,
	"created_at" bigint NOT NULL,
	"claimed_at" bigint,
	"uploaded_at" bigint,
	"reported_at" bigint,
	"finished_at" bigint,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "compute_workers" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" bigint NOT NULL,
	"last_seen_at" bigint,
	"revoked_at" bigint
);
--> statement-breakpoint
CREATE TABLE "agent_chat_messages" (
	"chat_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"role" text NOT NULL,
	"content" text,
	"tool_calls" text,
	"tool_call_id" text,
	"failed" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "agent_chat_messages_chat_id_seq_pk" PRIMARY KEY("chat_id","seq")
);
--> statement-breakpoint
CREATE TABLE "agent_chats" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"message_count" bigint DEFAULT 0 NOT NULL,
	"client" text,
	"created_at" bigint NOT NULL,
	"modified_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agent_tools" (
	"agent_id" text NOT NULL,
	"tool_id" text NOT NULL,
	"position" bigint NOT NULL,
	CONSTRAINT "agent_tools_agent_id_tool_id_pk" PRIMARY KEY("agent_id","tool_id")
);
--> statement-breakpoint
CREATE TABLE "agents" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"body" text NOT NULL,
	"secret_id" text,
	"voice" text,
	"version" bigint DEFAULT 1 NOT NULL,
	"created_at" bigint NOT NULL,
	"modified_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "client_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"hash" text NOT NULL,
	"prefix" text NOT NULL,
	"name" text,
	"allowed_origins" text NOT NULL,
	"created_at" bigint NOT NULL,
	"revoked_at" bigint
);
--> statement-breakpoint
CREATE TABLE "account_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"kind" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint
);
--> statement-breakpoint
CREATE TABLE "accounts" (
	"user_id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"password_hash" text,
	"password_changed_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sign_in_attempts" (
	"bucket" text PRIMARY KEY NOT NULL,
	"failures" bigint NOT NULL,
	"window_started_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "signing_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"alg" text NOT NULL,
	"public_jwk" text NOT NULL,
	"private_jwk" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "studio_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" bigint NOT NULL,
	"last_seen_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"revoked_at" bigint,
	"user_agent" text,
	"address" text
);
--> statement-breakpoint
CREATE TABLE "oauth_connections" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"state_hash" text NOT NULL,
	"status" text NOT NULL,
	"provider" text NOT NULL,
	"issuer" text,
	"metadata" text,
	"authorization_url" text NOT NULL,
	"token_url" text NOT NULL,
	"client_id" text NOT NULL,
	"scopes" text NOT NULL,
	"auth_method" text NOT NULL,
	"sealed" text NOT NULL,
	"target_secret_id" text,
	"result_secret_id" text,
	"error_code" text,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"finished_at" bigint
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resources" ADD CONSTRAINT "resources_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_message_id_webhook_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."webhook_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_messages" ADD CONSTRAINT "webhook_messages_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_secrets" ADD CONSTRAINT "webhook_secrets_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "secret_fields" ADD CONSTRAINT "secret_fields_secret_id_secrets_id_fk" FOREIGN KEY ("secret_id") REFERENCES "public"."secrets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "secret_fields" ADD CONSTRAINT "secret_fields_kek_id_vault_keys_id_fk" FOREIGN KEY ("kek_id") REFERENCES "public"."vault_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "secrets" ADD CONSTRAINT "secrets_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tools" ADD CONSTRAINT "tools_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tools" ADD CONSTRAINT "tools_secret_id_secrets_id_fk" FOREIGN KEY ("secret_id") REFERENCES "public"."secrets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_chat_messages" ADD CONSTRAINT "agent_chat_messages_chat_id_agent_chats_id_fk" FOREIGN KEY ("chat_id") REFERENCES "public"."agent_chats"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_chats" ADD CONSTRAINT "agent_chats_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_chats" ADD CONSTRAINT "agent_chats_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_tools" ADD CONSTRAINT "agent_tools_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_tools" ADD CONSTRAINT "agent_tools_tool_id_tools_id_fk" FOREIGN KEY ("tool_id") REFERENCES "public"."tools"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_secret_id_secrets_id_fk" FOREIGN KEY ("secret_id") REFERENCES "public"."secrets"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "client_keys" ADD CONSTRAINT "client_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "client_keys" ADD CONSTRAINT "client_keys_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_tokens" ADD CONSTRAINT "account_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "studio_sessions" ADD CONSTRAINT "studio_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_connections" ADD CONSTRAINT "oauth_connections_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_idx" ON "api_keys" USING btree ("hash");--> statement-breakpoint
CREATE INDEX "api_keys_user_idx" ON "api_keys" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "jobs_due_idx" ON "jobs" USING btree ("status","run_at");--> statement-breakpoint
CREATE INDEX "jobs_resource_idx" ON "jobs" USING btree ("resource_id");--> statement-breakpoint
CREATE INDEX "resources_user_kind_created_idx" ON "resources" USING btree ("user_id","kind","created_at","id");--> statement-breakpoint
CREATE INDEX "webhook_attempts_message_idx" ON "webhook_attempts" USING btree ("message_id","attempt");--> statement-breakpoint
CREATE INDEX "webhook_messages_due_idx" ON "webhook_messages" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "webhook_messages_user_idx" ON "webhook_messages" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "webhook_messages_resource_idx" ON "webhook_messages" USING btree ("resource_id");--> statement-breakpoint
CREATE INDEX "audit_events_user_idx" ON "audit_events" USING btree ("user_id","at","id");--> statement-breakpoint
CREATE INDEX "secret_fields_kek_idx" ON "secret_fields" USING btree ("kek_id");--> statement-breakpoint
CREATE INDEX "secrets_user_idx" ON "secrets" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "tools_user_idx" ON "tools" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "tools_secret_idx" ON "tools" USING btree ("secret_id");--> statement-breakpoint
CREATE INDEX "compute_tasks_due_idx" ON "compute_tasks" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "compute_tasks_job_idx" ON "compute_tasks" USING btree ("job_id");--> statement-breakpoint
CREATE UNIQUE INDEX "compute_workers_token_idx" ON "compute_workers" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "agent_chats_agent_idx" ON "agent_chats" USING btree ("user_id","agent_id","created_at","id");--> statement-breakpoint
CREATE INDEX "agent_tools_tool_idx" ON "agent_tools" USING btree ("tool_id");--> statement-breakpoint
CREATE INDEX "agents_user_idx" ON "agents" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "agents_secret_idx" ON "agents" USING btree ("secret_id");--> statement-breakpoint
CREATE UNIQUE INDEX "client_keys_hash_idx" ON "client_keys" USING btree ("hash");--> statement-breakpoint
CREATE INDEX "client_keys_agent_idx" ON "client_keys" USING btree ("agent_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "account_tokens_token_idx" ON "account_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "account_tokens_user_idx" ON "account_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "accounts_email_idx" ON "accounts" USING btree ("email");--> statement-breakpoint
CREATE UNIQUE INDEX "studio_sessions_token_idx" ON "studio_sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "studio_sessions_user_idx" ON "studio_sessions" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_connections_state_idx" ON "oauth_connections" USING btree ("state_hash");--> statement-breakpoint
CREATE INDEX "oauth_connections_user_idx" ON "oauth_connections" USING btree ("user_id","created_at");