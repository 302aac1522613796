// The Slack actions — post a message, reply in a thread, react — and uploads: `request_upload` hands out a signed
// slot (lib/delivery), and the bytes PUT to it go through Slack's external upload flow with the workspace's token
// (`receiveUpload`). A post is never resent: when its answer is lost, the error says it may have been posted.
import { AppError, isAppError, parseWith } from "@/lib/errors";
import { MAX_LIVE_BYTES } from "@/lib/delivery/port";
import type { ActionDef, RealmContext, UploadInput } from "@/lib/realms/contract";
import { FILE_WRITE_CLAIMS, manifest, postPayload, reactionPayload, replyPayload, uploadPayload } from "./manifest";
import { findMessage } from "./read";
import { channelRef, fileRef, messageRef, parseSlackRef } from "./refs";
import { open, sendUploadBytes, slack } from "./wire";

const POST_UNCERTAIN = "The message may or may not have been posted: look at the channel before posting again.";
const UPLOAD_UNCERTAIN = "The file may or may not have been shared: look at the channel before uploading again.";

type Posted = { channel: string; ts: string };

export async function runAction(ctx: RealmContext, action: ActionDef, ref: string | null, payload: Record<string, unknown>) {
  const operation = `object.action.${action.name}`;
  const target = parseSlackRef(ref ?? "");
  const s = await open(ctx, operation, action.claims, { pinned: target.accountId });
  const acct = s.account.id;
  switch (action.name) {
    case "post_message": {
      if (target.type !== "channel") throw new AppError("invalid_input", "post_message runs on a slack.channel ref.", { details: { ref } });
      const p = parseWith(postPayload, payload, "post_message payload");
      const res = await slack<Posted>(s, "chat.postMessage", { json: { channel: target.channel, text: p.text } }, { once: POST_UNCERTAIN });
      return { posted: true, ref: messageRef(acct, res.channel, res.ts), channel: channelRef(acct, res.channel), account: s.account.label };
    }
    case "reply_in_thread": {
      if (target.type !== "message") throw new AppError("invalid_input", "reply_in_thread runs on a slack.message ref.", { details: { ref } });
      const p = parseWith(replyPayload, payload, "reply_in_thread payload");
      const m = await findMessage(s, target.channel, target.ts);
      const parent = m.thread_ts ?? m.ts; // a reply's thread is its parent's
      const res = await slack<Posted>(s, "chat.postMessage", { json: { channel: target.channel, text: p.text, thread_ts: parent, ...(p.also_send_to_channel ? { reply_broadcast: true } : {}) } }, { once: POST_UNCERTAIN });
      return { posted: true, ref: messageRef(acct, res.channel, res.ts), thread: messageRef(acct, target.channel, parent), account: s.account.label };
    }
    case "add_reaction": {
      if (target.type !== "message") throw new AppError("invalid_input", "add_reaction runs on a slack.message ref.", { details: { ref } });
      const p = parseWith(reactionPayload, payload, "add_reaction payload");
      try {
        await slack(s, "reactions.add", { json: { channel: target.channel, timestamp: target.ts, name: p.name } });
        return { ref: messageRef(acct, target.channel, target.ts), reaction: p.name, added: true };
      } catch (err) {
        // Slack's error word: in details (a session passing ok:false through) or in the refusal's text.
        const said = (word: string) => isAppError(err) && (err.details?.provider_error === word || err.message.includes(word));
        if (said("already_reacted")) return { ref: messageRef(acct, target.channel, target.ts), reaction: p.name, added: false, already_reacted: true };
        if (said("invalid_name")) throw new AppError("invalid_input", `Slack has no emoji named "${p.name}".`, { details: { field: "name" } });
        throw err;
      }
    }
    case "request_upload": {
      if (target.type !== "channel") throw new AppError("invalid_input", "request_upload runs on a slack.channel ref.", { details: { ref } });
      const p = parseWith(uploadPayload, payload, "request_upload payload");
      if (!ctx.delivery.liveUrl) throw new AppError("provider_unavailable", "This Realmgate cannot hand out upload slots.", { status: 503 });
      const params: Record<string, string> = {};
      if (p.title) params.title = p.title;
      if (p.comment) params.comment = p.comment;
      if (p.thread_ts) params.thread_ts = p.thread_ts;
      const slot = await ctx.delivery.liveUrl({ namespace: manifest.namespace, ref: channelRef(acct, target.channel), method: "PUT", name: p.filename, params });
      return { upload: { method: "PUT", url: slot.url, expires_at: slot.expires_at, max_bytes: MAX_LIVE_BYTES }, channel: channelRef(acct, target.channel), filename: p.filename, account: s.account.label };
    }
    default:
      throw new AppError("invalid_input", `slack has no action ${action.name}.`);
  }
}

/** Bytes PUT to a slot: files.getUploadURLExternal, the bytes to its URL, files.completeUploadExternal into the channel. */
export async function receiveUpload(ctx: RealmContext, input: UploadInput): Promise<Record<string, unknown>> {
  const target = parseSlackRef(input.ref);
  if (target.type !== "channel") throw new AppError("invalid_input", "Uploads go to a slack.channel.");
  if (input.bytes.byteLength === 0) throw new AppError("invalid_input", "The upload is empty: PUT the file's bytes.");
  const s = await open(ctx, "object.action.request_upload", FILE_WRITE_CLAIMS, { pinned: target.accountId });
  // Slack documents this method as form-encoded (no JSON body): its arguments go in the query, as for a GET.
  const slot = await slack<{ upload_url: string; file_id: string }>(s, "files.getUploadURLExternal", { filename: input.name, length: input.bytes.byteLength });
  await sendUploadBytes(ctx, s, slot.upload_url, input.bytes, input.contentType, UPLOAD_UNCERTAIN);
  const done = await slack<{ files?: { id: string; title?: string }[] }>(
    s,
    "files.completeUploadExternal",
    {
      json: {
        files: [{ id: slot.file_id, title: input.params.title ?? input.name }],
        channel_id: target.channel,
        ...(input.params.thread_ts ? { thread_ts: input.params.thread_ts } : {}),
        ...(input.params.comment ? { initial_comment: input.params.comment } : {}),
      },
    },
    { once: UPLOAD_UNCERTAIN },
  );
  const id = done.files?.[0]?.id ?? slot.file_id;
  return { uploaded: true, file: fileRef(s.account.id, id), channel: channelRef(s.account.id, target.channel), name: input.name, size: input.bytes.byteLength };
}
