-- CreateTable
CREATE TABLE "workspace_events" (
    "id" TEXT NOT NULL,
    "team_id" INTEGER NOT NULL,
    "sequence" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "data" JSONB NOT NULL,

    CONSTRAINT "workspace_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "workspace_events_team_id_sequence_key" ON "workspace_events"("team_id", "sequence");

-- AddForeignKey
ALTER TABLE "workspace_events" ADD CONSTRAINT "workspace_events_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;
