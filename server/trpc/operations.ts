/**
 * The /v1 operations the console uses. Each becomes a tRPC procedure of the same name that runs
 * the /v1 route itself (validation, tenant access, role scopes, idempotency, the service and its
 * presenter) as the signed-in person, so the console can do exactly what that person could do with
 * their access token, no more.
 */
export const CONSOLE_QUERIES = [
  "getMe",
  "listMyInvites",
  "listProjects",
  "listMembers",
  "listInvites",
  "listProjectApiKeys",
  "getTenant",
  "listLocations",
  "listStations",
  "getStation",
  "listStationFaults",
  "listOperations",
  "getOperation",
  "listTransactions",
  "listEvents",
  "listWebhooks",
  "getWebhook",
  "listWebhookDeliveries",
  "listTariffs",
  "getTariff",
] as const;

export const CONSOLE_MUTATIONS = [
  "ensureWorkspace",
  "createProject",
  "updateTenant",
  "acceptInvite",
  "declineInvite",
  "changeMemberRole",
  "removeMember",
  "createInvite",
  "revokeInvite",
  "createProjectApiKey",
  "revokeProjectApiKey",
  "createLocation",
  "registerStation",
  "deleteStation",
  "sendCommand",
  "setStationCredentials",
  "createWebhook",
  "disableWebhook",
  "testWebhook",
  "createTariff",
  "updateTariff",
  "deleteTariff",
  "quoteTariff",
] as const;

export type ConsoleOperation =
  (typeof CONSOLE_QUERIES)[number] | (typeof CONSOLE_MUTATIONS)[number];
