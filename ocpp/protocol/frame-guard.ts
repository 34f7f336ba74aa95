import WebSocket from "ws";

type SendOptions = Exclude<Parameters<WebSocket["send"]>[1], ((error?: Error) => void) | undefined>;

/** OCPP-J (1.6 and 2.x): "The message ID ... maximum length of 36 characters". */
export const MAX_MESSAGE_ID_LENGTH = 36;
/**
 * Deepest nesting of arrays and objects a frame may have, the frame array itself included. The
 * deepest official request payload (2.0.1/2.1 ReportChargingProfiles) nests 13 levels; the rest is
 * room for vendors' customData. Far below where JSON.stringify (ocpp-rpc echoing a payload back
 * in a schema error, Prisma writing JSON, the log) overflows the stack, which would close the
 * socket instead of answering.
 */
export const MAX_FRAME_DEPTH = 32;

const CALL = 2;
const CALLRESULT = 3;
const CALLERROR = 4;

/** What to do with one incoming frame before ocpp-rpc sees it. */
export type FrameVerdict =
  | { kind: "pass" }
  /** A response we will not read; the call it answers times out and becomes `unknown`. */
  | { kind: "drop" }
  /** Answer a CALLERROR (code in OCPP 2.x words; `wireErrorCode` translates) and keep the socket. */
  | { kind: "refuse"; messageId: string; code: string; description: string };

const refuse = (messageId: string, code: string, description: string): FrameVerdict => ({
  kind: "refuse",
  messageId,
  code,
  description,
});

/**
 * The OCPP-J frame checks ocpp-rpc does not make (message ID length, nesting depth) and those it
 * answers in OCPP 2.x words on every connection (unparseable frames, unknown message types).
 * Pure: the same text always gets the same verdict.
 */
export function inspectFrame(text: string): FrameVerdict {
  if (text.length === 0) return { kind: "pass" }; // ocpp-rpc ignores empty frames
  let frame: unknown;
  try {
    // V8's JSON.parse does not recurse, so any nesting under the frame size limit parses.
    frame = JSON.parse(text);
  } catch {
    return refuse("-1", "RpcFrameworkError", "The message is not JSON.");
  }
  if (!Array.isArray(frame) || typeof frame[0] !== "number")
    return refuse("-1", "RpcFrameworkError", "The message is not an OCPP-J array.");
  const [type, messageId, action] = frame as unknown[];
  const id = typeof messageId === "string" ? messageId : "-1";
  if (type !== CALL && type !== CALLRESULT && type !== CALLERROR)
    return refuse(id, "MessageTypeNotSupported", `Message type ${String(type)} is not supported.`);
  const tooDeep = depthExceeds(frame, MAX_FRAME_DEPTH);
  if (type !== CALL) return tooDeep ? { kind: "drop" } : { kind: "pass" };
  if (typeof messageId !== "string")
    return refuse("-1", "RpcFrameworkError", "The message ID must be a string.");
  if (messageId.length > MAX_MESSAGE_ID_LENGTH)
    return refuse(
      messageId,
      "RpcFrameworkError",
      `The message ID is longer than ${MAX_MESSAGE_ID_LENGTH} characters.`,
    );
  if (typeof action !== "string")
    return refuse(messageId, "RpcFrameworkError", "The action must be a string.");
  if (tooDeep)
    return refuse(
      messageId,
      "FormatViolation",
      `The payload nests deeper than ${MAX_FRAME_DEPTH - 1} levels.`,
    );
  return { kind: "pass" };
}

/** True when arrays and objects nest deeper than `limit`; iterative, so any depth is safe. */
export function depthExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node))
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return false;
}

const V16_CODES = new Set([
  "NotImplemented",
  "NotSupported",
  "InternalError",
  "ProtocolError",
  "SecurityError",
  "FormationViolation",
  "PropertyConstraintViolation",
  "OccurenceConstraintViolation",
  "TypeConstraintViolation",
  "GenericError",
]);
const V2_CODES = new Set([
  "FormatViolation",
  "GenericError",
  "InternalError",
  "MessageTypeNotSupported",
  "NotImplemented",
  "NotSupported",
  "OccurrenceConstraintViolation",
  "PropertyConstraintViolation",
  "ProtocolError",
  "RpcFrameworkError",
  "SecurityError",
  "TypeConstraintViolation",
]);

/**
 * The CALLERROR code as the connection's protocol names it. OCPP-J 1.6 keeps its spellings
 * `FormationViolation` and `OccurenceConstraintViolation` (1.6J errata v1.0, section 5, "known
 * issues that will not be fixed"; ocpp-rpc sends the 2.x spelling of the latter on 1.6) and has
 * no `RpcFrameworkError` or `MessageTypeNotSupported`: a frame that is not a well-formed OCPP-J
 * message is a `FormationViolation` there ("not conform the PDU structure"). Codes a protocol does
 * not define become its `GenericError`.
 */
export function wireErrorCode(protocol: string, code: string): string {
  if (protocol === "ocpp1.6") {
    const named =
      code === "FormatViolation" ||
      code === "RpcFrameworkError" ||
      code === "MessageTypeNotSupported"
        ? "FormationViolation"
        : code === "OccurrenceConstraintViolation"
          ? "OccurenceConstraintViolation"
          : code;
    return V16_CODES.has(named) ? named : "GenericError";
  }
  const named =
    code === "FormationViolation"
      ? "FormatViolation"
      : code === "OccurenceConstraintViolation"
        ? "OccurrenceConstraintViolation"
        : code;
  return V2_CODES.has(named) ? named : "GenericError";
}

/** An outgoing CALLERROR frame with its code in the protocol's words; other frames unchanged. */
export function inProtocolWords(protocol: string, frame: string): string {
  if (!frame.startsWith(`[${CALLERROR},`)) return frame;
  const parsed = JSON.parse(frame) as unknown[];
  const code = parsed[2];
  if (typeof code !== "string") return frame;
  const named = wireErrorCode(protocol, code);
  if (named === code) return frame;
  parsed[2] = named;
  return JSON.stringify(parsed);
}

/**
 * The gateway's websocket class (ws's `WebSocket` option, through ocpp-rpc's `wssOptions`): every
 * incoming frame passes `inspectFrame` before ocpp-rpc parses it, and every CALLERROR leaving
 * passes `inProtocolWords`. ocpp-rpc offers no hook for either: it answers frame errors itself
 * (in 2.x words, after emitting 'badMessage') and does not check message ID length or depth.
 */
export class GuardedSocket extends WebSocket {
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event !== "message" || !Buffer.isBuffer(args[0])) return super.emit(event, ...args);
    const verdict = inspectFrame(args[0].toString("utf8"));
    if (verdict.kind === "pass") return super.emit(event, ...args);
    if (verdict.kind === "refuse")
      this.send(
        JSON.stringify([CALLERROR, verdict.messageId, verdict.code, verdict.description, {}]),
      );
    return true;
  }

  override send(
    data: Parameters<WebSocket["send"]>[0],
    options?: SendOptions | ((error?: Error) => void),
    callback?: (error?: Error) => void,
  ): void {
    const frame = typeof data === "string" ? inProtocolWords(this.protocol, data) : data;
    if (typeof options === "function") super.send(frame, options);
    else super.send(frame, options ?? {}, callback);
  }
}
