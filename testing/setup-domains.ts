/**
 * What every process does at its start, for each test file: register every domain's operation
 * kinds and charger-transaction hooks (`server/domains.ts`). Runs after `setup-database.ts`, so
 * nothing reads DATABASE_URL before the file's own database is set.
 */
import "../server/domains";
