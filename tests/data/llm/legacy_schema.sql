
CREATE TABLE "_llm_migrations" (
   "name" TEXT PRIMARY KEY,
   "applied_at" TEXT
);
CREATE TABLE "conversations" (
   "id" TEXT PRIMARY KEY,
   "name" TEXT,
   "model" TEXT
);
CREATE TABLE "attachments" (
   "id" TEXT PRIMARY KEY,
   "type" TEXT,
   "path" TEXT,
   "url" TEXT,
   "content" BLOB
);
CREATE TABLE "prompt_attachments" (
   "response_id" TEXT REFERENCES "responses"("id"),
   "attachment_id" TEXT REFERENCES "attachments"("id"),
   "order" INTEGER,
   PRIMARY KEY ("response_id", "attachment_id")
);
CREATE TABLE "schemas" (
   "id" TEXT PRIMARY KEY,
   "content" TEXT
);
CREATE TABLE "responses" (
   "id" TEXT PRIMARY KEY,
   "model" TEXT,
   "prompt" TEXT,
   "system" TEXT,
   "prompt_json" TEXT,
   "options_json" TEXT,
   "response" TEXT,
   "response_json" TEXT,
   "conversation_id" TEXT REFERENCES "conversations"("id"),
   "duration_ms" INTEGER,
   "datetime_utc" TEXT,
   "input_tokens" INTEGER,
   "output_tokens" INTEGER,
   "token_details" TEXT,
   "schema_id" TEXT REFERENCES "schemas"("id")
, "resolved_model" TEXT);
CREATE TABLE "fragments" (
   "id" INTEGER PRIMARY KEY,
   "hash" TEXT,
   "content" TEXT,
   "datetime_utc" TEXT,
   "source" TEXT
);
CREATE TABLE "fragment_aliases" (
   "alias" TEXT PRIMARY KEY,
   "fragment_id" INTEGER REFERENCES "fragments"("id")
);
CREATE TABLE "prompt_fragments" (
   "response_id" TEXT REFERENCES "responses"("id"),
   "fragment_id" INTEGER REFERENCES "fragments"("id"),
   "order" INTEGER,
   PRIMARY KEY ("response_id", "fragment_id", "order")
);
CREATE TABLE "system_fragments" (
   "response_id" TEXT REFERENCES "responses"("id"),
   "fragment_id" INTEGER REFERENCES "fragments"("id"),
   "order" INTEGER,
   PRIMARY KEY ("response_id", "fragment_id", "order")
);
CREATE TABLE "tools" (
   "id" INTEGER PRIMARY KEY,
   "hash" TEXT,
   "name" TEXT,
   "description" TEXT,
   "input_schema" TEXT
, "plugin" TEXT);
CREATE TABLE "tool_responses" (
   "tool_id" INTEGER REFERENCES "tools"("id"),
   "response_id" TEXT REFERENCES "responses"("id"),
   PRIMARY KEY ("tool_id", "response_id")
);
CREATE TABLE "tool_calls" (
   "id" INTEGER PRIMARY KEY,
   "response_id" TEXT REFERENCES "responses"("id"),
   "tool_id" INTEGER REFERENCES "tools"("id"),
   "name" TEXT,
   "arguments" TEXT,
   "tool_call_id" TEXT
);
CREATE TABLE "tool_instances" (
   "id" INTEGER PRIMARY KEY,
   "plugin" TEXT,
   "name" TEXT,
   "arguments" TEXT
);
CREATE TABLE "tool_results" (
   "id" INTEGER PRIMARY KEY,
   "response_id" TEXT REFERENCES "responses"("id"),
   "tool_id" INTEGER REFERENCES "tools"("id"),
   "name" TEXT,
   "output" TEXT,
   "tool_call_id" TEXT,
   "instance_id" INTEGER REFERENCES "tool_instances"("id")
, "exception" TEXT);
CREATE UNIQUE INDEX "idx_fragments_hash"
    ON "fragments" ("hash");
CREATE UNIQUE INDEX "idx_tools_hash"
    ON "tools" ("hash");
CREATE VIRTUAL TABLE "responses_fts" USING FTS5 (
    "prompt", "response",
    content="responses"
);
CREATE TRIGGER "responses_ai" AFTER INSERT ON "responses" BEGIN
  INSERT INTO "responses_fts" (rowid, "prompt", "response") VALUES (new.rowid, new."prompt", new."response");
END;
CREATE TRIGGER "responses_ad" AFTER DELETE ON "responses" BEGIN
  INSERT INTO "responses_fts" ("responses_fts", rowid, "prompt", "response") VALUES('delete', old.rowid, old."prompt", old."response");
END;
CREATE TRIGGER "responses_au" AFTER UPDATE ON "responses" BEGIN
  INSERT INTO "responses_fts" ("responses_fts", rowid, "prompt", "response") VALUES('delete', old.rowid, old."prompt", old."response");
  INSERT INTO "responses_fts" (rowid, "prompt", "response") VALUES (new.rowid, new."prompt", new."response");
END;
CREATE TABLE "tool_results_attachments" (
   "tool_result_id" INTEGER REFERENCES "tool_results"("id"),
   "attachment_id" TEXT REFERENCES "attachments"("id"),
   "order" INTEGER,
   PRIMARY KEY ("tool_result_id", "attachment_id")
);
