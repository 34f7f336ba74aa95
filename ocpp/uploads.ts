import type http from "node:http";
import type { Db } from "../server/db";
import { inTransaction } from "../server/db/retry";
import { MAX_UPLOAD_BYTES } from "../server/device-jobs/device-job-schema";
import { uploadReceived } from "../server/device-jobs/record-status";

const UPLOAD_PATH = /^\/uploads\/([A-Za-z0-9]{32})(?:\/([^/?]{1,255}))?(?:\?.*)?$/;

function answer(res: http.ServerResponse, status: number, code: string, message: string) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(
    JSON.stringify(status < 300 ? { status: "stored" } : { error: { code, message, details: {} } }),
  );
}

/**
 * A charger's diagnostics/log upload (OCPP 1.6 GetDiagnostics `location`, 2.x GetLog
 * `remoteLocation`): `PUT` or `POST /uploads/<token>[/<file name>]`, the body raw or
 * `multipart/form-data` (its first file part is kept). The token (in the URL the service handed out
 * for that one request) is the only credential. At most `MAX_UPLOAD_BYTES` (413 beyond, read no
 * further); an unknown token is 404. True when the request was an upload (answered here).
 */
export function answerUpload(db: Db, req: http.IncomingMessage, res: http.ServerResponse) {
  const match = req.url ? UPLOAD_PATH.exec(req.url) : null;
  if (!match || (req.method !== "PUT" && req.method !== "POST")) return false;
  const token = match[1]!;
  let name = match[2] ? decodeURIComponent(match[2]) : null;
  const chunks: Buffer[] = [];
  let size = 0;
  let refused = false;
  req.on("data", (chunk: Buffer) => {
    if (refused) return;
    size += chunk.length;
    // multipart framing adds a little: allow it, the file itself is checked below
    if (size > MAX_UPLOAD_BYTES + 64 * 1024) {
      refused = true;
      answer(res, 413, "upload_too_large", `An upload is at most ${MAX_UPLOAD_BYTES} bytes.`);
      req.destroy();
      return;
    }
    chunks.push(chunk);
  });
  req.on("error", () => res.destroy());
  req.on("end", () => {
    if (refused) return;
    let bytes: Buffer = Buffer.concat(chunks);
    const type = req.headers["content-type"] ?? "";
    const boundary = /multipart\/form-data;.*boundary="?([^";]+)"?/i.exec(type)?.[1];
    if (boundary) {
      const part = firstFilePart(bytes, boundary);
      if (!part) return answer(res, 400, "validation_failed", "The multipart body has no file.");
      bytes = part.bytes;
      name = part.name ?? name;
    }
    if (bytes.length > MAX_UPLOAD_BYTES)
      return answer(
        res,
        413,
        "upload_too_large",
        `An upload is at most ${MAX_UPLOAD_BYTES} bytes.`,
      );
    inTransaction(db, (tx) => uploadReceived(tx, token, { bytes, name }))
      .then((stored) =>
        stored
          ? answer(res, 201, "", "")
          : answer(res, 404, "not_found", "No diagnostics request has this upload URL."),
      )
      .catch(() => answer(res, 500, "internal_error", "The upload could not be stored."));
  });
  return true;
}

/** The first part of a multipart body that carries a file (or the first part at all). */
function firstFilePart(body: Buffer, boundary: string) {
  const delimiter = Buffer.from(`--${boundary}`);
  let start = body.indexOf(delimiter);
  let first: { bytes: Buffer; name: string | null } | null = null;
  while (start >= 0) {
    const headersStart = start + delimiter.length + 2; // CRLF
    const next = body.indexOf(delimiter, headersStart);
    if (next < 0) break;
    const headerEnd = body.indexOf("\r\n\r\n", headersStart);
    if (headerEnd < 0 || headerEnd > next) break;
    const headers = body.subarray(headersStart, headerEnd).toString("latin1");
    const bytes = body.subarray(headerEnd + 4, next - 2); // CRLF before the delimiter
    const name = /filename="([^"]*)"/i.exec(headers)?.[1] ?? null;
    if (name !== null) return { bytes, name };
    first ??= { bytes, name: null };
    start = next;
  }
  return first;
}
