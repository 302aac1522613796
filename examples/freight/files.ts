// Files without `file.host`: a document's `content` is a `$file` marker Realmgate turns into a link that calls
// stream_file here; attach_pod's `$upload` slot brings the bytes back through receive_upload on the shipment's ref,
// which files them as a new document of that shipment (the bytes live in the desk's own database).
import { randomBytes } from "node:crypto";
import { conflict, invalidInput, notFound, tooLarge } from "../../provider-kit/errors";
import type { AuthContext, OperationInputs, OperationResults, StreamedFile } from "../../provider-kit/types";
import { actedBy, guessContentType } from "./actions";
import type { Db } from "./db";
import { makeRef, parseRef } from "./refs";
import { rowById, type ShipmentRow } from "./store";

/** The desk's own limit on one proof of delivery (Realmgate's file bound is 16 MiB). */
export const MAX_UPLOAD_BYTES = 8 * 1024 * 1024;

export async function streamFile(db: Db, input: OperationInputs["stream_file"]): Promise<StreamedFile> {
  const ref = typeof input.ref === "string" ? parseRef(input.ref) : null;
  if (!ref || ref.kind !== "freight.document") throw invalidInput("only a freight:document ref has a file", "ref");
  const res = await db.query<{ filename: string; content_type: string; content: Uint8Array }>("select filename, content_type, content from documents where id = $1", [ref.id]);
  const doc = res.rows[0];
  if (!doc) throw notFound(`no document ${input.ref}`);
  return { content_type: doc.content_type, filename: doc.filename, bytes: new Uint8Array(doc.content) };
}

/** Short lowercase ids for new documents: `d` and 10 base-36 characters. */
const newDocumentId = () => `d${BigInt(`0x${randomBytes(8).toString("hex")}`).toString(36).slice(0, 10).padStart(10, "0")}`;

export async function receiveUpload(db: Db, ctx: AuthContext, input: OperationInputs["receive_upload"], now: Date): Promise<OperationResults["receive_upload"]> {
  const ref = typeof input.ref === "string" ? parseRef(input.ref) : null;
  if (!ref || ref.kind !== "freight.shipment") throw invalidInput("uploads go to a shipment (attach_pod's slot)", "ref");
  const s = await rowById<ShipmentRow>(db, "freight.shipment", ref.id);
  if (!s) throw notFound(`no shipment ${input.ref}`);
  if (s.status === "cancelled") throw conflict(`${s.reference} is cancelled; it takes no proof of delivery`, { status: s.status });
  if (input.bytes.byteLength === 0) throw invalidInput("the upload is empty", "bytes");
  if (input.bytes.byteLength > MAX_UPLOAD_BYTES) throw tooLarge(MAX_UPLOAD_BYTES);
  const filename = (typeof input.name === "string" && input.name.trim()) || `pod-${s.reference}`;
  // The PUT's own type describes the bytes; the slot's (from attach_pod) is the fallback for a generic one.
  const put = typeof input.content_type === "string" ? input.content_type.split(";")[0]!.trim() : "";
  const contentType = put && put !== "application/octet-stream" ? put : (input.params?.content_type ?? guessContentType(filename));
  const id = newDocumentId();
  await db.query(
    "insert into documents (id, shipment_id, filename, content_type, size, uploaded_by, uploaded_at, content) values ($1, $2, $3, $4, $5, $6, $7, $8)",
    [id, s.id, filename, contentType, input.bytes.byteLength, actedBy(ctx), now, input.bytes],
  );
  return { document: makeRef("document", id), shipment: makeRef("shipment", s.id), size: input.bytes.byteLength, filename, content_type: contentType };
}
