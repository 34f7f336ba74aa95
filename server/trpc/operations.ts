import { change, read } from "./route-procedure";

/**
 * The /v1 operations the console uses, each a tRPC procedure of the same name that runs the /v1
 * route itself (tenant access, role scopes, parsing, idempotency, the service and its presenter)
 * as the signed-in person, so the console can do exactly what that person could do with their
 * access token, no more. Reads are queries, changes mutations; each takes and gives the route's
 * own types.
 */
export const v1Procedures = {
  getMe: read("getMe"),
  listMyInvites: read("listMyInvites"),
  listProjects: read("listProjects"),
  listMembers: read("listMembers"),
  listInvites: read("listInvites"),
  listProjectApiKeys: read("listProjectApiKeys"),
  getTenant: read("getTenant"),
  listLocations: read("listLocations"),
  listStations: read("listStations"),
  getStation: read("getStation"),
  listStationFaults: read("listStationFaults"),
  listOperations: read("listOperations"),
  getOperation: read("getOperation"),
  listTransactions: read("listTransactions"),
  listEvents: read("listEvents"),
  listWebhooks: read("listWebhooks"),
  getWebhook: read("getWebhook"),
  listWebhookDeliveries: read("listWebhookDeliveries"),
  listTariffs: read("listTariffs"),
  getTariff: read("getTariff"),
  listBills: read("listBills"),
  getBill: read("getBill"),
  getPaymentAccount: read("getPaymentAccount"),
  listChargingSessions: read("listChargingSessions"),
  getChargingSession: read("getChargingSession"),
  listChargingSessionSettlementReports: read("listChargingSessionSettlementReports"),
  listChargingSessionOperations: read("listChargingSessionOperations"),
  listChargingSessionEvents: read("listChargingSessionEvents"),

  ensureWorkspace: change("ensureWorkspace"),
  createProject: change("createProject"),
  updateTenant: change("updateTenant"),
  acceptInvite: change("acceptInvite"),
  declineInvite: change("declineInvite"),
  changeMemberRole: change("changeMemberRole"),
  removeMember: change("removeMember"),
  createInvite: change("createInvite"),
  revokeInvite: change("revokeInvite"),
  createProjectApiKey: change("createProjectApiKey"),
  revokeProjectApiKey: change("revokeProjectApiKey"),
  createLocation: change("createLocation"),
  registerStation: change("registerStation"),
  deleteStation: change("deleteStation"),
  sendCommand: change("sendCommand"),
  setStationCredentials: change("setStationCredentials"),
  createWebhook: change("createWebhook"),
  disableWebhook: change("disableWebhook"),
  testWebhook: change("testWebhook"),
  createTariff: change("createTariff"),
  updateTariff: change("updateTariff"),
  deleteTariff: change("deleteTariff"),
  quoteTariff: change("quoteTariff"),
  connectPaymentAccount: change("connectPaymentAccount"),
  refreshPaymentAccount: change("refreshPaymentAccount"),
  disconnectPaymentAccount: change("disconnectPaymentAccount"),
  stopChargingSession: change("stopChargingSession"),
  cancelChargingSession: change("cancelChargingSession"),
};

export type ConsoleOperation = keyof typeof v1Procedures;
