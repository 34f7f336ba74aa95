-- The virtual charger's protocol (server/sandbox/README.md): `ocpp2.0.1` or `ocpp1.6`
ALTER TABLE "sandbox_chargers" ADD COLUMN     "protocol" TEXT NOT NULL DEFAULT 'ocpp2.0.1';
ALTER TABLE "sandbox_chargers" ADD CONSTRAINT "sandbox_chargers_protocol_check"
  CHECK (protocol IN ('ocpp1.6', 'ocpp2.0.1'));

-- The sessions list's cursor (GET /v1/sessions, newest first)
ALTER TABLE "sandbox_sessions" ADD COLUMN     "number" SERIAL NOT NULL;
CREATE UNIQUE INDEX "sandbox_sessions_number_key" ON "sandbox_sessions"("number");

-- The workspace event log becomes the sandbox tenant's event log (GET /v1/events): every team
-- with workspace events gets its sandbox tenant now (the rest of the sandbox, its location,
-- stations and tariff, is provisioned on first use), and its events move there with their ids,
-- their order (sequence) and their times; the tenant's event counter continues after them.
INSERT INTO "tenants" ("team_id", "name", "kind")
SELECT t.id,
       CASE WHEN EXISTS (SELECT 1 FROM "tenants" x WHERE x.team_id = t.id AND x.name = 'Sandbox')
            THEN 'Sandbox (workspace ' || t.id || ')' ELSE 'Sandbox' END,
       'sandbox'
  FROM "teams" t
 WHERE EXISTS (SELECT 1 FROM "workspace_events" w WHERE w.team_id = t.id)
   AND NOT EXISTS (SELECT 1 FROM "tenants" s WHERE s.team_id = t.id AND s.kind = 'sandbox');

INSERT INTO "events" ("id", "tenant_id", "sequence", "type", "resource_id", "created_at", "data")
SELECT w.id, s.id, w.sequence, w.type, w.data ->> 'key_id', w.created_at, w.data
  FROM "workspace_events" w
  JOIN "tenants" s ON s.team_id = w.team_id AND s.kind = 'sandbox';

INSERT INTO "tenant_event_counters" ("tenant_id", "last_sequence")
SELECT s.id, max(w.sequence)
  FROM "workspace_events" w
  JOIN "tenants" s ON s.team_id = w.team_id AND s.kind = 'sandbox'
 GROUP BY s.id
ON CONFLICT ("tenant_id") DO UPDATE
  SET "last_sequence" = GREATEST("tenant_event_counters"."last_sequence", EXCLUDED."last_sequence");

-- DropForeignKey
ALTER TABLE "workspace_events" DROP CONSTRAINT "workspace_events_team_id_fkey";

-- DropTable
DROP TABLE "workspace_events";
