// The board realm's actions: all on a card, all patches of it (the card's own rules apply).
import { defineAction } from "@/lib/realms/native/adapter";
import { patchCard } from "./kinds/card";
import { archivePayload, assignPayload, moveCardPayload } from "./manifest";

export const actions = {
  move_card: defineAction(moveCardPayload, (ctx, ref, { column, position }) => patchCard(ctx, ref, { column, position }, "payload")),
  assign: defineAction(assignPayload, (ctx, ref, { add, remove }) => patchCard(ctx, ref, { assignees: { add, remove } }, "payload")),
  archive: defineAction(archivePayload, (ctx, ref, { archived }) => patchCard(ctx, ref, { archived }, "payload")),
};
