
CREATE TABLE "messages" (
   "hash" TEXT PRIMARY KEY,
   "parent_hash" TEXT REFERENCES "messages"("hash"),
   "role" TEXT,
   "provider_metadata" TEXT
);
CREATE TABLE "parts" (
   "id" INTEGER PRIMARY KEY,
   "message_hash" TEXT REFERENCES "messages"("hash"),
   "position" INTEGER,
   "type" TEXT,
   "tool_name" TEXT,
   "text" TEXT,
   "payload" TEXT
);
CREATE TABLE "part_attachments" (
   "part_id" INTEGER REFERENCES "parts"("id"),
   "attachment_id" TEXT REFERENCES "attachments"("id"),
   "order" INTEGER,
   PRIMARY KEY ("part_id", "attachment_id", "order")
);
CREATE TABLE "part_fragments" (
   "part_id" INTEGER REFERENCES "parts"("id"),
   "fragment_id" INTEGER REFERENCES "fragments"("id"),
   "order" INTEGER,
   PRIMARY KEY ("part_id", "fragment_id", "order")
);
CREATE TABLE "threads" (
   "id" TEXT PRIMARY KEY,
   "name" TEXT,
   "tip_message_hash" TEXT REFERENCES "messages"("hash"),
   "forked_from" TEXT REFERENCES "threads"("id"),
   "datetime_utc" TEXT
);
CREATE TABLE "turns" (
   "id" TEXT PRIMARY KEY,
   "thread_id" TEXT REFERENCES "threads"("id"),
   "parent_message_hash" TEXT REFERENCES "messages"("hash"),
   "tip_message_hash" TEXT REFERENCES "messages"("hash"),
   "model" TEXT,
   "resolved_model" TEXT,
   "options_json" TEXT,
   "schema_id" TEXT REFERENCES "schemas"("id"),
   "input_tokens" INTEGER,
   "output_tokens" INTEGER,
   "token_details" TEXT,
   "duration_ms" INTEGER,
   "datetime_utc" TEXT
, "response_json" TEXT);
CREATE TABLE "turn_fragments" (
   "turn_id" TEXT REFERENCES "turns"("id"),
   "fragment_id" INTEGER REFERENCES "fragments"("id"),
   "order" INTEGER,
   "kind" TEXT,
   PRIMARY KEY ("turn_id", "fragment_id", "kind", "order")
);
CREATE TABLE "turn_search" (
   "id" INTEGER PRIMARY KEY,
   "turn_id" TEXT REFERENCES "turns"("id"),
   "prompt" TEXT,
   "response" TEXT
);
CREATE TABLE "turn_tools" (
   "turn_id" TEXT REFERENCES "turns"("id"),
   "tool_id" INTEGER REFERENCES "tools"("id"),
   "instance_id" INTEGER REFERENCES "tool_instances"("id"),
   PRIMARY KEY ("turn_id", "tool_id")
);
CREATE INDEX "idx_messages_parent_hash"
    ON "messages" ("parent_hash");
CREATE UNIQUE INDEX "idx_parts_message_hash_position"
    ON "parts" ("message_hash", "position");
CREATE INDEX "idx_part_fragments_fragment_id"
    ON "part_fragments" ("fragment_id");
CREATE INDEX "idx_turns_thread_id"
    ON "turns" ("thread_id");
CREATE INDEX "idx_turn_fragments_fragment_id"
    ON "turn_fragments" ("fragment_id");
CREATE UNIQUE INDEX "idx_turn_search_turn_id"
    ON "turn_search" ("turn_id");
CREATE VIRTUAL TABLE "turn_search_fts" USING FTS5 (
    "prompt", "response",
    content="turn_search"
);
CREATE TRIGGER "turn_search_ai" AFTER INSERT ON "turn_search" BEGIN
  INSERT INTO "turn_search_fts" (rowid, "prompt", "response") VALUES (new.rowid, new."prompt", new."response");
END;
CREATE TRIGGER "turn_search_ad" AFTER DELETE ON "turn_search" BEGIN
  INSERT INTO "turn_search_fts" ("turn_search_fts", rowid, "prompt", "response") VALUES('delete', old.rowid, old."prompt", old."response");
END;
CREATE TRIGGER "turn_search_au" AFTER UPDATE ON "turn_search" BEGIN
  INSERT INTO "turn_search_fts" ("turn_search_fts", rowid, "prompt", "response") VALUES('delete', old.rowid, old."prompt", old."response");
  INSERT INTO "turn_search_fts" (rowid, "prompt", "response") VALUES (new.rowid, new."prompt", new."response");
END;
CREATE TABLE "tool_instantiations" (
   "turn_id" TEXT REFERENCES "turns"("id"),
   "tool_call_id" TEXT,
   "instance_id" INTEGER REFERENCES "tool_instances"("id"),
   PRIMARY KEY ("turn_id", "tool_call_id")
);
CREATE VIEW "message_tree" AS with recursive msg as (
  select m.hash, m.parent_hash, m.role, m.rowid as rid,
    replace(coalesce(
      nullif(p.text, ''),
      (select f.content from part_fragments pf
       join fragments f on f.id = pf.fragment_id
       where pf.part_id = p.id
       order by pf."order" limit 1),
      '[' || coalesce(p.type, 'empty') || ']'
    ), char(10), ' ') as text,
    (select group_concat(p2.tool_name, ', ') from parts p2
     where p2.message_hash = m.hash and p2.type = 'tool_result'
       and p2.tool_name is not null) as tools
  from messages m
  left join parts p on p.message_hash = m.hash and p.position = 0
),
tree as (
  select hash, text, tools, 0 as depth,
    printf('%012d', rid) as path, hash as root_hash
  from msg where parent_hash is null
  union all
  select msg.hash, msg.text, msg.tools, t.depth + 1,
    t.path || '/' || printf('%012d', msg.rid),
    t.root_hash
  from msg join tree t on msg.parent_hash = t.hash
),
turn_chain as (
  select t.id as turn_id, t.datetime_utc, m.hash, m.parent_hash
  from turns t join messages m on m.hash = t.tip_message_hash
  union all
  select tc.turn_id, tc.datetime_utc, m.hash, m.parent_hash
  from turn_chain tc join messages m on m.hash = tc.parent_hash
)
select
  t.root_hash,
  strftime('%Y-%m-%d %H:%M:%S',
    (select min(tc.datetime_utc) from turn_chain tc where tc.hash = t.hash)
  ) as datetime,
  replace(hex(zeroblob(t.depth)), '00', '    ') || substr(t.text, 1, 60)
    as message,
  coalesce(t.tools, '') as tools,
  t.hash as message_hash,
  t.path
from tree t
order by t.path;
