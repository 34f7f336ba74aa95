import http from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../db";
import { TokenError, verifyAccessToken } from "./access-tokens";

/** An external identity provider: a discovery document and a key set over real HTTP. */
let server: http.Server;
let userinfoCalls = 0;
let issuer = "";
let sign: (claims: Record<string, unknown>, audience?: string) => Promise<string>;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "ext-1", alg: "RS256", use: "sig" };
  server = http.createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.url === "/.well-known/openid-configuration") {
      res.end(
        JSON.stringify({
          issuer,
          jwks_uri: `${issuer}/jwks`,
          userinfo_endpoint: `${issuer}/userinfo`,
        }),
      );
    } else if (req.url === "/userinfo") {
      userinfoCalls += 1;
      if (req.headers.authorization === "Bearer opaque-good-token") {
        res.end(JSON.stringify({ sub: "ext-user-2", email: "two@example.com" }));
      } else res.writeHead(401).end("{}");
    } else if (req.url === "/jwks") res.end(JSON.stringify({ keys: [jwk] }));
    else res.writeHead(404).end("{}");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sign = (claims, audience = "api://charge") =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", kid: "ext-1" })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject("ext-user-1")
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(privateKey);
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

const external = () => ({
  kind: "external" as const,
  issuer,
  clientId: "charge",
  clientSecret: "s",
  audience: "api://charge",
});

describe("access tokens of an external OpenID Connect provider", () => {
  it("are verified against the keys its discovery document names", async () => {
    const verified = await verifyAccessToken(db(), await sign({ scope: "openid" }), external());
    expect(verified).toMatchObject({ issuer, subject: "ext-user-1" });
  });

  it("are refused for another audience, another issuer or a bad signature", async () => {
    await expect(
      verifyAccessToken(db(), await sign({}, "api://other"), external()),
    ).rejects.toBeInstanceOf(TokenError);
    await expect(
      verifyAccessToken(db(), await sign({}), {
        ...external(),
        issuer: "https://elsewhere.example",
      }),
    ).rejects.toThrow(/another issuer/);
    const token = await sign({});
    const [h, p] = token.split(".");
    await expect(
      verifyAccessToken(db(), `${h}.${p}.${"A".repeat(342)}`, external()),
    ).rejects.toBeInstanceOf(TokenError);
  });

  it("are checked at the userinfo endpoint when opaque, and that answer is reused for a minute", async () => {
    const first = await verifyAccessToken(db(), "opaque-good-token", external());
    expect(first).toMatchObject({ issuer, subject: "ext-user-2" });
    const calls = userinfoCalls;
    await verifyAccessToken(db(), "opaque-good-token", external());
    expect(userinfoCalls).toBe(calls);
    await expect(verifyAccessToken(db(), "opaque-bad-token", external())).rejects.toThrow(/401/);
  });
});
