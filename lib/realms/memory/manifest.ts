// The memory realm's declaration: one kind (`memory.item`), its selectors, actions and catalog.
import { z } from "zod";
import { payloadSchema, type RealmManifest } from "@/lib/realms/contract";
import { nativeManifest } from "@/lib/realms/native/declare";
import { kinds } from "./kinds";
import { refs } from "./refs";

/** Action payloads, parsed by the adapter; their JSON Schemas below are derived from them so the two never drift. */
export const pinPayload = z.strictObject({
  pinned: z.boolean().default(true).describe("true pins the item (listed first), false unpins it"),
});
export const forgetPayload = z.strictObject({
  reason: z.string().trim().min(1).max(500).optional().describe("why it should be forgotten (kept in the audit, not in the realm)"),
});

export const manifest: RealmManifest = nativeManifest(
  {
    namespace: "memory",
    realm_type: "native",
    service_card: {
      title: "Memory",
      purpose: "Keeps short things you want remembered — facts, preferences, notes — so you and your agents can recall them later.",
      works_with: "Realmgate's own storage; no outside account needed.",
      touches: [
        "Memory items you own or that were shared with you: their text, origin, kind, labels and pin",
        "Nothing outside Realmgate",
      ],
      operation_labels: {
        "provider.about": "About Memory",
        "object.schema": "Browse Memory's capabilities",
        "object.list": "List remembered items",
        "object.search": "Search remembered items",
        "object.get": "Read a remembered item",
        "object.upsert": "Remember something new or edit an item",
        "object.delete": "Delete a remembered item for good",
        "object.action.pin": "Pin or unpin an item",
        "object.action.forget": "Forget an item for good, saying why",
      },
    },
    kinds: [
      {
        name: "memory.item",
        label: "Memory item",
        one_liner: "One thing to remember: a fact, a preference or a note, with labels.",
        ref_pattern: "memory:item:<mem_id>",
        fields: [
          { name: "text", type: "text", description: "What to remember, in a sentence or a few.", required: true, writable: true },
          { name: "origin", type: "string", description: "Where it came from: a conversation, a document, a person.", writable: true },
          {
            name: "kind",
            type: "string",
            description: "What sort of memory this is (defaults to note).",
            enum: ["fact", "preference", "note"],
            open: true,
            writable: true,
          },
          {
            name: "labels",
            type: "string[]",
            description: "Lower-case labels. Upsert takes a list (replaces) or {add: [...], remove: [...]}.",
            writable: true,
          },
          { name: "pinned", type: "boolean", description: "Pinned items are listed first.", writable: true },
          {
            name: "shared_with",
            type: "string[]",
            description: "Emails of tenant members who may read and edit it; only the owner may change it. A list or {add, remove}.",
            writable: true,
          },
          { name: "owner", type: "string", description: "Email of the owner." },
          { name: "created_at", type: "datetime", description: "When it was remembered." },
          { name: "updated_at", type: "datetime", description: "When it last changed." },
        ],
        operations: ["object.list", "object.search", "object.get", "object.upsert", "object.delete"],
        filters: ["kind", "labels", "pinned"],
      },
    ],
    selectors: [
      { kind: "memory.item", by: "label", description: "Items carrying this label, e.g. {label: \"travel\"}; several matches return choices." },
      { kind: "memory.item", by: "text", description: "Items whose text contains these words, e.g. {text: \"tea\"}; several matches return choices." },
    ],
    actions: [
      {
        name: "pin",
        label: "Pin",
        description: "Pin an item so it is listed first, or unpin it with {pinned: false}.",
        target_kind: "memory.item",
        payload_schema: payloadSchema(pinPayload),
        example: { pinned: true },
        risk: "write",
        returns: "The item, with its new pin state.",
      },
      {
        name: "forget",
        label: "Forget",
        description: "Forget an item for good (the owner only), with a reason kept in the audit: the same as delete_object, which takes no reason. Cannot be undone.",
        target_kind: "memory.item",
        payload_schema: payloadSchema(forgetPayload),
        example: { reason: "No longer true" },
        risk: "destructive",
        returns: "{ref, forgotten: true}.",
      },
    ],
    catalog: {
      path: "/",
      label: "Memory",
      description: "Remember facts, preferences and notes, and recall them later.",
      keywords: ["memory", "remember", "recall", "notes", "knowledge"],
      kinds: ["memory.item"],
      operations: ["provider.about", "object.schema"],
      children: [
        {
          path: "/remember",
          label: "Remember something",
          description: "Save a new fact, preference or note, with labels and where it came from.",
          keywords: ["remember", "save", "store", "note down", "keep in mind", "i prefer", "my preference", "fact", "don't forget"],
          kinds: ["memory.item"],
          operations: ["object.upsert"],
          children: [],
        },
        {
          path: "/recall",
          label: "Recall what you know",
          description: "Search or list remembered items by words, labels, kind or pin, and read one.",
          keywords: ["recall", "what do i know", "what do you know about", "look up", "find", "search memory", "remind me", "my preferences", "facts about"],
          kinds: ["memory.item"],
          operations: ["object.search", "object.list", "object.get"],
          children: [],
        },
        {
          path: "/organize",
          label: "Organize memories",
          description: "Edit an item's text, kind or labels, pin the important ones, share with a colleague.",
          keywords: ["organize", "label", "tag", "edit memory", "update", "correct", "share"],
          kinds: ["memory.item"],
          operations: ["object.upsert"],
          children: [
            {
              path: "/organize/pin",
              label: "Pin or unpin",
              description: "Pin an item so it comes first, or unpin it.",
              keywords: ["pin", "unpin", "important", "star", "keep on top"],
              kinds: ["memory.item"],
              operations: ["object.action.pin"],
              children: [],
            },
          ],
        },
        {
          path: "/forget",
          label: "Forget something",
          description: "Delete a remembered item for good; only its owner can.",
          keywords: ["forget", "delete", "remove", "erase", "no longer true"],
          kinds: ["memory.item"],
          operations: ["object.action.forget", "object.delete"],
          children: [],
        },
      ],
    },
    rules: [
      "Refs look like memory:item:<mem_id>; only this realm reads them.",
      "Selectors: {label} or {text}; when several items match you get choices (ambiguous_selector), never a guess.",
      "labels and shared_with take a list (replaces) or {add: [...], remove: [...]}; labels are stored lower-case.",
      "Items you neither own nor were shared answer not_found, like missing ones. Shared users may read and edit; only the owner may forget, delete or re-share (realm_denied).",
      "No files: text only.",
    ],
    delivery: { cursors: true, files: false, max_page_size: 100 },
  },
  { refs, kinds },
);
