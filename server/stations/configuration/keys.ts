/**
 * Which charger configuration keys are guarded, and how (spec section 4, credentials rule 5;
 * section 5, `stations:admin`). A key is OCPP 1.6 `key`, or OCPP 2.x `variable` of `component`.
 * Names are compared without regard to case: a vendor's spelling must not slip past a guard.
 *
 * - **connection** keys change how the charger reaches the service (its URL, identity, security
 *   profile, network profiles): a wrong value locks it out. They need `stations:admin` and
 *   `confirm_connection_change: true`.
 * - **protected** keys decide who may charge (authorization behaviour): `stations:admin`.
 * - **password** keys are the charger's connection password: set only through
 *   `PUT …/credentials`, which keeps the service's stored password in step with the charger's.
 * - **secret** values (a name saying password, secret, passphrase or key material) are never kept
 *   in an operation's request or result, the station's last read, or an event.
 */
export type KeyRef = { component?: string | undefined; key: string };

const CONNECTION_VARIABLES = new Set(
  [
    "WebSocketURL",
    "OCPPID",
    "SecurityProfile",
    "Identity",
    "CpoName",
    "NetworkConfigurationPriority",
    "NetworkConnectionProfiles",
    "NetworkProfileConnectionAttempts",
    "BasicAuthPassword",
    "AuthorizationKey",
  ].map((k) => k.toLowerCase()),
);
/** 2.x components whose every variable is a connection key */
const CONNECTION_COMPONENTS = new Set(["securityctrlr"]);

const PROTECTED_VARIABLES = new Set(
  [
    // OCPP 1.6 core and local auth list profiles
    "AuthorizeRemoteTxRequests",
    "LocalAuthorizeOffline",
    "LocalPreAuthorize",
    "AllowOfflineTxForUnknownId",
    "AuthorizationCacheEnabled",
    "LocalAuthListEnabled",
    // common vendor keys that let anyone charge
    "FreeVendActive",
    "FreeVendIdTag",
  ].map((k) => k.toLowerCase()),
);
/** 2.x components whose every variable decides who may charge */
const PROTECTED_COMPONENTS = new Set(["authctrlr", "authcachectrlr", "localauthlistctrlr"]);

const PASSWORD_VARIABLES = new Set(["basicauthpassword", "authorizationkey"]);
const SECRET_NAME = /password|secret|passphrase|privatekey|authorizationkey/i;

const lower = (s: string | undefined) => (s ?? "").toLowerCase();

export function isConnectionKey({ component, key }: KeyRef): boolean {
  return CONNECTION_VARIABLES.has(lower(key)) || CONNECTION_COMPONENTS.has(lower(component));
}

/** Needs `stations:admin` to change: a connection key, or one that decides who may charge. */
export function isProtectedKey(ref: KeyRef): boolean {
  return (
    isConnectionKey(ref) ||
    PROTECTED_VARIABLES.has(lower(ref.key)) ||
    PROTECTED_COMPONENTS.has(lower(ref.component))
  );
}

export function isPasswordKey({ key }: KeyRef): boolean {
  return PASSWORD_VARIABLES.has(lower(key));
}

export function isSecretKey({ key }: KeyRef): boolean {
  return SECRET_NAME.test(key);
}

/** A key as events and results name it: `{ component, key }`, `component` null for OCPP 1.6. */
export const keyName = ({ component, key }: KeyRef) => ({ component: component ?? null, key });
