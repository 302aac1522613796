// The docs realm's kinds, by ref segment.
import { commentKind } from "./comment";
import { documentKind } from "./document";
import { exportKind } from "./export";
import { fileKind } from "./file";
import { tabKind } from "./tab";
import { threadKind } from "./thread";

export const kinds = { document: documentKind, tab: tabKind, thread: threadKind, comment: commentKind, export: exportKind, file: fileKind };
