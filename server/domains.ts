/**
 * Every domain's additions to the registries of the layers below it, in one place (as
 * `server/http/routes/index.ts` is for routes): the operation kinds (`server/operations/kinds`),
 * the charger-transaction hooks (`server/charger-reports/transaction-hooks.ts`) and the sandbox
 * chargers' ready hooks (`server/sandbox/charger-hooks.ts`). Those layers know no domain by name; a process has every domain's part once it imported this module, and
 * each one does so at its entry: the web process through the route table, the ocpp process in
 * `ocpp/main.ts` and `ocpp/gateway.ts`, the job runner's definitions (`background-jobs.ts`), the
 * CLI (`cli/admin.ts`) and the tests' setup (`testing/setup-domains.ts`). A registry read before
 * throws rather than go without a domain.
 */
import { billCap } from "./bills/operation-kinds/bill-cap";
import { billCostUpdate } from "./bills/operation-kinds/bill-cost-update";
import { billStart } from "./bills/operation-kinds/bill-start";
import {
  chargingProfileClear,
  chargingProfileSet,
  chargingProfilesReport,
  compositeScheduleRead,
} from "./charging-profiles/operation-kinds";
import { billTransactionHooks } from "./bills/transaction-hooks";
import { chargingProfileTransactionHooks } from "./charging-profiles/transaction-hooks";
import { registerTransactionHooks } from "./charger-reports/transaction-hooks";
import { diagnosticsUpload } from "./device-jobs/operation-kinds/diagnostics-upload";
import { firmwareUpdate } from "./device-jobs/operation-kinds/firmware-update";
import { displayClear, displayPush } from "./displays/operation-kinds/display-push";
import { registerOperationKinds } from "./operations/kinds";
import { stationCommand } from "./operations/kinds/station-command";
import { stationCredentials } from "./operations/kinds/station-credentials";
import { registerSandboxChargerHooks } from "./sandbox/charger-hooks";
import { startSessionsOnReady } from "./sandbox/charger-ready";
import { sandboxTransactionHooks } from "./sandbox/transaction-hooks";
import { stationTransactionStatus } from "./operations/kinds/transaction-status";
import { sessionTransactionHooks } from "./sessions/charger-hooks";
import { siteLimitTransactionHooks } from "./site-limits/transaction-hooks";
import { stationConfigurationChange } from "./stations/operation-kinds/configuration-change";
import { stationConfigurationRead } from "./stations/operation-kinds/configuration-read";
import { externalStart } from "./sessions/operation-kinds/external-start";
import { externalStop } from "./sessions/operation-kinds/external-stop";
import {
  stationLocalListSend,
  stationLocalListVersion,
} from "./local-lists/operation-kinds/local-list";
import {
  stationReservation,
  stationReservationCancel,
} from "./reservations/operation-kinds/reserve";

registerOperationKinds([
  stationCommand,
  stationCredentials,
  billStart,
  billCostUpdate,
  billCap,
  externalStart,
  externalStop,
  displayPush,
  displayClear,
  stationConfigurationRead,
  stationConfigurationChange,
  stationTransactionStatus,
  chargingProfileSet,
  chargingProfileClear,
  compositeScheduleRead,
  chargingProfilesReport,
  firmwareUpdate,
  diagnosticsUpload,
  stationReservation,
  stationReservationCancel,
  stationLocalListSend,
  stationLocalListVersion,
]);

// In this order: a session's hooks (external or sandbox) read what its bill's decided (whether it
// took the transaction, whether it ended). A TxProfile ends with its transaction; a site limit's
// hooks only ask for its recomputation.
registerTransactionHooks([
  billTransactionHooks,
  sessionTransactionHooks,
  sandboxTransactionHooks,
  chargingProfileTransactionHooks,
  siteLimitTransactionHooks,
]);

// A sandbox station's virtual charger is ready: its starting sessions start now.
registerSandboxChargerHooks([startSessionsOnReady]);
