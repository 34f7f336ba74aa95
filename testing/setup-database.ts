import crypto from "node:crypto";
import pg from "pg";
import { afterAll, inject } from "vitest";
import { embeddedUrl } from "../server/db/embedded";

/**
 * Gives this test file a database of its own, cloned from the migrated template, before any
 * server module reads DATABASE_URL.
 */
const port = inject("pgPort");
const name = `t_${crypto.randomBytes(6).toString("hex")}`;
const admin = new pg.Client({ connectionString: embeddedUrl(port, "postgres") });
await admin.connect();
await admin.query(`CREATE DATABASE ${name} TEMPLATE cp_template`);
await admin.end();
process.env.DATABASE_URL = embeddedUrl(port, name);
process.env.SERVICE_ENV ??= "test";
process.env.SECRET_KEY ??= crypto.randomBytes(32).toString("base64");

afterAll(async () => {
  const { closeDb } = await import("../server/db");
  await closeDb();
});
