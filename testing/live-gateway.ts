import { afterAll, beforeAll } from "vitest";
import { startTestGateway, type TestGateway } from "./ocpp";

/**
 * The live gateway of a test file (or of the `describe` it is called in): `startTestGateway`
 * started before its tests and closed after them. Read its fields inside the tests (or hooks
 * registered after this one): they exist once it started.
 */
export function aLiveGateway(
  options: Parameters<typeof startTestGateway>[0] = {},
): Pick<TestGateway, "url" | "gateway" | "jobs" | "sandbox" | "certificates" | "domainTlsPort"> {
  let started: TestGateway | undefined;
  beforeAll(async () => {
    started = await startTestGateway(options);
  });
  afterAll(async () => {
    await started?.close();
  });
  const live = () => {
    if (!started) throw new Error("The gateway starts in beforeAll: read it in a test or a hook.");
    return started;
  };
  return {
    get url() {
      return live().url;
    },
    get gateway() {
      return live().gateway;
    },
    get jobs() {
      return live().jobs;
    },
    get sandbox() {
      return live().sandbox;
    },
    get certificates() {
      return live().certificates;
    },
    get domainTlsPort() {
      return live().domainTlsPort;
    },
  };
}
