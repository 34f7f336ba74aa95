import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { processesNaming } from "../testing/processes";
import { loopback, startProduct, stopStartedProducts, type Product } from "./fixtures/product";

test.afterEach(stopStartedProducts);

/**
 * The first start of a fresh checkout (no console build yet): /v1 and the OCPP gateway answer
 * within 30 s while the console is built, its pages meanwhile a "starting" page; a second start in
 * the same checkout at the same time waits for that build instead of failing on it. Run on a copy
 * of this checkout as a clone has it (tracked and new files, the generated Prisma client and
 * node_modules as `npm install` leaves them; no .next).
 */

const ROOT = path.resolve(import.meta.dirname, "..");

function aFreshCheckout(): string {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), "cp-fresh-"));
  // As root, PostgreSQL runs as the `postgres` user, which must reach its binaries in the copy.
  fs.chmodSync(copy, 0o755);
  const files = execFileSync(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    {
      cwd: ROOT,
      encoding: "utf8",
    },
  )
    .split("\0")
    .filter((file) => file && fs.existsSync(path.join(ROOT, file)));
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(copy, file));
  }
  fs.cpSync(path.join(ROOT, "server", "generated"), path.join(copy, "server", "generated"), {
    recursive: true,
  });
  // node_modules as hard links (a second); a full copy where the folders are on two file systems.
  // Not a symbolic link: Next.js's bundler refuses a node_modules outside the checkout.
  const linked = spawnSync("cp", ["-al", path.join(ROOT, "node_modules"), copy]);
  if (linked.status !== 0)
    execFileSync("cp", ["-a", path.join(ROOT, "node_modules"), copy], { stdio: "ignore" });
  return copy;
}

/** ms from `from` until `url` answers 200. */
async function firstOk(url: string, from: number, product: Product): Promise<number> {
  let ended = false;
  void product.exited.then(() => (ended = true));
  for (;;) {
    if (ended) throw new Error(`npm start exited:\n${product.output()}`);
    try {
      const res = await fetch(url);
      await res.body?.cancel();
      if (res.status === 200) return Date.now() - from;
    } catch {
      /* not listening yet */
    }
    if (Date.now() - from > 120_000) throw new Error(`${url} never answered:\n${product.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test("a fresh checkout's first npm start: /v1 and OCPP answer within 30 s, the console says it is starting until its build is done, and a second start waits for that build", async () => {
  test.setTimeout(900_000);
  const checkout = aFreshCheckout();
  const products: Product[] = [];
  try {
    const startedAt = Date.now();
    const first = await startProduct({ root: checkout, waitFor: "nothing" });
    products.push(first);
    const api = await firstOk(`${loopback(first.baseUrl)}/v1/health`, startedAt, first);
    const ocpp = await firstOk(
      `${loopback(first.ocppUrl).replace("ws:", "http:")}/health`,
      startedAt,
      first,
    );
    expect(api).toBeLessThan(30_000);
    expect(ocpp).toBeLessThan(30_000);

    // The console is not built yet: a browser gets a page that refreshes itself, a program a 503
    // in the API's error shape; both say when to come back.
    const page = await fetch(`${loopback(first.baseUrl)}/console`, {
      headers: { accept: "text/html" },
    });
    expect(page.status).toBe(503);
    expect(page.headers.get("retry-after")).toBe("5");
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await page.text();
    expect(html).toContain("<h1>The console is starting</h1>");
    expect(html).toContain('<meta http-equiv="refresh" content="5">');
    const trpc = await fetch(`${loopback(first.baseUrl)}/api/trpc/me`);
    expect(trpc.status).toBe(503);
    expect(await trpc.json()).toMatchObject({ error: { code: "service_unavailable" } });
    // /v1 is the whole API meanwhile: its document, its errors.
    const openapi = await fetch(`${loopback(first.baseUrl)}/v1/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(((await openapi.json()) as { openapi: string }).openapi).toMatch(/^3\./);
    const unauthenticated = await fetch(`${loopback(first.baseUrl)}/v1/tenants/1/stations`);
    expect(unauthenticated.status).toBe(401);
    expect(await unauthenticated.json()).toMatchObject({ error: { code: "unauthenticated" } });
    expect(first.output()).toContain("building the console (first start, or its sources changed)");

    // A second start in the same checkout meanwhile (its own data folder and ports): it serves
    // /v1 too, and waits for the first one's build instead of running (and failing) a second one.
    const second = await startProduct({ root: checkout, waitFor: "api" });
    products.push(second);
    expect(second.output()).toContain(
      `waiting for the console build of npm start (pid ${first.pid("npm start")})`,
    );

    await first.ready("console");
    const consoleReady = Date.now() - startedAt;
    await second.ready("console");
    const signIn = await fetch(`${loopback(first.baseUrl)}/console`, {
      headers: { accept: "text/html" },
      redirect: "manual",
    });
    expect(signIn.status).not.toBe(503);
    expect(first.output().match(/^build \| .*Next\.js/gm)).toHaveLength(1);
    expect(second.output()).not.toMatch(/^build \| /m);
    expect(second.output()).not.toContain("Another next build process is already running");
    console.log(
      `first start of a fresh checkout: /v1/health ${api} ms, OCPP /health ${ocpp} ms, console ${consoleReady} ms`,
    );
  } finally {
    for (const product of products) await product.stop();
    for (const product of products) expect(processesNaming(product.dataDir)).toEqual([]);
    fs.rmSync(checkout, { recursive: true, force: true });
  }
});
