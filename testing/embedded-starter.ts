/**
 * A process that starts the embedded PostgreSQL on a data folder and keeps running, for tests of
 * what happens to the server when its starter dies (server/db/embedded.test.ts):
 *   node --conditions=react-server --import tsx testing/embedded-starter.ts <dataDir> [pid…]
 * The pids are processes the server should outlive if this one is killed. It prints one JSON line,
 * { pid, url, postgres }, once the server answers, and the server's decisions about a server it
 * found running on the folder as lines starting with "notice: ".
 */
import { startEmbeddedDatabase } from "../server/db/embedded";

const [dataDir, ...outlive] = process.argv.slice(2);
const database = await startEmbeddedDatabase({
  dataDir: dataDir!,
  notice: (line) => console.log(`notice: ${line}`),
});
database.outlive(outlive.map(Number));
console.log(JSON.stringify({ pid: process.pid, url: database.url, postgres: database.pid }));
process.on("SIGTERM", () => void database.stop().then(() => process.exit(0)));
setInterval(() => {}, 60_000);
