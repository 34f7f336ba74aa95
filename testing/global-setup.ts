import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { embeddedUrl, startEmbeddedDatabase } from "../server/db/embedded";
import { applyMigrations } from "../server/db/migrate";

export const TEMPLATE_DB = "cp_template";

declare module "vitest" {
  export interface ProvidedContext {
    pgPort: number;
  }
}

/** Starts one embedded PostgreSQL for the run and builds a migrated template database. */
export default async function setup(project: TestProject) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cp-test-"));
  const database = await startEmbeddedDatabase({ dataDir });
  const admin = new pg.Client({ connectionString: embeddedUrl(database.port, "postgres") });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB}`);
  await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  await admin.end();
  await applyMigrations(embeddedUrl(database.port, TEMPLATE_DB));
  project.provide("pgPort", database.port);
  return async () => {
    await database.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
}
